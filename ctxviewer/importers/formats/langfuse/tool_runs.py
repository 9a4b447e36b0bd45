"""The verdicts a Langfuse trace's tool observations show on the calls its generations proposed.

A tool execution in a Langfuse export is an observation (``fern/apis/server/definition/commons.yml``
``Observation``; corpus ``langfuse/``): ``type`` ``TOOL`` (Microsoft Agent Framework, OpenAI Agents
SDK, Vercel AI SDK), a ``SPAN`` named ``tool.<name>`` (Koog), a span whose original attributes say
``gen_ai.operation.name`` ``execute_tool``, or a ``SPAN`` whose ``output`` is a LangChain
``ToolMessage`` (``{"type": "tool", "tool_call_id", "status"}``: LangGraph). It records:

* the call's id in its original span attributes (``metadata.attributes``: ``gen_ai.tool.call.id``,
  ``tool_call.id``, ``ai.toolCall.id``) or the ToolMessage's ``tool_call_id`` -- or none (the
  OpenAI Agents SDK's OpenInference TOOL span names only ``tool.name``);
* the tool (those attributes' ``gen_ai.tool.name`` / ``tool.name`` / ``ai.toolCall.name``, else the
  observation's name without ``tool.``);
* the outcome: ``level`` ``ERROR`` with its ``statusMessage`` (a ToolMessage's ``status`` ``error``
  with its content), else it ran; ``endTime`` missing after a ``startTime``: it never ended.

:func:`with_observed_verdicts` gives a generation's proposed calls with no recorded verdict the
verdict of their execution by the rules of
:class:`~ctxviewer.importers.common.tool_outcome.ToolRun` (refusal -> blocked, approval -> held,
other error -> none, ran -> permitted): by tool-call id first (the same tool, starting at or after
the generation), else by tool name and order
(:func:`~ctxviewer.importers.common.tool_outcome.with_ordered_run_verdicts`) among the executions
under the generation's parent observation that start at or after it and before that parent's next
generation. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ctxviewer.importers.common.tool_outcome import (
    CALL_ID_KEYS,
    ToolRun,
    error_text,
    with_ordered_run_verdicts,
    with_run_verdicts,
)
from ctxviewer.importers.formats.langfuse.extras import json_value
from ctxviewer.importers.formats.langfuse.runs import time_or_none
from ctxviewer.model.run import TOOL_NAME_KEYS
from ctxviewer.model.trace import ToolCall


def _tool_message(o: Mapping[str, Any]) -> Mapping[str, Any] | None:
    out = json_value(o.get("output"))
    return out if isinstance(out, Mapping) and out.get("type") == "tool" and out.get("tool_call_id") else None


def observation_run(o: Mapping[str, Any], attrs: Mapping[str, Any]) -> ToolRun | None:
    """The execution tool observation ``o`` (``attrs``: its ``metadata.attributes``) records
    (module docstring), or ``None`` when ``o`` is no tool observation. ``start`` is its
    ``startTime`` (``None`` when not recorded or not readable)."""
    name = str(o.get("name") or "")
    message = _tool_message(o) if o.get("type") != "GENERATION" else None
    if not (o.get("type") == "TOOL" or name.startswith("tool.") or attrs.get("gen_ai.operation.name") == "execute_tool"
            or message is not None):
        return None
    call_id = next((attrs[k] for k in CALL_ID_KEYS if attrs.get(k) not in (None, "")), None)
    if call_id is None and message is not None:
        call_id = message["tool_call_id"]
    tool = next((attrs[k] for k in TOOL_NAME_KEYS if isinstance(attrs.get(k), str) and attrs[k]), None)
    tool = tool or (message or {}).get("name") or name.removeprefix("tool.") or None
    status, error = None, None
    if o.get("level") == "ERROR":
        status, error = "error", error_text(o.get("statusMessage") if isinstance(o.get("statusMessage"), str) else None,
                                            attrs)
    elif message is not None and message.get("status") == "error":
        status, error = "error", str(message.get("content") or "") or None
    start, end = time_or_none(o.get("startTime")), time_or_none(o.get("endTime"))
    ended = None if start is None and end is None else end is not None
    return ToolRun(call_id=None if call_id is None else str(call_id), what=f"{o.get('type')} observation {o.get('id')}"
                   + ("" if o.get("type") == "TOOL" or not name else f" ({name})"),
                   status=status, error=error, ended=ended, tool=str(tool) if tool else None, start=start)


def by_start(runs: Sequence[tuple[Mapping[str, Any], ToolRun]]) -> list[tuple[Mapping[str, Any], ToolRun]]:
    """``runs`` in start order, those with no readable start last (what :func:`with_observed_verdicts` takes)."""
    return sorted(runs, key=lambda p: (p[1].start is None, p[1].start or datetime.min.replace(tzinfo=timezone.utc)))


def with_observed_verdicts(calls: tuple[ToolCall, ...], gen: Mapping[str, Any],
                           generations: Sequence[Mapping[str, Any]],
                           runs: Sequence[tuple[Mapping[str, Any], ToolRun]],
                           proposed: Mapping[int, set[str]] | None = None) -> tuple[ToolCall, ...]:
    """``calls`` (generation ``gen``'s proposals) with the verdicts of their executions in ``runs``
    (tool observation, :func:`observation_run`, in start order: :func:`by_start`) where none was
    recorded (module docstring);
    ``generations`` are the trace's model-call generations, for the next one under the same parent;
    ``proposed`` the tool names each of them proposed (by ``id()`` of the observation). A tool an
    earlier generation under the same parent also proposed, with no execution of it between that
    generation and this one (overlapping or parallel calls of one agent), is not matched by order:
    which of the two calls an id-less execution ran is not recorded."""
    if not calls or not runs:
        return calls
    start = time_or_none(gen.get("startTime"))
    by_id: dict[str, list[ToolRun]] = {}
    for _, r in runs:  # in start order (the caller sorts them once per trace)
        if r.call_id is not None:
            by_id.setdefault(r.call_id, []).append(r)
    calls = with_run_verdicts(calls, by_id, start)
    if start is None:
        return calls
    parent = gen.get("parentObservationId")
    later = [t for t in (time_or_none(g.get("startTime")) for g in generations
                         if g is not gen and g.get("parentObservationId") == parent) if t is not None and t > start]
    until = min(later, default=None)

    def inside(r: ToolRun) -> bool:
        return r.start is not None and r.start >= start and (until is None or r.start < until)

    siblings = [r for o, r in runs if o.get("parentObservationId") == parent]
    pending: set[str] = set()  # tools an earlier sibling generation proposed and no execution has run since
    for g in generations:
        at = time_or_none(g.get("startTime"))
        if g is gen or g.get("parentObservationId") != parent or at is None or at >= start:
            continue
        for name in (proposed or {}).get(id(g), ()):
            if not any(r.tool == name and r.start is not None and at <= r.start < start for r in siblings):
                pending.add(name)
    return with_ordered_run_verdicts(calls, (r for r in siblings if inside(r) and r.tool not in pending))
