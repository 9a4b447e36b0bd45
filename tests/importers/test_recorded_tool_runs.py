"""A proposed tool call takes the verdict its recorded execution shows in Inspect AI logs (a
``tool`` event: an approver's rejection blocks it), LangSmith run lists (a ``tool`` run) and MLflow
traces (a ``TOOL`` span), by the rules of ``ctxviewer.importers.common.tool_outcome``; with them,
LangSmith's run-level token counts, an MLflow LangChain span's endpoint and an Inspect sample's
times (new user nu4).

Inputs (tests/data/run_verdicts/, written from the documented shapes):
* inspect-approval.json -- bash ``call_du`` ran; ``call_rm`` rejected by the approver;
  ``disk_free`` ``call_df`` timed out; the last model event fails at 10:00:50 (sample error);
* langsmith-tool-runs.json -- ``send_email`` refused (PermissionError), ``lookup_order`` ran (its
  ToolMessage names ``call_order``), ``fetch_invoice`` timed out; the second llm run has only
  run-level ``prompt_tokens`` 300 / ``completion_tokens`` 12;
* mlflow-langchain-tool.trace.json -- LangChain autolog: model in ``invocation_params``, finish
  reason in ``generation_info``, TOOL span ``delete_account`` ended in ``PermissionError``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ctxviewer.assess.checks import run_checks
from ctxviewer.assess.trace_header import cost_line
from ctxviewer.importers import get_importer
from ctxviewer.importers.formats.inspect_runs import sample_times
from ctxviewer.importers.formats.inspect_verdicts import sample_runs
from ctxviewer.importers.formats.langsmith import call_from_run
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import RequestTrace, ToolVerdict

DATA = Path(__file__).resolve().parents[1] / "data" / "run_verdicts"


def _load(name: str, fmt: str) -> tuple[list[RequestTrace], list[RunSpan]]:
    records = list(get_importer(fmt).load_runs(DATA / name))
    return [r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, RunSpan)]


def _verdicts(traces: list[RequestTrace]) -> list[tuple[str, str | None, ToolVerdict | None, str | None]]:
    return [(c.name, c.id, c.verdict, c.decided_by) for t in traces for c in t.tool_calls]


def test_inspect_tool_events_give_the_verdicts() -> None:
    traces, _ = _load("inspect-approval.json", "inspect_ai")
    assert _verdicts(traces) == [
        ("bash", "call_du", ToolVerdict.PERMITTED, "its tool event call_du (ran: ended ok)"),
        ("bash", "call_rm", ToolVerdict.BLOCKED,
         "its tool event call_rm (rejected by the approver: Tool call rejected by approver: deletes system files)"),
        ("disk_free", "call_df", None, None)]  # a timeout: it may have run part-way, no verdict read
    blocked = [(f.rule, f.message) for f in run_checks(traces[1]) if f.rule == "tool.unsafe_blocked"]
    assert blocked == [(
        "tool.unsafe_blocked", "bash proposed and blocked because 1 check(s) failed (decided by its tool event call_rm "
        "(rejected by the approver: Tool call rejected by approver: deletes system files)): destructive")]


def test_an_inspect_approval_event_names_the_approver_and_blocks_a_call_it_stopped() -> None:
    """``ApprovalEvent`` (``approver``, ``decision``): a rejected call's tool event names the
    approver; a call the approver terminated has no tool event, and the approval event blocks it."""
    at = "2025-11-20T10:00:{:02d}+00:00".format
    events = [
        {"event": "approval", "timestamp": at(1), "approver": "human", "decision": "reject", "explanation": "no",
         "message": "", "call": {"id": "c1", "function": "bash", "arguments": {}}},
        {"event": "tool", "timestamp": at(2), "id": "c1", "function": "bash", "completed": at(2),
         "error": {"type": "approval", "message": "Tool call rejected by approver: no"}},
        {"event": "approval", "timestamp": at(3), "approver": "policy/strict", "decision": "terminate",
         "explanation": "exfiltration attempt", "message": "", "call": {"id": "c2", "function": "curl", "arguments": {}}},
        {"event": "approval", "timestamp": at(4), "approver": "auto", "decision": "approve", "message": "",
         "call": {"id": "c3", "function": "ls", "arguments": {}}}]
    runs = sample_runs(events)
    assert {k: [(r.tool, r.verdict()) for r in v] for k, v in runs.items()} == {
        "c1": [("bash", (ToolVerdict.BLOCKED,
                         "its tool event c1 (rejected by the approver human: Tool call rejected by approver: no)"))],
        "c2": [("curl", (ToolVerdict.BLOCKED,
                         "its approval event (rejected by the approver policy/strict: exfiltration attempt)"))]}


def test_an_inspect_sample_lasts_as_long_as_its_events_and_shows_its_error() -> None:
    """nu4: the sample ended at its last event's *start* (38,000 ms of a 68 s run); its last model
    event completes 14 s later. ``sample.error`` was named unmapped although shown."""
    traces, steps = _load("inspect-approval.json", "inspect_ai")
    sample = next(s for s in steps if s.kind == "sample")
    assert sample.start is not None and sample.end is not None
    assert (sample.end - sample.start).total_seconds() * 1000 == 50_000
    assert all(s.end is None or s.end <= sample.end for s in steps)
    assert (sample.status, sample.status_message) == ("error", "RateLimitError: 429 (retries exhausted)")
    assert [t.attributes.get("ctxviewer.unmapped") for t in traces] == [None, None, None]


def test_an_inspect_samples_recorded_times_are_used_and_widened_to_its_events() -> None:
    at = "2025-11-20T10:00:{:02d}+00:00".format
    events = [{"event": "model", "timestamp": at(5), "completed": at(40)}]
    t = datetime(2025, 11, 20, 10, 0, tzinfo=timezone.utc).replace
    assert sample_times({"started_at": at(1), "completed_at": at(50)}, events) == (t(second=1), t(second=50))
    assert sample_times({"started_at": at(1), "total_time": 30.0}, events) == (t(second=1), t(second=40))
    assert sample_times({"started_at": at(1), "total_time": 55.5}, events) == (t(second=1), t(second=56, microsecond=500000))
    assert sample_times({}, events) == (t(second=5), t(second=40))
    assert sample_times({}, []) == (None, None)


def test_langsmith_tool_runs_give_the_verdicts() -> None:
    traces, _ = _load("langsmith-tool-runs.json", "langsmith")
    assert _verdicts(traces) == [
        ("send_email", "call_mail", ToolVerdict.BLOCKED,
         "its tool run 0193aaaa-0000-7000-8000-000000000003 (refused: PermissionError('recipient not on the allowlist'))"),
        ("lookup_order", "call_order", ToolVerdict.PERMITTED,
         "its tool run 0193aaaa-0000-7000-8000-000000000004 (ran: ended ok)"),
        ("fetch_invoice", "call_inv", None, None)]  # a TimeoutError names no refusal


def test_langsmith_run_level_tokens_are_the_usage_when_nothing_richer_is_recorded() -> None:
    traces, _ = _load("langsmith-tool-runs.json", "langsmith")
    assert [(t.usage.input_tokens, t.usage.output_tokens) for t in traces] == [(200, 30), (300, 12)]
    assert [cost_line(t) .startswith("$") for t in traces] == [True, True]
    assert [t.attributes.get("ctxviewer.unmapped") for t in traces] == [None, None]  # the run-level keys agree


def test_langsmith_run_level_tokens_that_disagree_stay_named_unmapped() -> None:
    run = {"id": "r1", "run_type": "llm", "inputs": {"messages": [{"role": "user", "content": "hi"}]},
           "outputs": {"usage_metadata": {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55}},
           "prompt_tokens": 60, "completion_tokens": 5, "total_tokens": 65}
    call = call_from_run(run, [])
    assert (call.usage.input_tokens, call.usage.output_tokens) == (50, 5)  # usage_metadata kept
    assert call.attributes["ctxviewer.unmapped"] == ["completion_tokens", "prompt_tokens", "total_tokens"]
    agreeing = call_from_run(dict(run, prompt_tokens=50, total_tokens=55), [])
    assert "ctxviewer.unmapped" not in agreeing.attributes


def test_mlflow_langchain_chat_model_span_names_its_endpoint_and_tool_verdict() -> None:
    [trace], _ = _load("mlflow-langchain-tool.trace.json", "mlflow")
    assert (trace.endpoint.provider, trace.endpoint.model) == ("openai", "gpt-4o-mini")
    assert trace.response is not None
    assert (trace.response.finish_reason, trace.response.model) == ("tool_calls", "gpt-4o-mini-2024-07-18")
    assert cost_line(trace).startswith("$")
    assert _verdicts([trace]) == [(
        "delete_account", "call_del", ToolVerdict.BLOCKED,
        "its TOOL span 00000000000000c3, matched by tool name and order, not by id "
        "(refused: PermissionError: deletion blocked by policy)")]
