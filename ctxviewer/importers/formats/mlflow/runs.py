"""MLflow spans as steps of a run (the run tree): every span of a trace -- agent, chain, tool,
retriever, parser, the model calls -- under its parent span, with its times, status, events and
decoded attributes (``mlflow/entities/span.py``: ``parent_span_id`` in schema v3, ``parent_id`` in
v2; ``mlflow.spanType``, ``mlflow/entities/span.py`` ``SpanType``). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ctxviewer.importers.common.values import normalise_id, parse_time, span_status
from ctxviewer.importers.formats.mlflow.call import span_id_of
from ctxviewer.model.run import RunSpan

_CALL_ATTRIBUTES = frozenset({"mlflow.spanInputs", "mlflow.spanOutputs", "mlflow.chat.messages", "mlflow.chat.tools"})
"""A model call's request, answer and tools: they live in its trace and are left off its step."""


def _when(span: Mapping[str, Any], key: str) -> datetime | None:
    value = span.get(f"{key}_unix_nano", span.get(key))  # v3 *_unix_nano, v2 start_time / end_time (ns)
    try:
        return parse_time(value) if value not in (None, "", 0, "0") else None
    except ValueError:
        return None


def parent_of(span: Mapping[str, Any]) -> str | None:
    """The parent span's id as hex (``parent_span_id``, v2 ``parent_id``; ``""`` / absent: a root)."""
    raw = span.get("parent_span_id", span.get("parent_id"))
    return normalise_id(raw, 8) if raw else None


def run_span(span: Mapping[str, Any], attrs: Mapping[str, Any], run_id: str, index: int,
             trace_id: str | None) -> RunSpan:
    """Span ``span`` (its attributes ``attrs`` already decoded) as a step of MLflow trace ``run_id``:
    kind = ``mlflow.spanType`` lower-cased (``agent``, ``chat_model``, ``llm``, ``tool``,
    ``retriever``, ``chain``...; ``span`` when not recorded), parent :func:`parent_of`, status
    ``ok`` / ``error`` / ``unset`` from ``status`` (v2 ``status_code``), ``trace_id`` the trace of a model
    call; every other attribute and the span's ``events`` in the attributes (a model call's request
    and answer live in its trace). A span without an id is ``span-{index}``."""
    status = span.get("status")
    if status is None and span.get("status_code") is not None:
        status = {"code": span.get("status_code"), "message": span.get("status_message")}
    state, message = span_status(status)
    kept = {k: v for k, v in attrs.items() if trace_id is None or k not in _CALL_ATTRIBUTES}
    kept.pop("mlflow.traceRequestId", None)  # the run's own id
    if isinstance(span.get("events"), list) and span["events"]:
        kept["mlflow.span.events"] = span["events"]
    kind = str(attrs.get("mlflow.spanType") or "span").lower()
    name = span.get("name")
    return RunSpan(run_id, span_id_of(span) or f"span-{index}", parent_of(span), kind,
                   None if name is None else str(name), _when(span, "start_time"), _when(span, "end_time"),
                   state, message or None, trace_id, kept)
