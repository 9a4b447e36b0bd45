"""What a recorded tool execution says of the proposed call it ran: the verdict the run shows.

Most runs record no verdict on a proposed tool call (:attr:`ToolCall.verdict
<ctxviewer.model.trace.ToolCall.verdict>` ``None``: Table 3.1 row 5's "no verdict recorded"),
but many record its execution: an OTel ``execute_tool`` span (GenAI semconv) carrying the call's
``gen_ai.tool.call.id``. That span is evidence of what the application did with the call
(chapter 3.5, Figure 3.3: the action check stands between the proposal and the tool):

* it ended in an error whose type or message is a refusal (``PermissionError``, ``permission
  denied``, ``not allowed``, ``forbidden``, ``unauthorized``, ``access denied``, ``blocked by
  policy``: :data:`REFUSAL`) -- the call was **blocked**; one asking for approval
  (``requires approval``, ``awaiting confirmation``: :data:`APPROVAL`) was **held for approval**;
* it ran otherwise (ended ok, with no status, in another error such as a timeout, or never
  ended) -- the call was **permitted**: the application let it reach the tool.

``decided_by`` then names the span and what it recorded (``"its execute_tool span 5f2c (ran:
ended in error: TimeoutError: ...)"``), so a reader sees that the verdict was read from the run,
not recorded as one. A verdict the application recorded is never replaced, and a call is matched
to an execution only by its tool-call id (the name alone may be proposed twice). No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from ctxviewer.importers.common.spans.span import Span
from ctxviewer.model.trace import ToolCall, ToolVerdict

CALL_ID_KEYS = ("gen_ai.tool.call.id", "tool_call.id", "tool.id", "ai.toolCall.id")
"""Where an execution span names the call it ran: OTel GenAI ``gen_ai.tool.call.id``, then
OpenInference's ``tool_call.id`` and ``tool.id`` (a TOOL span), then the Vercel AI SDK's
``ai.toolCall.id`` (an ``ai.toolCall`` span)."""

EXCEPTION_EVENTS = ("exception", "gen_ai.execute_tool.exception")
"""Span events that record an execution's exception (OTel semconv: ``exception.type``,
``exception.message``)."""

REFUSAL = re.compile(
    r"\b(?:PermissionError|PermissionDenied\w*|AccessDenied\w*|Forbidden\w*|Unauthori[sz]ed\w*|"
    r"NotAuthori[sz]ed\w*|Authori[sz]ationError|NotAllowed\w*|PolicyViolation\w*)\b"
    r"|\bpermission denied\b|\bnot (?:allowed|permitted|authori[sz]ed)\b|\baccess (?:is )?denied\b"
    r"|\bforbidden\b|\bunauthori[sz]ed\b|\b(?:denied|blocked|refused|rejected) by (?:the )?"
    r"(?:policy|guardrail|guard|allowlist|application|user|administrator|admin)\b",
    re.IGNORECASE,
)
"""An execution error that is a refusal of the call (module docstring)."""

APPROVAL = re.compile(
    r"\b(?:requires?|needs?|awaiting|pending|waiting for) (?:(?:human|user|manual|operator) )?"
    r"(?:approval|confirmation|sign-off)\b",
    re.IGNORECASE,
)
"""An execution error that holds the call for approval (module docstring)."""


@dataclass(frozen=True)
class ToolRun:
    """One recorded execution of a proposed tool call, as a span records it.

    ``call_id`` is ``gen_ai.tool.call.id``; ``what`` names the record (``"execute_tool span
    5f2c"``); ``status`` is ``"ok"``, ``"error"``, ``"unset"`` or ``None``; ``error`` the error's
    text (status message, ``error.type``, an ``exception`` event's type and message) or ``None``;
    ``ended`` False for a span that started and never ended, ``None`` when its times are not
    recorded (an attribute map)."""

    call_id: str
    what: str
    status: str | None
    error: str | None
    ended: bool | None = True

    def verdict(self) -> tuple[ToolVerdict, str]:
        """``(verdict, decided_by)`` this execution shows (module docstring)."""
        error = " ".join(self.error.split()) if self.error else None
        if self.status == "error" and error and APPROVAL.search(error):
            return ToolVerdict.NEEDS_APPROVAL, f"its {self.what} (not run: {error})"
        if self.status == "error" and error and REFUSAL.search(error):
            return ToolVerdict.BLOCKED, f"its {self.what} (refused: {error})"
        if self.ended is False:
            how = "started and never ended"
        elif self.status == "error":
            how = f"ended in error: {error}" if error else "ended in error"
        elif self.status == "ok":
            how = "ended ok"
        elif self.ended is None:
            how = "its status and end not recorded"
        else:
            how = "ended, no status recorded"
        return ToolVerdict.PERMITTED, f"its {self.what} (ran: {how})"


def error_text(status_message: str | None, attributes: Mapping[str, Any],
               events: Iterable[Mapping[str, Any]] = ()) -> str | None:
    """The error an execution recorded, as one line: the status message, else the first
    exception event's (:data:`EXCEPTION_EVENTS`) ``exception.type: exception.message`` (OTel semconv), else
    ``error.type``; ``None`` when none is recorded."""
    if status_message and status_message.strip():
        return status_message.strip()
    for ev in events:
        attrs = ev.get("attributes") if isinstance(ev, Mapping) else None
        if ev.get("name") in EXCEPTION_EVENTS and isinstance(attrs, Mapping):
            parts = [str(attrs[k]) for k in ("exception.type", "exception.message") if attrs.get(k)]
            if parts:
                return ": ".join(parts)
    kind = attributes.get("error.type")
    return str(kind) if kind else None


def with_run_verdicts(calls: tuple[ToolCall, ...], runs: Mapping[str, ToolRun]) -> tuple[ToolCall, ...]:
    """``calls`` with the verdict of their execution in ``runs`` (keyed by tool-call id) where
    the application recorded none; the same tuple when nothing matched."""
    out = []
    for c in calls:
        run = runs.get(c.id) if c.id and c.verdict is None else None
        if run is None:
            out.append(c)
            continue
        verdict, by = run.verdict()
        out.append(replace(c, verdict=verdict, decided_by=by))
    return calls if all(a is b for a, b in zip(out, calls)) else tuple(out)


def tool_run(span: Span, kind: str = "execute_tool") -> ToolRun | None:
    """The execution ``span`` (an OTel ``execute_tool`` or OpenInference TOOL span; ``kind`` names
    it) records of the call it names (:data:`CALL_ID_KEYS`), or ``None`` when it names none. An
    ``unset`` status with ``error.type`` set is an error (semconv: ``error.type`` is set when the
    operation ended in an error)."""
    call_id = next((span.attributes[k] for k in CALL_ID_KEYS if span.attributes.get(k) not in (None, "")), None)
    if call_id is None:
        return None
    status = span.status.lower() if isinstance(span.status, str) else None
    if status in (None, "unset") and span.attributes.get("error.type"):
        status = "error"
    named = span.span_id or span.name
    if span.start is None and span.end is None and not span.end_unreadable:
        ended: bool | None = None
    else:
        ended = not (span.start is not None and span.end is None and not span.end_unreadable)
    return ToolRun(call_id=str(call_id), what=f"{kind} span {named}" if named else f"{kind} span",
                   status=status, error=error_text(span.status_message, span.attributes, span.events), ended=ended)


def tool_runs(tools: Iterable[Span], kind: str = "execute_tool") -> dict[str | None, dict[str, ToolRun]]:
    """Each OTel trace's tool executions (keyed by trace id) by tool-call id (:func:`tool_run`);
    the first span of an id wins."""
    out: dict[str | None, dict[str, ToolRun]] = {}
    for t in tools:
        run = tool_run(t, kind)
        if run is not None:
            out.setdefault(t.trace_id, {}).setdefault(run.call_id, run)
    return out
