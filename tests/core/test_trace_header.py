"""The trace header and verdict line in words (core, no Qt)."""

from __future__ import annotations

from dataclasses import replace

from factories import make_rich_trace, make_trace

from ctxviewer.assess.budget import check_capacity
from ctxviewer.assess.trace_header import header_rows, numbers_line, tool_call_line
from ctxviewer.model.trace import NOT_RECORDED, Endpoint, Policy, Response, Usage


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


def _imported(**attributes: object) -> dict[str, str]:
    return dict(header_rows(replace(make_trace(), attributes=attributes, session_id=None)))


def test_span_status_and_completeness_never_read_like_a_success() -> None:
    """Issue 6: status ERROR with its message, a span that never ended, a span without times."""
    assert _imported(**{"otel.status_code": "error", "otel.status_message": "429 rate limited",
                        "ctxviewer.completeness": "ended", "ctxviewer.duration_ms": 1250.0})["Span"] == (
        "ERROR: 429 rate limited · ended after 1,250 ms")
    assert _imported(**{"otel.status_code": "error", "ctxviewer.completeness": "ended"})["Span"] == (
        "ERROR (no message recorded) · ended")
    assert _imported(**{"otel.status_code": "unset", "ctxviewer.completeness": "never ended"})["Span"] == (
        "unset · NEVER ENDED (no end time recorded)")
    assert _imported(**{"otel.status_code": "error", "otel.status_message": "429 rate limited",
                        "ctxviewer.completeness": "never ended"})["Span"] == (
        "ERROR: 429 rate limited · ended in error, end time not recorded")
    assert _imported(**{"ctxviewer.completeness": "times not recorded"})["Span"] == (
        "status not recorded · times not recorded")
    assert _imported(**{"otel.status_code": "ok", "ctxviewer.completeness": "ended",
                        "ctxviewer.duration_ms": 20.0})["Span"] == "ok · ended after 20 ms"
    assert "Span" not in dict(header_rows(make_trace()))  # a native trace records no span


def test_session_content_capture_inheritance_and_tools_fed() -> None:
    rows = dict(header_rows(replace(make_trace(), session_id="conv-42", attributes={
        "ctxviewer.content": "truncated", "ctxviewer.truncated": ["gen_ai.input.messages"],
        "ctxviewer.system_inherited_from": "span invoke_agent support (00000000000000f0)",
        "ctxviewer.fed_by": ["tool lookup (span 00000000000000b1)"]})))
    assert rows["Session"] == "conv-42"
    assert rows["Content"] == ("truncated: gen_ai.input.messages cut mid-JSON, kept as raw text; "
                               "reported usage exceeds what was captured (the rest is not captured)")
    assert rows["Inherited"] == "system instructions from span invoke_agent support (00000000000000f0)"
    assert rows["Fed by"] == "tool lookup (span 00000000000000b1)"
    both = dict(header_rows(replace(make_trace(), attributes={
        "ctxviewer.system_inherited_from": "span invoke_agent support (00000000000000f0)",
        "ctxviewer.tools_inherited_from": "span invoke_agent support (00000000000000f0)"})))
    assert both["Inherited"] == ("system instructions from span invoke_agent support (00000000000000f0)\n"
                                 "tools from span invoke_agent support (00000000000000f0)")
    uncaptured = replace(make_trace(), attributes={"ctxviewer.content": "not captured"}, response=None, tool_calls=())
    assert dict(header_rows(replace(uncaptured, usage=Usage(input_tokens=97))))["Content"] == (
        "not captured: the span has usage and metadata only (message content capture is opt-in in OpenTelemetry)")
    assert dict(header_rows(replace(uncaptured, usage=Usage())))["Content"] == (  # review item 8: no usage either
        "not captured: the span has metadata only, no usage (message content capture is opt-in in OpenTelemetry)")
    assert dict(header_rows(replace(uncaptured, response=Response(text="Paris."))))["Content"] == (
        "input not captured: the span records its output and no input messages")
    native = make_trace()
    assert native.session_id and dict(header_rows(native))["Session"] == native.session_id
    assert list(dict(header_rows(replace(native, session_id=None)))) == [
        "Trace", "Created", "Service", "Model", "Policy", "Replay of", "Usage", "Cost", "Tool calls"]


def test_span_and_session_text_from_the_file_is_made_visible() -> None:
    rows = dict(header_rows(replace(make_trace(), session_id="conv\u200b-1", attributes={
        "otel.status_code": "error", "otel.status_message": "quota\u202eexceeded\nretry", "ctxviewer.completeness": "ended"})))
    assert "\u202e" not in rows["Span"] and "\n" not in rows["Span"] and "\u200b" not in rows["Session"]
