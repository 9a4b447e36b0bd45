"""The trace header and verdict line in words (core, no Qt)."""

from __future__ import annotations

from dataclasses import replace

from factories import make_rich_trace, make_trace

from ctxviewer.budget import check_capacity
from ctxviewer.model import NOT_RECORDED, Endpoint, Policy
from ctxviewer.trace_header import header_rows, numbers_line, tool_call_line


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


def test_numbers_line() -> None:
    t = make_trace()
    assert numbers_line(t, check_capacity(t)) == (
        "input 199 + reserved output 1,200 of capacity 8,000 tokens · declared safety margin 800")
