"""The verdicts an MLflow trace's ``TOOL`` spans show on the calls its model-call spans proposed.

A tool execution is a span whose ``mlflow.spanType`` is ``TOOL`` (``mlflow/entities/span.py``
``SpanType``; LangChain autolog names it after the tool). It records:

* the call's id, when it does: an OTel / OpenInference attribute
  (:data:`~ctxviewer.importers.common.tool_outcome.CALL_ID_KEYS`), the ``ToolMessage``'s
  ``tool_call_id`` in ``mlflow.spanOutputs``, or a ``ToolCall`` (``{name, args, id}``) as
  ``mlflow.spanInputs`` -- LangChain autolog usually records none;
* the tool: the span's name;
* the outcome: ``status`` ``ERROR`` (v2 ``status_code``) with its message, else its ``exception``
  event's ``exception.type: exception.message`` (OTel semconv); else it ran.

The outcome reads by the rules of :class:`~ctxviewer.importers.common.tool_outcome.ToolRun`
(refusal -> blocked, approval -> held, other error -> no verdict, ran -> permitted). A call is
matched by tool-call id first (the same tool, starting at or after the model call), else by tool
name and order among the ``TOOL`` spans that start at or after its model-call span and before the
trace's next one (:func:`~ctxviewer.importers.common.tool_outcome.with_ordered_run_verdicts`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.tool_outcome import (
    CALL_ID_KEYS,
    ToolRun,
    error_text,
    with_trace_run_verdicts,
)
from ctxviewer.importers.common.values import parse_time, span_status
from ctxviewer.importers.formats.mlflow.call import span_id_of
from ctxviewer.model.trace import ToolCall


def when(span: Mapping[str, Any], key: str) -> datetime | None:
    """A span time ``key`` (``start_time`` / ``end_time``: v3 ``*_unix_nano``, v2 ns) as aware UTC;
    ``None`` when absent, zero or unreadable."""
    value = span.get(f"{key}_unix_nano", span.get(key))
    try:
        return parse_time(value) if value not in (None, "", 0, "0") else None
    except ValueError:
        return None


def _call_id(attrs: Mapping[str, Any]) -> str | None:
    found = next((attrs[k] for k in CALL_ID_KEYS if attrs.get(k) not in (None, "")), None)
    out, inp = attrs.get("mlflow.spanOutputs"), attrs.get("mlflow.spanInputs")
    if found is None and isinstance(out, Mapping):
        msg: Mapping[str, Any] = out["kwargs"] if isinstance(out.get("kwargs"), Mapping) else out
        found = msg.get("tool_call_id") if msg.get("type") == "tool" else None
    if found is None and isinstance(inp, Mapping) and inp.get("type") == "tool_call":
        found = inp.get("id")
    return None if found in (None, "") else str(found)


def span_run(span: Mapping[str, Any], attrs: Mapping[str, Any]) -> ToolRun | None:
    """The execution a ``TOOL`` span (attributes ``attrs`` decoded) records (module docstring), or
    ``None`` for another span type. ``what`` is ``"TOOL span <hex id>"``."""
    if str(attrs.get("mlflow.spanType") or "").upper() != "TOOL":
        return None
    status = span.get("status")
    if status is None and span.get("status_code") is not None:  # trace schema v2
        status = {"code": span.get("status_code"), "message": span.get("status_message")}
    state, message = span_status(status)
    events = [e for e in span.get("events") or [] if isinstance(e, Mapping)] if isinstance(span.get("events"), list) else []
    start, end = when(span, "start_time"), when(span, "end_time")
    sid = span_id_of(span)
    return ToolRun(call_id=_call_id(attrs), what=f"TOOL span {sid}" if sid else "TOOL span",
                   status=state, error=error_text(message, attrs, events) if state == "error" else None,
                   ended=None if start is None and end is None else end is not None,
                   tool=pm._str(span.get("name")), start=start)


def with_span_verdicts(calls: tuple[ToolCall, ...], start: datetime | None, runs: Sequence[ToolRun],
                       chat_starts: Sequence[datetime]) -> tuple[ToolCall, ...]:
    """``calls`` (one model-call span's proposals; the span started at ``start``) with the verdicts
    of the trace's ``TOOL`` spans (``runs``, :func:`span_run`) where none was recorded;
    ``chat_starts`` are the starts of the trace's model-call spans, which end the order window."""
    return with_trace_run_verdicts(calls, runs, start, chat_starts)
