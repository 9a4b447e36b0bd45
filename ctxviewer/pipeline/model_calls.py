"""Which stored traces are model calls, for the sums of ``stats`` and the window's Statistics.

A named OTel ``execute_tool`` span that fed no chat span in its file is imported on its own as a
trace (:func:`ctxviewer.importers.formats.otel.group.tool_trace`: its call and result, checked as
a tool execution), operation ``execute_tool`` (``gen_ai.operation.name``, OTel GenAI semconv). It
is a tool run, no model call: counted among the calls it made ``stats`` say "calls 2, counted input
41" of one model call (new user nu3 #10). :func:`model_calls_filter` gives the display filter of
the model calls among a filter's traces and how many tool runs it leaves out, which the surfaces
say. No Qt here.
"""

from __future__ import annotations

from typing import Any

from ctxviewer.store import TraceQuery

TOOL_RUNS = "operation == execute_tool"
"""The display filter of the traces that are tool executions imported on their own."""


def _and(text: str, more: str) -> str:
    return f"({text}) and {more}" if text.strip() else more


def model_calls_filter(store: Any, text: str) -> tuple[str, int]:
    """``(filter, left_out)``: the display filter keeping the model calls among the traces ``text``
    keeps (``text`` itself when none is a tool run, so the sums stay on their covering index) and
    the number of traces it leaves out (:data:`TOOL_RUNS`). ``store`` is a
    :class:`~ctxviewer.store.TraceStore` (``aggregate``); raises what its ``aggregate`` raises."""
    total, _groups = store.aggregate(TraceQuery(text=_and(text, TOOL_RUNS)), None)
    lone = int(total.calls)
    return (_and(text, f"not {TOOL_RUNS}") if lone else text), lone


def left_out_words(n: int) -> str:
    """``"1 trace is a tool execution imported on its own (operation execute_tool), no model call:
    not counted"``; ``""`` for 0."""
    if not n:
        return ""
    return (f"{n:,} trace{' is a' if n == 1 else 's are'} tool execution{'' if n == 1 else 's'} imported on "
            f"{'its' if n == 1 else 'their'} own (operation execute_tool), no model call: not counted")
