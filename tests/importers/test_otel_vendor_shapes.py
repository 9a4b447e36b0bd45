"""Model-call spans as vendors outside the OTel GenAI semconv write them (new user nu3 #8, #4, #7).

Inputs: tests/data/otel_vendors/, built from the documented shapes --
* Semantic Kernel Python model diagnostics (``semantic_kernel/utils/telemetry/model_diagnostics/decorators.py``):
  ``gen_ai.operation.name`` ``chat.completions`` / ``text.streaming_completions`` (span ``"{operation} {model}"``),
  content in ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` events. Before, no trace was imported;
* Azure AI Inference tracer (``azure/ai/inference/tracing.py``): ``gen_ai.{role}.message`` / ``gen_ai.choice``
  events holding the message as JSON in ``gen_ai.event.content``. Before, every message was empty (0 tokens)
  and the response "not recorded", with no key named;
* OpenLLMetry google-generativeai (``span_utils.set_model_response_attributes``): completion tokens are
  Gemini's ``candidates_token_count``; the thinking tokens are only in ``llm.usage.total_tokens``. Before,
  output was 16 (not 426) and the cost about 26 times low;
* an ``invoke_agent`` span with GenAI log records in a separate file: the join note said "their content is
  on those calls" about a span no call was made of.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from ctxviewer.assess.trace_header import header_rows
from ctxviewer.importers import REGISTRY, ImportProblem, get_importer
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.formats.otel.runs import step_kind
from ctxviewer.model.trace import Kind, RequestTrace
from ctxviewer.pipeline.companion_files import plan
from ctxviewer.tokens.cost import call_cost

DATA = Path(__file__).resolve().parents[1] / "data" / "otel_vendors"


def _load(name: str) -> tuple[dict[str, RequestTrace], list[ImportProblem]]:
    records = list(get_importer("otel").load(DATA / name))
    return ({r.trace_id: r for r in records if isinstance(r, RequestTrace)},
            [r for r in records if isinstance(r, ImportProblem)])


def test_semantic_kernel_operation_names_are_model_calls() -> None:
    traces, problems = _load("semantic-kernel-python.otlp.json")
    chat = traces["5c000000000000000000000000000001:5c00000000000001"]
    stream = traces["5c000000000000000000000000000001:5c00000000000002"]
    assert list(traces) == [chat.trace_id, stream.trace_id]
    assert [(i.kind, i.role, i.content) for i in chat.items] == [
        (Kind.POLICY, "system", "You write short poems."), (Kind.USER, "user", "A haiku about the Seine, please.")]
    assert chat.response is not None and chat.response.text == "Grey water, slow barges"
    assert (chat.endpoint.model, chat.usage.input_tokens, chat.usage.output_tokens) == ("gpt-4o", 31, 9)
    assert chat.attributes["gen_ai.operation.name"] == "chat.completions"
    assert (stream.endpoint.model, stream.usage.input_tokens, stream.usage.output_tokens) == (
        "gpt-3.5-turbo-instruct", 12, 20)
    assert stream.attributes["ctxviewer.content"] == "not captured"
    assert not any("no chat spans" in str(p) for p in problems)


def test_semantic_kernel_spans_are_model_calls_in_the_run_tree() -> None:
    for op in ("chat.completions", "chat.streaming_completions", "text.completions", "text.streaming_completions"):
        span = Span(trace_id="t", span_id="s", parent_id=None, name=op, start=None, end=None,
                    attributes={"gen_ai.operation.name": op}, resource={}, record="r")
        assert step_kind(span) == "llm"


def test_azure_inference_event_content_is_read_and_unread_keys_named() -> None:
    traces, problems = _load("azure-ai-inference.otlp.json")
    [t] = traces.values()
    assert [(i.kind, i.role, i.content) for i in t.items] == [
        (Kind.POLICY, "system", "You are a travel assistant."),
        (Kind.USER, "user", "Weather in Lisbon?"),
        (Kind.HISTORY, "assistant", '{"type":"tool_call","id":"call_w1","name":"get_weather","arguments":{"city":"Lisbon"}}'),
        (Kind.HISTORY, "tool", "19 C, sunny")]
    assert t.response is not None and t.response.text == "It is 19 C and sunny in Lisbon."
    assert t.response.finish_reason == "stop"
    # the keys of the events' content not read are named, never dropped in silence
    assert list(t.attributes["ctxviewer.unmapped"]) == ["event gen_ai.choice: logprobs", "event gen_ai.user.message: name"]
    assert "ctxviewer.event_keys_unmapped" not in t.attributes
    assert not problems


def test_openllmetry_gemini_thinking_is_derived_from_llm_usage_total_tokens() -> None:
    traces, _ = _load("openllmetry-gemini.otlp.json")
    gemini = traces["6e000000000000000000000000000004:6e00000000000001"]
    other = traces["6e000000000000000000000000000004:6e00000000000002"]
    u = gemini.usage
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens) == (10, 426, 410)  # 436 - 10 - 16 = 410 thinking
    assert gemini.attributes["llm.usage.total_tokens"] == 436
    assert gemini.attributes["ctxviewer.usage_rule"].startswith("Gemini thinking tokens only in the total")
    assert "llm.usage.total_tokens" not in gemini.attributes.get("ctxviewer.unmapped", [])
    rows = dict(header_rows(gemini))
    assert rows["Usage"] == ("input 10 · output 426 · cached not recorded · reasoning 410 "
                             "(derived from total_tokens: total - input - output, in the output)")
    # billed as Google bills thinking: at the output rate (gemini-2.5-flash $0.30 / $2.50 per million)
    cost = call_cost(gemini.endpoint.provider, gemini.endpoint.model, gemini.created, gemini.usage)
    assert cost.total is not None and round(cost.total, 6) == Decimal("0.001068")
    # not Gemini: a total above input + output is no thinking rule of OpenAI's
    assert (other.usage.output_tokens, other.usage.reasoning_tokens) == (16, None)
    assert "ctxviewer.usage_rule" not in other.attributes
    assert dict(header_rows(other))["Usage"] == "input 10 · output 16 · cached not recorded · reasoning not recorded"


def test_log_records_of_a_span_no_call_was_made_of_are_not_claimed() -> None:
    spans, logs = DATA / "agent-span.otlp.json", DATA / "agent-span.logs.json"
    planned, companions = plan([spans, logs], None, REGISTRY)
    records = [r for p in planned for r in REGISTRY.load(p.importer, p.path, None, companions)]  # type: ignore[arg-type]
    traces = [r for r in records if isinstance(r, RequestTrace)]
    problems = [str(r) for r in records if isinstance(r, ImportProblem)]
    assert [(t.trace_id, t.user_request, t.response.text if t.response else None) for t in traces] == [
        ("5d000000000000000000000000000002:5d00000000000001", "Summarise the memo.", "It asks for budgets by Friday.")]
    assert not any("their content is on those calls" in p for p in problems)
    assert problems == [
        f"{spans}: whole file: no chat spans found (1 other span(s): invoke_agent)",
        f"{logs}: whole file: 2 GenAI log record(s) joined no span of the spans file(s) imported with it "
        "(span 5d00000000000001): imported on their own as log-only calls"]


def test_logfire_responses_output_items_are_one_response() -> None:
    """Logfire ``instrument_openai`` (``convert_responses_outputs_to_semconv``) writes each Responses
    output item as its own output message, none with a finish reason: before, two parallel tool calls
    read as "Tool calls none" and two "other choices" (nu3 #5)."""
    traces, problems = _load("logfire-responses-items.otlp.json")
    [t] = traces.values()
    assert t.response is not None and t.response.text == "Checking both cities."
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [
        ("get_weather", '{"city":"Paris"}', "call_par"), ("get_weather", '{"city":"Tokyo"}', "call_tyo")]
    assert "ctxviewer.other_choices" not in t.attributes
    assert not any("choices" in str(p) for p in problems)
    assert dict(header_rows(t))["Tool calls"] == ('get_weather({"city":"Paris"}) → verdict not recorded\n'
                                                  'get_weather({"city":"Tokyo"}) → verdict not recorded')


def test_choices_with_their_finish_reasons_stay_choices(tmp_path: Path) -> None:
    import json

    from otlp_factories import chat_span, otlp_request, s

    out = [{"role": "assistant", "parts": [{"type": "text", "content": "A cat."}], "finish_reason": "stop"},
           {"role": "assistant", "parts": [{"type": "tool_call", "id": "c9", "name": "delete_all_files",
                                            "arguments": {"path": "/"}}], "finish_reason": "tool_calls"}]
    path = tmp_path / "two.otlp.json"
    path.write_text(json.dumps(otlp_request(chat_span(**{"gen_ai.output.messages": s(json.dumps(out))}))))
    [t] = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert (t.response.text if t.response else None, t.tool_calls) == ("A cat.", ())
    assert [c["choice"] for c in t.attributes["ctxviewer.other_choices"]] == [2]
