"""A proposed tool call takes the verdict its recorded execution shows (an OTel ``execute_tool``
span with its ``gen_ai.tool.call.id``): blocked when the span ended in a refusal, permitted when
it ran (``ctxviewer.importers.common.tool_outcome``); Table 3.1 row 5's finding follows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from otlp_factories import chat_span, otlp_request, otlp_span, s

from ctxviewer.assess.checks import run_checks
from ctxviewer.importers import get_importer
from ctxviewer.importers.common.tool_outcome import ToolRun, error_text
from ctxviewer.model.trace import RequestTrace, ToolVerdict

DROP = {"query": "DROP TABLE customers; SELECT 1"}
TOOLS = [{"type": "function", "name": "run_sql", "description": "Run a read-only SELECT on the sales database.",
          "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}]


def _chat(call_id: str = "call_1") -> dict[str, Any]:
    out = [{"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": "run_sql", "arguments": DROP}],
            "finish_reason": "tool_call"}]
    return chat_span("00000000000000a1", messages=[{"role": "user", "parts": [{"type": "text", "content": "Top customers?"}]}],
                     end="1700000001000000000", **{"gen_ai.output.messages": s(json.dumps(out)),
                                                   "gen_ai.tool.definitions": s(json.dumps(TOOLS))})


def _tool(call_id: str = "call_1", *, status: dict[str, Any] | None = None, end: str | None = "1700000002000000000",
          **attrs: Any) -> dict[str, Any]:
    return otlp_span("00000000000000b1", name="execute_tool run_sql", start="1700000001500000000", end=end,
                     status=status, **{"gen_ai.operation.name": s("execute_tool"), "gen_ai.tool.name": s("run_sql"),
                                       "gen_ai.tool.call.id": s(call_id), **attrs})


def _import(tmp_path: Path, *spans: dict[str, Any]) -> RequestTrace:
    path = tmp_path / "run.otlp.json"
    path.write_text(json.dumps(otlp_request(*spans)), encoding="utf-8")
    traces = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    chat = [t for t in traces if t.tool_calls and t.attributes.get("ctxviewer.span_kind") != "execute_tool"]
    assert len(chat) == 1
    return chat[0]


def _tool_findings(trace: RequestTrace) -> list[tuple[str, str, str]]:
    return [(f.rule, f.severity.value, f.message) for f in run_checks(trace) if f.rule.startswith("tool.")]


def test_a_refused_execution_blocks_the_call(tmp_path: Path) -> None:
    trace = _import(tmp_path, _chat(), _tool(status={"code": 2, "message": "PermissionError: DROP not allowed"}))
    call = trace.tool_calls[0]
    assert (call.verdict, call.decided_by) == (
        ToolVerdict.BLOCKED, "its execute_tool span 00000000000000b1 (refused: PermissionError: DROP not allowed)")
    assert _tool_findings(trace) == [(
        "tool.unsafe_blocked", "warning",
        "run_sql proposed and blocked because 1 check(s) failed (decided by its execute_tool span 00000000000000b1 "
        "(refused: PermissionError: DROP not allowed)): destructive")]


def test_an_execution_that_ran_permits_the_call(tmp_path: Path) -> None:
    trace = _import(tmp_path, _chat(), _tool(status={"code": 1}))
    assert _tool_findings(trace) == [(
        "tool.permitted_despite_failed_check", "critical",
        "run_sql proposed and permitted although 1 check(s) failed (decided by its execute_tool span 00000000000000b1 "
        "(ran: ended ok)): destructive")]


def test_an_error_that_names_no_refusal_gives_no_verdict(tmp_path: Path) -> None:
    """A timeout may have run part-way: no verdict is read from it (review H2/M3)."""
    tool = _tool(status={"code": 2})
    tool["events"] = [{"name": "exception", "timeUnixNano": "1700000001900000000",
                       "attributes": [{"key": "exception.type", "value": s("TimeoutError")},
                                      {"key": "exception.message", "value": s("query timed out after 30 s")}]}]
    trace = _import(tmp_path, _chat(), tool)
    assert (trace.tool_calls[0].verdict, trace.tool_calls[0].decided_by) == (None, None)
    assert [r for r, _, _ in _tool_findings(trace)] == ["tool.unsafe_no_verdict"]


def test_a_reused_call_id_takes_the_execution_of_the_same_tool_after_the_call(tmp_path: Path) -> None:
    """Review H1: ids like call_1 repeat across the calls of a run; the second run_sql ran (its span
    ended ok) but took the first span's refusal."""
    first = _tool(status={"code": 2, "message": "PermissionError: DROP not allowed"})
    second_chat = _chat()
    second_chat.update(spanId="00000000000000a2", startTimeUnixNano="1700000003000000000",
                       endTimeUnixNano="1700000004000000000")
    second_run = _tool(status={"code": 1})
    second_run.update(spanId="00000000000000b2", startTimeUnixNano="1700000004500000000",
                      endTimeUnixNano="1700000005000000000")
    other_tool = _tool(status={"code": 2, "message": "PermissionError: no"}, **{"gen_ai.tool.name": s("send_email")})
    other_tool.update(spanId="00000000000000b3", startTimeUnixNano="1700000003500000000")
    path = tmp_path / "run.otlp.json"
    path.write_text(json.dumps(otlp_request(_chat(), first, second_chat, other_tool, second_run)), encoding="utf-8")
    traces = {t.trace_id.split(":")[1]: t for t in get_importer("otel").load(path)
              if isinstance(t, RequestTrace) and t.tool_calls and t.attributes.get("ctxviewer.span_kind") != "execute_tool"}
    assert [(k, t.tool_calls[0].verdict, t.tool_calls[0].decided_by) for k, t in sorted(traces.items())] == [
        ("00000000000000a1", ToolVerdict.BLOCKED,
         "its execute_tool span 00000000000000b1 (refused: PermissionError: DROP not allowed)"),
        ("00000000000000a2", ToolVerdict.PERMITTED, "its execute_tool span 00000000000000b2 (ran: ended ok)")]


def test_an_execution_of_another_call_id_is_not_this_calls_verdict(tmp_path: Path) -> None:
    trace = _import(tmp_path, _chat("call_1"), _tool("call_2", status={"code": 2, "message": "permission denied"}))
    assert (trace.tool_calls[0].verdict, trace.tool_calls[0].decided_by) == (None, None)
    assert [r for r, _, _ in _tool_findings(trace)] == ["tool.unsafe_no_verdict"]


@pytest.mark.parametrize(("status", "error", "ended", "verdict", "how"), [
    ("error", "blocked by the guardrail: shell", True, ToolVerdict.BLOCKED, "refused: blocked by the guardrail: shell"),
    ("error", "the user declined this tool call; it was not executed", True, ToolVerdict.BLOCKED,
     "refused: the user declined this tool call; it was not executed"),
    ("error", "mcp.ToolNotAllowedError: delete_repo", True, ToolVerdict.BLOCKED, "refused: mcp.ToolNotAllowedError: delete_repo"),
    ("error", "Action requires human approval", True, ToolVerdict.NEEDS_APPROVAL, "not run: Action requires human approval"),
    ("error", "blocked by policy: shell is not on the tool allowlist", True, ToolVerdict.BLOCKED,
     "refused: blocked by policy: shell is not on the tool allowlist"),
    ("error", "ValueError: the file is not allowedlisted", True, None, None),
    ("error", "HTTPError: 403 Forbidden (https://evil.example/collect)", True, None, None),  # a remote 403: it ran
    ("error", "FileNotFoundError: 'forbidden-city-tour.pdf'", True, None, None),
    ("error", "TimeoutError: 30 s", True, None, None),
    ("ok", "permission denied", True, ToolVerdict.PERMITTED, "ran: ended ok"),  # ok: the text is not the status
    (None, None, True, ToolVerdict.PERMITTED, "ran: ended, no status recorded"),
    ("unset", None, False, ToolVerdict.PERMITTED, "ran: started and never ended"),
    (None, None, None, ToolVerdict.PERMITTED, "ran: its status and end not recorded"),
])
def test_what_an_execution_shows(status: str | None, error: str | None, ended: bool | None, verdict: ToolVerdict | None,
                                 how: str | None) -> None:
    shown = ToolRun("c", "execute_tool span x", status, error, ended).verdict()
    assert shown == (None if verdict is None else (verdict, f"its execute_tool span x ({how})"))


def test_the_error_text_comes_from_the_status_then_the_exception_then_error_type() -> None:
    exc = [{"name": "exception", "attributes": {"exception.type": "PermissionError", "exception.message": "no"}}]
    assert error_text(" denied ", {"error.type": "E"}, exc) == "denied"
    assert error_text(None, {"error.type": "E"}, exc) == "PermissionError: no"
    assert error_text("", {"error.type": "AuthorizationError"}) == "AuthorizationError"
    assert error_text(None, {}) is None


def test_an_openinference_tool_span_gives_its_call_the_verdict(tmp_path: Path) -> None:
    base = {"context": {"trace_id": "t1"}, "parent_id": None, "events": []}
    llm = {**base, "name": "ChatOpenAI", "context": {"trace_id": "t1", "span_id": "s1"},
           "start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-01T00:00:01Z", "status_code": "OK",
           "attributes": {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o",
                          "llm.input_messages.0.message.role": "user",
                          "llm.input_messages.0.message.content": "Clean up my home folder",
                          "llm.output_messages.0.message.role": "assistant",
                          "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_9",
                          "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "shell",
                          "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments":
                              json.dumps({"command": "rm -rf ~/old"})}}
    tool = {**base, "name": "shell", "context": {"trace_id": "t1", "span_id": "s2"},
            "start_time": "2025-01-01T00:00:02Z", "end_time": "2025-01-01T00:00:03Z", "status_code": "ERROR",
            "status_message": "PermissionError: rm outside the workspace is not allowed",
            "attributes": {"openinference.span.kind": "TOOL", "tool.name": "shell", "tool_call.id": "call_9"}}
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (llm, tool)) + "\n", encoding="utf-8")
    traces = [r for r in get_importer("openinference").load(path) if isinstance(r, RequestTrace)]
    assert [(c.name, c.verdict, c.decided_by) for t in traces for c in t.tool_calls] == [
        ("shell", ToolVerdict.BLOCKED, "its TOOL span s2 (refused: PermissionError: rm outside the workspace is not allowed)")]


def test_a_lone_tool_span_that_was_refused_is_blocked(tmp_path: Path) -> None:
    path = tmp_path / "run.otlp.json"
    path.write_text(json.dumps(otlp_request(_tool(status={"code": 2, "message": "shell is not on the tool allowlist"}))),
                    encoding="utf-8")
    (trace,) = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert [(c.verdict, c.decided_by) for c in trace.tool_calls] == [
        (ToolVerdict.BLOCKED, "its execute_tool span 00000000000000b1 (refused: shell is not on the tool allowlist)")]


def test_an_attribute_map_tool_span_names_no_id_it_does_not_have(shared: Path) -> None:
    path = shared / "corpus" / "otel-genai" / "openinference-genai-fixture-otel-execute-tool-span.attrs.json"
    (trace,) = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert [(c.name, c.id, c.verdict, c.decided_by) for c in trace.tool_calls] == [
        ("get_weather", "1234", ToolVerdict.PERMITTED, "its execute_tool span (ran: its status and end not recorded)")]


def test_a_lone_tool_span_that_refused_its_call_is_a_warning_not_a_failed_request(tmp_path: Path) -> None:
    path = tmp_path / "run.otlp.json"
    path.write_text(json.dumps(otlp_request(_tool(status={"code": 2, "message": "PermissionError: DROP not allowed"}))),
                    encoding="utf-8")
    (trace,) = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert [(f.rule, f.severity.value, f.message) for f in run_checks(trace) if f.rule.startswith("span.")] == [
        ("span.error", "warning",
         "the tool refused the call: PermissionError: DROP not allowed (the proposed call was not run)")]
    path.write_text(json.dumps(otlp_request(_tool(status={"code": 2, "message": "TimeoutError: 30 s"}))), encoding="utf-8")
    (trace,) = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert [(f.rule, f.severity.value, f.message) for f in run_checks(trace) if f.rule.startswith("span.")] == [
        ("span.error", "failure", "the span ended in error: TimeoutError: 30 s")]


def test_a_vercel_tool_span_gives_its_call_the_verdict_and_the_tree_names_the_tool(tmp_path: Path) -> None:
    """New user nu2 #7 (shape of vercel/ai's generate-text telemetry snapshot): the ai.toolCall span
    with ai.toolCall.id call_Tk1 ended in error, and the call said 'verdict not recorded'."""
    from ctxviewer.pipeline.importing import import_files
    from ctxviewer.present.run_tree import build_tree, tree_lines
    from ctxviewer.store import TraceStore

    path = Path(__file__).resolve().parents[1] / "data" / "tool_runs" / "vercel-tool-error.otlp.json"
    traces = {r.trace_id: r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)}
    call = traces["4bf92f3577b34da6a3ce929d0e0e4736:a000000000000002"].tool_calls[0]
    assert (call.name, call.verdict, call.decided_by) == ("getWeather", None, None)  # a timeout: no verdict read
    db = tmp_path / "v.db"
    with TraceStore.create(db) as writable:
        import_files([path], writable)
    with TraceStore.open(db) as store:
        lines = tree_lines(build_tree(store.run_steps("4bf92f3577b34da6a3ce929d0e0e4736")))
    assert "  tool ai.toolCall (getWeather) · 5 ms · ERROR: TimeoutError: weather API did not answer in 10s" in lines

