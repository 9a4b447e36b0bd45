"""The steps of an Inspect AI sample's run, for the run tree (the ``inspect_ai`` importer's
``load_runs``, :mod:`ctxviewer.importers.formats.inspect_ai`): the sample, its spans (``span_begin``
/ ``span_end``; an older log's ``step`` events), its model events and its tool events, as
:class:`~ctxviewer.model.run.RunSpan` (``event/_span.py``, ``_model.py``, ``_tool.py``, ``_step.py``
of UKGovernmentBEIS/inspect_ai). Not a format: it defines no importer. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Callable

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.values import parse_time
from ctxviewer.model.run import RunSpan


def _when(value: Any) -> datetime | None:
    try:
        return parse_time(value)
    except ValueError:
        return None


def error_message(error: Any) -> str | None:
    """A tool event's ``error`` (``ToolCallError`` ``{type, message}``) as the step's status
    message, ``"timeout: Command timed out after 180 seconds."``; ``None`` when there is none."""
    if isinstance(error, Mapping):
        return ": ".join(x for x in (pm._str(error.get("type")), pm._str(error.get("message"))) if x) or None
    return pm._str(error) if error else None


def sample_times(sample: Mapping[str, Any], events: list[Mapping[str, Any]]) -> tuple[datetime | None, datetime | None]:
    """When a sample's run started and ended (aware UTC; ``None`` when nothing records it): the
    sample's ``started_at`` / ``completed_at`` (``EvalSample``; else ``started_at`` + ``total_time``
    seconds), widened to every event's ``timestamp`` and ``completed`` -- a step is never shorter
    than the steps under it (a model event that ends 30 s after the last event starts)."""
    start, end = _when(sample.get("started_at")), _when(sample.get("completed_at"))
    total = sample.get("total_time")
    if end is None and start is not None and isinstance(total, (int, float)) and not isinstance(total, bool):
        end = start + timedelta(seconds=float(total))
    begun = [t for t in (_when(e.get("timestamp")) for e in events) if t is not None]
    done = begun + [t for t in (_when(e.get("completed")) for e in events) if t is not None]
    if begun:
        start = min([start, *begun]) if start is not None else min(begun)
    if done:
        end = max([end, *done]) if end is not None else max(done)
    return start, end


def sample_error(error: Any) -> str | None:
    """A sample's ``error`` (``EvalError {message, traceback, traceback_ansi}``) as its step's status
    message: the ``message`` (the traceback stays in the step's ``inspect.error`` attribute); ``None``
    when there is none."""
    if isinstance(error, Mapping):
        return pm._str(error.get("message"))
    return pm._str(error) if error else None


def run_spans_of(sample: Mapping[str, Any], base: str, task: Any,
                 resolve: Callable[[Any, Mapping[str, str]], Any]) -> list[RunSpan]:
    """The steps of one sample's run: the sample (root, ``sample``; its times :func:`sample_times`,
    its error's message :func:`sample_error`), each ``span_begin`` /
    ``span_end`` pair (kind = the span's ``type``: ``init``, ``solver``, ``tool``, ``scorer``...;
    an older log's ``step`` begin / end events likewise, nested as they open and close), each
    ``model`` event (kind ``llm``, start ``timestamp``, end ``completed``, its trace
    ``"{base}/{n}"`` as :func:`calls_of` names it) and each ``tool`` event (kind ``tool``: merged
    into the ``tool`` span Inspect opened for it under the same parent, else a step of its own,
    with its arguments, result and error). ``base`` is the run id (``"{eval id}/{sample id}/{epoch}"``),
    ``task`` the eval's task name, ``resolve`` the importer's ``attachment://`` resolver."""
    events = [e for e in sample.get("events") or [] if isinstance(e, Mapping)]
    att = sample.get("attachments") or {}
    start, end = sample_times(sample, events)
    root = "sample"
    spans: dict[str, dict[str, Any]] = {root: {
        "kind": "sample", "name": f"sample {sample.get('id')} epoch {sample.get('epoch', 1)}", "parent": None,
        "start": start, "end": end, "status": "error" if sample.get("error") else None, "trace": None,
        "message": sample_error(sample.get("error")),
        "attributes": {k: v for k, v in (("inspect.sample_id", sample.get("id")), ("inspect.epoch", sample.get("epoch")),
                                         ("inspect.task", task), ("inspect.error", sample.get("error")))
                       if v is not None}}}
    stack: list[str] = []  # open ``step`` events (older logs)
    tools = [e for e in events if e.get("event") == "tool"]
    claimed: set[int] = set()
    n_model = 0
    for i, e in enumerate(events):
        kind = e.get("event")
        parent = str(e["span_id"]) if e.get("span_id") is not None and str(e["span_id"]) in spans else (
            stack[-1] if stack else root)
        if kind == "span_begin" and e.get("id") is not None:
            sid = str(e["id"])
            attrs: dict[str, Any] = {}
            if e.get("type") == "tool":
                for j, t in enumerate(tools):
                    if j not in claimed and t.get("function") == e.get("name") and t.get("span_id") == e.get("parent_id"):
                        claimed.add(j)
                        attrs = {k: resolve(v, att) for k, v in t.items() if k not in ("event", "span_id", "timestamp")}
                        break
            spans[sid] = {"kind": str(e.get("type") or "span"), "name": pm._str(e.get("name")),
                          "parent": str(e["parent_id"]) if e.get("parent_id") is not None else root,
                          "start": _when(e.get("timestamp")), "end": None, "trace": None, "attributes": attrs,
                          "status": "error" if attrs.get("error") else None, "message": error_message(attrs.get("error"))}
        elif kind == "span_end" and str(e.get("id")) in spans:
            spans[str(e["id"])]["end"] = _when(e.get("timestamp"))
        elif kind == "step" and e.get("action") == "begin":
            sid = f"step-{i}"
            spans[sid] = {"kind": str(e.get("type") or "step"), "name": pm._str(e.get("name")), "parent": parent,
                          "start": _when(e.get("timestamp")), "end": None, "trace": None, "attributes": {},
                          "status": None}
            stack.append(sid)
        elif kind == "step" and e.get("action") == "end" and stack:
            spans[stack.pop()]["end"] = _when(e.get("timestamp"))
        elif kind == "model":
            out = e.get("output") if isinstance(e.get("output"), Mapping) else {}
            spans[f"model-{n_model}"] = {
                "kind": "llm", "name": pm._str(e.get("model")), "parent": parent, "start": _when(e.get("timestamp")),
                "end": _when(e.get("completed")), "trace": f"{base}/{n_model}",
                "status": "error" if e.get("error") else ("ok" if out else None),
                "attributes": {k: e[k] for k in ("working_time", "error", "cache") if e.get(k) is not None}}
            n_model += 1
    for j, t in enumerate(tools):
        if j in claimed:
            continue
        parent = str(t["span_id"]) if t.get("span_id") is not None and str(t["span_id"]) in spans else root
        spans[f"tool-{t.get('id') or j}"] = {
            "kind": "tool", "name": pm._str(t.get("function")), "parent": parent, "start": _when(t.get("timestamp")),
            "end": _when(t.get("completed")), "trace": None, "status": "error" if t.get("error") else None,
            "message": error_message(t.get("error")),
            "attributes": {k: resolve(v, att) for k, v in t.items() if k not in ("event", "span_id", "timestamp")}}
    return [RunSpan(base, sid, v["parent"], v["kind"], v["name"], v["start"], v["end"], v["status"], v.get("message"), v["trace"],
                    v["attributes"]) for sid, v in spans.items()]
