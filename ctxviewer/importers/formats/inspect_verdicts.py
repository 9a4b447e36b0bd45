"""The verdicts an Inspect AI sample's ``tool`` events show on the calls its model events proposed
(the ``inspect_ai`` importer, :mod:`ctxviewer.importers.formats.inspect_ai`).

A ``ToolEvent`` (inspect_ai ``event/_tool.py``) records the execution of one proposed call: ``id``
(the tool call's id), ``function`` (the tool), ``timestamp`` / ``completed``, ``pending`` (still
running) and ``error`` (``ToolCallError {type, message}``, ``tool/_tool_call.py``). Its outcome
reads by the rules of :class:`~ctxviewer.importers.common.tool_outcome.ToolRun`:

* ``error.type`` ``approval``: the approval policy's approver rejected the call, so it never ran
  (inspect_ai ``model/_call_tools.py``: a rejected call returns ``ToolCallError("approval", ...)``)
  -- **blocked**, decided by the approver, named when the sample's ``approval`` event of the call
  (``event/_approval.py`` ``ApprovalEvent``: ``approver``, ``decision`` ``reject`` / ``terminate``)
  records it; such an event with no tool event of the call blocks it too;
* any other error (``timeout``, ``permission`` -- a file the sandbox could not read --,
  ``parsing``...) is read as the error text ``"type: message"``: a refusal by its words or exception
  type (:data:`~ctxviewer.importers.common.tool_outcome.REFUSAL`) is blocked, any other gives **no
  verdict**;
* no error: it ran -- **permitted** (``"ended ok"`` when ``completed`` is recorded, ``"started and
  never ended"`` when ``pending``).

Calls are matched to events by tool-call id, the same tool, starting at or after the proposing
model event (:func:`~ctxviewer.importers.common.tool_outcome.with_run_verdicts`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ctxviewer.importers.common.tool_outcome import ToolRun
from ctxviewer.importers.common.values import parse_time
from ctxviewer.model.trace import ToolVerdict


@dataclass(frozen=True)
class ApproverRun(ToolRun):
    """A tool event whose call the approver rejected (``error.type`` ``approval``), or an ``approval``
    event that rejected it with no tool event after it: ``error`` is the approver's message
    (``"Tool call rejected by approver: not allowed"``), ``approver`` its name when an ``approval``
    event records it (``ApprovalEvent.approver``: ``human``, ``auto``...)."""

    approver: str | None = None

    def verdict(self) -> tuple[ToolVerdict, str] | None:
        """``(BLOCKED, "its tool event toolu_03 (rejected by the approver human: <message>)")``."""
        said = " ".join(self.error.split()) if self.error else "no message recorded"
        who = f"the approver {self.approver}" if self.approver else "the approver"
        return ToolVerdict.BLOCKED, f"its {self.what} (rejected by {who}: {said})"


def _when(value: Any) -> datetime | None:
    try:
        return parse_time(value)
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def rejections(events: Any) -> dict[str, Mapping[str, Any]]:
    """A sample's ``approval`` events (``ApprovalEvent``: ``call`` the ToolCall, ``approver``,
    ``decision``, ``explanation``, ``stage``) that rejected a call before it ran (decision
    ``reject`` or ``terminate``, stage ``call``), by the call's id; the last one of an id wins."""
    out: dict[str, Mapping[str, Any]] = {}
    for e in events if isinstance(events, list) else []:
        call = e.get("call") if isinstance(e, Mapping) and e.get("event") == "approval" else None
        if isinstance(call, Mapping) and call.get("id") not in (None, "") and e.get("decision") in ("reject", "terminate") \
                and e.get("stage", "call") == "call":
            out[str(call["id"])] = e
    return out


def event_run(event: Mapping[str, Any], rejected: Mapping[str, Mapping[str, Any]] | None = None) -> ToolRun | None:
    """The execution tool event ``event`` records (module docstring), or ``None`` when it is no
    ``tool`` event or names no call id; ``rejected`` (:func:`rejections`) names the approver."""
    if event.get("event") != "tool" or event.get("id") in (None, ""):
        return None
    call_id, error = str(event["id"]), event.get("error")
    what = f"tool event {call_id}"
    tool = _text(event.get("function"))
    start = _when(event.get("timestamp"))
    if isinstance(error, Mapping) and error.get("type") == "approval":
        return ApproverRun(call_id=call_id, what=what, status="error", error=_text(error.get("message")),
                           tool=tool, start=start, approver=_text((rejected or {}).get(call_id, {}).get("approver")))
    if error:
        parts = [_text(error.get(k)) for k in ("type", "message")] if isinstance(error, Mapping) else [_text(str(error))]
        return ToolRun(call_id=call_id, what=what, status="error", error=": ".join(p for p in parts if p) or None,
                       tool=tool, start=start)
    pending = event.get("pending") is True and event.get("completed") is None
    return ToolRun(call_id=call_id, what=what, status=None if pending else "ok", error=None,
                   ended=not pending, tool=tool, start=start)


def sample_runs(events: Any) -> dict[str, list[ToolRun]]:
    """A sample's tool executions (its ``events``) by tool-call id, each id's in start order (a
    start not recorded last)."""
    out: dict[str, list[ToolRun]] = {}
    rejected = rejections(events)
    for e in events if isinstance(events, list) else []:
        run = event_run(e, rejected) if isinstance(e, Mapping) else None
        if run is not None and run.call_id is not None:
            out.setdefault(run.call_id, []).append(run)
    for call_id, e in rejected.items():  # rejected, and no tool event recorded for it (a terminated sample)
        if call_id not in out:
            call = e["call"]
            out[call_id] = [ApproverRun(call_id=call_id, what="approval event", status="error",
                                        error=_text(e.get("explanation")), tool=_text(call.get("function")),
                                        start=_when(e.get("timestamp")), approver=_text(e.get("approver")))]
    for runs in out.values():
        runs.sort(key=lambda r: (r.start is None, r.start or datetime.min.replace(tzinfo=timezone.utc)))
    return out
