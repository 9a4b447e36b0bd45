"""Usage rules the fields do not show (common.usage_rules): Gemini's thinking tokens, counted
only in the total, become reasoning inside the output (the OTel GenAI rule), on OTel and
OpenInference spans and LangSmith runs, said to be derived; other providers' totals are never reinterpreted; and tools a framework offers only in its own attributes
(Pydantic AI model_request_parameters) are tool items."""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.importers import detect, load_records
from ctxviewer.importers.common.usage_rules import thinking_in_total
from ctxviewer.model.trace import RequestTrace, Usage


def _trace(tmp_path: Path, attrs: dict[str, object]) -> RequestTrace:
    p = tmp_path / "span.attrs.json"
    p.write_text(json.dumps(attrs))
    [t] = [r for r in load_records(detect(p), p) if isinstance(r, RequestTrace)]
    return t


def test_rule() -> None:
    u = Usage(input_tokens=210, output_tokens=312)
    assert thinking_in_total(u, 834, "gcp.gemini") == Usage(input_tokens=210, output_tokens=624, reasoning_tokens=312)
    assert thinking_in_total(u, 834, None, "gemini-2.5-pro") is not None
    assert thinking_in_total(u, 834, "openai") is None
    assert thinking_in_total(u, 522, "gcp.gemini") is None  # total = input + output: nothing hidden
    assert thinking_in_total(Usage(input_tokens=210, output_tokens=312, reasoning_tokens=0), 834, "gemini") is None


def test_gemini_otel_span_thinking_from_total(tmp_path: Path) -> None:
    t = _trace(tmp_path, {
        "gen_ai.operation.name": "generate_content", "gen_ai.provider.name": "gcp.gemini",
        "gen_ai.request.model": "gemini-2.5-flash", "gen_ai.usage.input_tokens": 210,
        "gen_ai.usage.output_tokens": 312, "gen_ai.usage.total_tokens": 834,
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Plan a trip"}]}])})
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.reasoning_tokens) == (210, 624, 312)
    assert t.attributes["ctxviewer.usage_rule"].startswith("Gemini thinking tokens only in the total")


def test_openinference_gemini_and_openai_totals(tmp_path: Path) -> None:
    base = {"openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "hi", "llm.token_count.prompt": 10,
            "llm.token_count.completion": 5, "llm.token_count.total": 40}
    g = _trace(tmp_path, dict(base, **{"llm.provider": "google", "llm.model_name": "gemini-2.5-pro"}))
    assert (g.usage.output_tokens, g.usage.reasoning_tokens) == (30, 25)
    o = _trace(tmp_path, dict(base, **{"llm.provider": "openai", "llm.model_name": "gpt-4o"}))
    assert (o.usage.output_tokens, o.usage.reasoning_tokens) == (5, None)


def test_pydantic_ai_tools_in_model_request_parameters(tmp_path: Path) -> None:
    params = {"function_tools": [{"name": "get_weather", "description": "Weather for a city",
                                  "parameters_json_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
              "output_tools": [{"name": "final_result", "parameters_json_schema": {"type": "object"}}],
              "allow_text_output": False}
    t = _trace(tmp_path, {
        "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o",
        "model_request_parameters": json.dumps(params),
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Oslo?"}]}])})
    assert [(i.kind.value, i.id) for i in t.items] == [("user", "msg-0"), ("tool", "get_weather"),
                                                        ("tool", "final_result")]
    assert json.loads(t.items[1].content or "")["parameters"]["properties"] == {"city": {"type": "string"}}
    assert "ctxviewer.unmapped" not in t.attributes


def test_langsmith_gemini_run_thinking_from_total_is_derived_reasoning() -> None:
    """A ChatGoogleGenerativeAI run whose AIMessage usage_metadata has the thinking only in
    total_tokens (output 312 of 834): reasoning 312 derived, the trace says so (tests/data/langchain_images/runs.json)."""
    p = Path(__file__).resolve().parents[1] / "data" / "langchain_images" / "runs.json"
    by_id = {r.trace_id: r for r in load_records(detect(p), p) if isinstance(r, RequestTrace)}
    g = by_id["lc-gemini"]
    assert (g.usage.input_tokens, g.usage.output_tokens, g.usage.reasoning_tokens) == (210, 624, 312)
    assert g.attributes["ctxviewer.usage_rule"] == (
        "Gemini thinking tokens only in the total: reasoning derived as total - input - output "
        "(not recorded on its own), added to the output")
    o = by_id["lc-images"]  # an OpenAI run's total (1326 = 1320 + 6) is never reinterpreted
    assert (o.usage.output_tokens, o.usage.reasoning_tokens) == (6, None) and "ctxviewer.usage_rule" not in o.attributes
