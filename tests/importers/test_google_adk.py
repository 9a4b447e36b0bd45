"""Google ADK's own ``call_llm`` spans (adk-python ``telemetry.py``: ``gcp.vertex.agent.llm_request``
/ ``llm_response`` documents, no ``gen_ai.operation.name``) are model calls (ctxviewer.importers.formats.otel.adk).
New user nu2 #2: both calls vanished without a word; only the tool span imported, 'ok', 0 items."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_factories import otlp_request, otlp_span, s

from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.model.trace import RequestTrace

FILE = Path(__file__).resolve().parents[1] / "data" / "tool_runs" / "google-adk-weather.otlp.json"


def test_the_two_model_calls_import_with_messages_tools_usage_and_the_tool_call() -> None:
    records = list(get_importer("otel").load(FILE))
    traces = [r for r in records if isinstance(r, RequestTrace)]
    assert [p.message for p in records if isinstance(p, ImportProblem)] == []
    first, second = traces
    assert (first.endpoint.model, first.usage.input_tokens if first.usage else None, first.session_id) == (
        "gemini-2.0-flash", 112, "sess-9")
    assert [(i.kind.value, i.role) for i in first.items] == [("policy", "system"), ("user", "user"), ("tool", None)]
    assert first.user_request == "What is the weather in New York?"
    assert [(c.name, c.arguments, c.id, c.verdict.value if c.verdict else None) for c in first.tool_calls] == [
        ("get_weather", '{"city":"New York"}', "adk-1", "permitted")]
    assert [(i.kind.value, i.role) for i in second.items] == [
        ("policy", "system"), ("user", "user"), ("history", "assistant"), ("history", "tool"), ("tool", None)]
    assert second.response is not None and second.response.text == "The weather in New York is sunny, 25°C."
    assert "gcp.vertex.agent.llm_request" not in second.attributes
    assert second.attributes["gcp.vertex.agent.invocation_id"] == "e-123"


def test_a_model_call_span_no_mapping_reads_is_named_not_dropped_in_silence(tmp_path: Path) -> None:
    span = otlp_span("00000000000000c1", name="call_llm", end="1700000001000000000",
                     **{"gen_ai.system": s("gcp.vertex.agent"), "gen_ai.request.model": s("gemini-2.0-flash"),
                        "gcp.vertex.agent.llm_request": s("{not json")})
    path = tmp_path / "adk.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    problems = [(p.record, p.message, p.dropped) for p in get_importer("otel").load(path) if isinstance(p, ImportProblem)]
    assert problems[0] == ("model-call spans", "1 span(s) record a model call (gen_ai.request.model) in a shape "
                           "ctxviewer does not read (call_llm ×1): not imported", 1)


def test_an_agent_run_span_summing_its_calls_is_no_unread_call(tmp_path: Path) -> None:
    """Review H4: Pydantic AI's 'agent run' span (gen_ai.request.model and summed usage, no
    gen_ai.operation.name) above its chat spans made an ordinary export exit 2."""
    from otlp_factories import chat_span

    run = otlp_span("00000000000000f1", name="agent run", end="1700000009000000000",
                    **{"gen_ai.request.model": s("gpt-4o"), "gen_ai.usage.input_tokens": {"intValue": "120"},
                       "model_name": s("gpt-4o")})
    chat = chat_span("00000000000000a1", end="1700000001000000000")
    chat["parentSpanId"] = "00000000000000f1"
    path = tmp_path / "pyd.otlp.json"
    path.write_text(json.dumps(otlp_request(run, chat)), encoding="utf-8")
    records = list(get_importer("otel").load(path))
    assert [p.message for p in records if isinstance(p, ImportProblem)] == []
    assert len([r for r in records if isinstance(r, RequestTrace)]) == 1


def test_adk_with_content_capture_off_says_not_captured(tmp_path: Path) -> None:
    """Review M4: ADK writes llm_request '{}' when it keeps no content; that imported as 0 items unsaid."""
    span = otlp_span("00000000000000c1", name="call_llm", end="1700000001000000000",
                     **{"gen_ai.system": s("gcp.vertex.agent"), "gen_ai.request.model": s("gemini-2.0-flash"),
                        "gcp.vertex.agent.llm_request": s("{}"), "gcp.vertex.agent.llm_response": s("{}"),
                        "gen_ai.usage.input_tokens": {"intValue": "50"}})
    path = tmp_path / "adk-off.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    records = list(get_importer("otel").load(path))
    (trace,) = [r for r in records if isinstance(r, RequestTrace)]
    assert (trace.items, trace.usage.input_tokens) == ((), 50)
    assert [p.message for p in records if isinstance(p, ImportProblem)] == [
        "no message content captured on this span (Google ADK leaves it out when "
        "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS is false or 0; it is on by default); "
        "usage and metadata only"]


def test_adk_with_content_capture_off_and_no_documents_is_a_model_call(tmp_path: Path) -> None:
    """ADK sets llm_request / llm_response to an empty map when ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS
    is false; the OTel SDK drops a map value, so the exported span has neither. It is still the
    model call (not an unread shape), its content not captured by ADK's switch."""
    span = otlp_span("00000000000000c2", name="call_llm", end="1700000001000000000",
                     **{"gen_ai.system": s("gcp.vertex.agent"), "gen_ai.request.model": s("gemini-2.0-flash"),
                        "gen_ai.usage.input_tokens": {"intValue": "50"},
                        "gen_ai.usage.output_tokens": {"intValue": "7"}})
    path = tmp_path / "adk-off-dropped.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    records = list(get_importer("otel").load(path))
    (trace,) = [r for r in records if isinstance(r, RequestTrace)]
    assert (trace.items, trace.endpoint.model, trace.usage.input_tokens, trace.usage.output_tokens) == (
        (), "gemini-2.0-flash", 50, 7)
    assert trace.attributes["ctxviewer.content"] == "not captured"
    assert [p.message for p in records if isinstance(p, ImportProblem)] == [
        "no message content captured on this span (Google ADK leaves it out when "
        "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS is false or 0; it is on by default); "
        "usage and metadata only"]
