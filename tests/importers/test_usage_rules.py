"""Usage rules the fields do not show (common.usage_rules): Gemini's thinking tokens, counted
only in the total, become reasoning inside the output (the OTel GenAI rule), on OTel and
OpenInference spans; other providers' totals are never reinterpreted."""

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
