"""A Vercel AI SDK file recorded with ``experimental_telemetry: { recordInputs: false }`` (a documented
privacy option: the doGenerate / doStream spans keep model, usage, output and tool calls, no
``ai.prompt.messages``) imports its calls as "input not captured", as GenAI spans with content
capture off do. New user nu2 #3: the whole file was refused ("no chat spans found", exit 2)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.assess.trace_header import header_rows
from ctxviewer.importers import ImportProblem, detect
from ctxviewer.model.trace import RequestTrace

FILE = Path(__file__).resolve().parents[1] / "data" / "tool_runs" / "vercel-record-inputs-false.otlp.json"


def test_the_calls_import_with_their_usage_output_and_tool_calls() -> None:
    records = list(detect(FILE).load(FILE))
    traces = [r for r in records if isinstance(r, RequestTrace)]
    assert [(t.trace_id.split(":")[1], t.endpoint.model, t.usage.input_tokens if t.usage else None,
             [c.name for c in t.tool_calls], len(t.items)) for t in traces] == [
        ("a000000000000002", "gpt-4o-mini", 71, ["getWeather"], 0),
        ("a000000000000004", "gpt-4o-mini", 104, [], 0)]
    assert dict(header_rows(traces[0]))["Content"] == "input not captured: the span records its output and no input messages"
    assert not [p for p in records if isinstance(p, ImportProblem) and "no chat spans" in p.message]
    # its ai.toolCall span (ai.toolCall.id call_Tk1) ran and ended ok: the call's verdict (nu2 #7)
    assert [(c.verdict.value if c.verdict else None, c.decided_by) for c in traces[0].tool_calls] == [
        ("permitted", "its ai.toolCall span a000000000000003 (ran: ended ok)")]
