"""The trace header and verdict line in words (core, no Qt)."""

from __future__ import annotations

from dataclasses import replace

from factories import make_rich_trace, make_trace

from ctxviewer.model import NOT_RECORDED, Endpoint, Policy
from ctxviewer.trace_header import header_rows, numbers_line, tool_call_line, verdict_line


def test_header_rows_of_rich_trace() -> None:
    rows = dict(header_rows(make_rich_trace()))
    assert rows["Trace"] == "trace-rich"
    assert rows["Created"] == "2026-11-02 09:14:05 UTC"
    assert rows["Model"] == "gpt-4o-mini (openai)"
    assert rows["Policy"] == "support-policy version v7"
    assert rows["Replay of"] == "trace-4471-delivery"
    assert rows["Usage"] == "input 412 · output 96 · cached 128 · reasoning 32"
    assert rows["Tool calls"].splitlines() == [
        'issue_refund({"order_id": "4471", "amount": 89.0}) → needs approval by refunds.require_supervisor'
        " (failed: approval)",
        'lookup_order({"order_id": "4471"}) → permitted',
    ]
    assert rows["Validations"].splitlines()[0] == "cited_ids: FAILED (cited doc-99 is not in the retained evidence)"


def test_header_not_recorded_never_zero() -> None:
    t = replace(make_trace(), created=None, service=None, endpoint=Endpoint(), policy=Policy(available=False))
    rows = dict(header_rows(t))
    assert rows["Created"] == NOT_RECORDED
    assert rows["Model"] == NOT_RECORDED
    assert rows["Usage"] == f"input {NOT_RECORDED} · output {NOT_RECORDED} · cached {NOT_RECORDED} · reasoning {NOT_RECORDED}"
    assert "NOT AVAILABLE" in rows["Policy"]
    assert rows["Tool calls"] == "none"
    assert "0" not in rows["Usage"]


def test_long_tool_arguments_are_cut() -> None:
    call = make_rich_trace().tool_calls[0]
    line = tool_call_line(replace(call, arguments='{"x": "' + "y" * 500 + '"}'))
    assert "…" in line and len(line) < 300


def test_verdict_line_states() -> None:
    assert verdict_line(make_trace()) == ("fits, 6,601 tokens margin", "fits")
    assert verdict_line(replace(make_trace(), endpoint=Endpoint())) == ("capacity not recorded", "unknown")
    text, state = verdict_line(make_rich_trace())  # separate limits: both checks
    assert state == "fits" and text.startswith("input fits") and "output reserve fits" in text
    assert numbers_line(make_trace()) == (
        "input 199 + reserved output 1,200 of capacity 8,000 tokens · declared safety margin 800")


def test_unavailable_policy_turns_the_verdict_into_a_warning() -> None:
    from ctxviewer.model import Policy

    t = replace(make_trace(), policy=Policy(id="support-policy", version="2026-10-03", available=False))
    text, state = verdict_line(t)
    assert state == "over"
    assert text.endswith("; required policy version unavailable: the request should be rejected")
