"""What a recorded tool execution says of the proposed call it ran: the verdict the run shows.

Most runs record no verdict on a proposed tool call (:attr:`ToolCall.verdict
<ctxviewer.model.trace.ToolCall.verdict>` ``None``: Table 3.1 row 5's "no verdict recorded"),
but many record its execution: an OTel ``execute_tool`` span (GenAI semconv) carrying the call's
``gen_ai.tool.call.id``. That span is evidence of what the application did with the call
(chapter 3.5, Figure 3.3: the action check stands between the proposal and the tool):

* it ended in an error whose exception type is a refusal (``PermissionError``,
  ``AuthorizationError``, ``ToolNotAllowedError``...: :data:`REFUSAL_TYPES`) or whose message says
  a check stopped it (``blocked by policy``, ``not on the tool allowlist``, ``the user declined``,
  ``was not executed``: :data:`REFUSAL`) -- the call was **blocked**; one asking for approval
  (``requires approval``, ``awaiting confirmation``: :data:`APPROVAL`) was **held for approval**;
* it ended in any other error (a timeout, a remote server's ``403 Forbidden``, a missing file) --
  **no verdict** is read: the call may have run part-way or not at all, and a remote refusal does
  not mean the data stayed home;
* it ran otherwise (ended ok, with no status, or never ended) -- the call was **permitted**: the
  application let it reach the tool.

``decided_by`` then names the span and what it recorded (``"its execute_tool span 5f2c (ran:
ended in error: TimeoutError: ...)"``), so a reader sees that the verdict was read from the run,
not recorded as one. A verdict the application recorded is never replaced, and a call is matched
to an execution by its tool-call id (the name alone may be proposed twice). Where the execution
records no id (a Langfuse TOOL observation of the OpenAI Agents SDK), :func:`with_ordered_run_verdicts`
matches by tool name and order only when one call and one execution of that tool are the only
candidates, and ``decided_by`` says so. No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from ctxviewer.importers.common.spans.span import Span
from ctxviewer.model.run import TOOL_NAME_KEYS
from ctxviewer.model.trace import ToolCall, ToolVerdict

CALL_ID_KEYS = ("gen_ai.tool.call.id", "tool_call.id", "tool.id", "ai.toolCall.id")
"""Where an execution span names the call it ran: OTel GenAI ``gen_ai.tool.call.id``, then
OpenInference's ``tool_call.id`` and ``tool.id`` (a TOOL span), then the Vercel AI SDK's
``ai.toolCall.id`` (an ``ai.toolCall`` span)."""

EXCEPTION_EVENTS = ("exception", "gen_ai.execute_tool.exception")
"""Span events that record an execution's exception (OTel semconv: ``exception.type``,
``exception.message``)."""

REFUSAL_TYPES = re.compile(
    r"^(?:\w+\.)*(?:PermissionError|PermissionDenied\w*|AccessDenied\w*|Authori[sz]ationError|NotAuthori[sz]ed\w*|"
    r"NotAllowed\w*|ToolNotAllowed\w*|PolicyViolation\w*|ActionBlocked\w*|ToolCallRejected\w*)\b")
"""An execution error whose exception type (the message's leading ``Type:``, ``exception.type``,
``error.type``) is the refusal of an authorization or policy check."""

REFUSAL = re.compile(
    r"\b(?:denied|blocked|refused|rejected|declined|vetoed|stopped) by (?:the )?"
    r"(?:policy|guardrails?|guard|allowlist|application|user|human|operator|administrator|admin|reviewer)\b"
    r"|\bnot (?:allowed|permitted) by (?:the )?(?:policy|allowlist|guardrails?|application|administrator|admin)\b"
    r"|\bnot on the (?:tool )?allowlist\b|\buser (?:declined|rejected|denied|refused)\b"
    r"|\b(?:was|were|has been|is) not (?:executed|run)\b|\bwithout running it\b",
    re.IGNORECASE,
)
"""An execution error that says in words that a check stopped the call before it ran (module docstring)."""

APPROVAL = re.compile(
    r"\b(?:requires?|needs?|awaiting|pending|waiting for) (?:(?:human|user|manual|operator) )?"
    r"(?:approval|confirmation|sign-off)\b",
    re.IGNORECASE,
)
"""An execution error that holds the call for approval (module docstring)."""


@dataclass(frozen=True)
class ToolRun:
    """One recorded execution of a proposed tool call, as a span records it.

    ``call_id`` is ``gen_ai.tool.call.id`` (``None``: not recorded); ``what`` names the record (``"execute_tool span
    5f2c"``); ``status`` is ``"ok"``, ``"error"``, ``"unset"`` or ``None``; ``error`` the error's
    text (status message, ``error.type``, an ``exception`` event's type and message) or ``None``;
    ``ended`` False for a span that started and never ended, ``None`` when its times are not
    recorded (an attribute map)."""

    call_id: str | None
    what: str
    status: str | None
    error: str | None
    ended: bool | None = True
    tool: str | None = None
    """The tool the span ran (``gen_ai.tool.name``...), ``None`` when it names none."""
    start: datetime | None = None
    """When the execution started (aware UTC), ``None`` when not recorded."""

    def verdict(self) -> tuple[ToolVerdict, str] | None:
        """``(verdict, decided_by)`` this execution shows (module docstring), or ``None`` for an
        error that names no refusal: the call may or may not have run (a timeout, a remote 403, a
        missing file), so no verdict is read from it."""
        error = " ".join(self.error.split()) if self.error else None
        if self.status == "error":
            if not error:
                return None
            if APPROVAL.search(error):
                return ToolVerdict.NEEDS_APPROVAL, f"its {self.what} (not run: {error})"
            if REFUSAL_TYPES.search(error) or REFUSAL.search(error):
                return ToolVerdict.BLOCKED, f"its {self.what} (refused: {error})"
            return None
        if self.ended is False:
            how = "started and never ended"
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


def with_run_verdicts(calls: tuple[ToolCall, ...], runs: Mapping[str, list[ToolRun]],
                      after: datetime | None = None) -> tuple[ToolCall, ...]:
    """``calls`` with the verdict of their execution in ``runs`` (tool-call id -> executions in
    start order) where the application recorded none: the first execution of that id that ran the
    same tool (when both name one) and started at or after ``after`` (the proposing call's start;
    ids such as ``call_0`` repeat across the calls of one run). The same tuple when nothing matched."""
    out = []
    for c in calls:
        run = None
        if c.id and c.verdict is None:
            run = next((r for r in runs.get(c.id, ()) if (r.tool is None or not c.name or r.tool == c.name)
                        and (after is None or r.start is None or r.start >= after)), None)
        shown = run.verdict() if run is not None else None
        out.append(c if shown is None else replace(c, verdict=shown[0], decided_by=shown[1]))
    return calls if all(a is b for a, b in zip(out, calls)) else tuple(out)


def with_ordered_run_verdicts(calls: tuple[ToolCall, ...], runs: Iterable[ToolRun]) -> tuple[ToolCall, ...]:
    """``calls`` (one model call's proposals) with the verdict of an execution in ``runs`` matched by
    tool name and order, not id, where the application recorded none: ``runs`` are the executions
    that started after the proposing call and before the next one (the caller's window); a call
    takes one only when it is the one call of its tool and the run the one execution of that tool
    in the window that names no other call's id. Two calls or two executions of the tool:
    ambiguous, no verdict. ``decided_by`` says the match was by tool name and order."""
    runs = list(runs)
    out = []
    for c in calls:
        shown = None
        if c.verdict is None and c.name and sum(1 for d in calls if d.name == c.name) == 1:
            same = [r for r in runs if r.tool == c.name and (r.call_id is None or c.id is None or r.call_id == c.id)]
            if len(same) == 1:
                shown = replace(same[0], what=f"{same[0].what}, matched by tool name and order, not by id").verdict()
        out.append(c if shown is None else replace(c, verdict=shown[0], decided_by=shown[1]))
    return calls if all(a is b for a, b in zip(out, calls)) else tuple(out)


def with_trace_run_verdicts(calls: tuple[ToolCall, ...], runs: Iterable[ToolRun], start: datetime | None,
                            call_starts: Iterable[datetime]) -> tuple[ToolCall, ...]:
    """``calls`` (one model call's proposals; the call started at ``start``) with the verdicts of
    its trace's executions ``runs`` where none was recorded: by tool-call id first
    (:func:`with_run_verdicts`), then by tool name and order (:func:`with_ordered_run_verdicts`)
    among the executions that started at or after ``start`` and before the next model call of
    ``call_starts`` (the trace's model-call starts). The same tuple when nothing matched."""
    if not calls:
        return calls
    ordered = sorted(runs, key=lambda r: (r.start is None, r.start or datetime.min.replace(tzinfo=timezone.utc)))
    if not ordered:
        return calls
    by_id: dict[str, list[ToolRun]] = {}
    for r in ordered:
        if r.call_id is not None:
            by_id.setdefault(r.call_id, []).append(r)
    calls = with_run_verdicts(calls, by_id, start)
    if start is None:
        return calls
    until = min((s for s in call_starts if s > start), default=None)
    return with_ordered_run_verdicts(calls, (r for r in ordered if r.start is not None and r.start >= start
                                             and (until is None or r.start < until)))


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
    tool = next((span.attributes[k] for k in TOOL_NAME_KEYS if isinstance(span.attributes.get(k), str)), None)
    return ToolRun(call_id=str(call_id), what=f"{kind} span {named}" if named else f"{kind} span",
                   status=status, error=error_text(span.status_message, span.attributes, span.events), ended=ended,
                   tool=tool or None, start=span.start)


def tool_runs(tools: Iterable[Span], kind: str = "execute_tool") -> dict[str | None, dict[str, list[ToolRun]]]:
    """Each OTel trace's tool executions (keyed by trace id) by tool-call id (:func:`tool_run`),
    each id's executions in start order (a start not recorded last)."""
    out: dict[str | None, dict[str, list[ToolRun]]] = {}
    for t in tools:
        run = tool_run(t, kind)
        if run is not None and run.call_id is not None:
            out.setdefault(t.trace_id, {}).setdefault(run.call_id, []).append(run)
    for by_id in out.values():
        for runs in by_id.values():
            runs.sort(key=lambda r: (r.start is None, r.start or datetime.min.replace(tzinfo=timezone.utc)))
    return out
