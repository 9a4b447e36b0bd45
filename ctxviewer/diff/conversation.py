"""What was dropped between two calls of one thread ("What was dropped between calls").

Most imported traces (OTel GenAI spans, agent-framework logs) record only what was sent, never what
was left out, yet every agent loop compacts or trims its history. A message (history, summary,
memory or user item, or the earlier call's reply) that an earlier call of the same **thread** sent
or received and the next call of that thread no longer sends is **derived** as omitted:

* reason :data:`DROPPED` ("dropped between calls"), or
* reason :data:`SUMMARISED` ("summarised") when the later call carries a summary item the earlier
  one did not have (the summary replaced it).

One conversation -- the same ``session_id`` (OTel ``gen_ai.conversation.id``) or, for OTel spans,
the same OTel trace id (the part of ``trace_id`` before ``:``; :func:`conversation_key`) -- holds
many threads. When a later call continues an earlier one (same agent or span lineage, content on
both, the later input extends the earlier one) is :mod:`ctxviewer.diff.threads`'s; which earlier
call that is, is **consecutive in time**: the latest call of the conversation sent before it that
it continues (:func:`thread_predecessor`; calls of other threads in between, a sub-agent's 31
turns, say, are skipped). Sub-agents, graders and scorers, independent calls under one trace id
and calls with no captured content are other threads and derive nothing.

A derived user item is required in the later call only when it is still that call's user
request: when the later call sends a user request of its own, the dropped one was an earlier
turn there and is derived as a history item (so ``required.trimmed`` never fires for it).

These omissions are derived, not recorded. They apply only to traces whose source format records
no omissions (:attr:`RequestTrace.omissions_recorded <ctxviewer.model.trace.RequestTrace.omissions_recorded>`
is False -- the trace's "omissions recorded" fact); a trace that records its omissions keeps
exactly what it recorded. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from ctxviewer.assess.checks.server_state import is_tool_span
from ctxviewer.diff.identity import MESSAGE_KINDS
from ctxviewer.diff.threads import align, continues, has_content
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, Status

if TYPE_CHECKING:
    from ctxviewer.store import TraceRow, TraceSource
    from ctxviewer.store.sessions import CallOrder

DROPPED = "dropped between calls"
"""Reason of a message missing from the next call with no new summary."""
SUMMARISED = "summarised"
"""Reason of a message missing from the next call that carries a new summary item."""
DERIVED_ATTRIBUTE = "ctxviewer.derived_omissions"
"""Key in ``RequestTrace.attributes`` (of the copy :func:`with_derived_omissions` returns): ids of
the derived omitted items and the previous call they were derived from."""
MAX_LOOKBACK = 64
"""At most this many earlier calls of the conversation are loaded to find a call's thread
predecessor (:func:`thread_predecessor`), nearest first."""


@dataclass(frozen=True)
class DroppedMessage:
    """One message of the previous call missing from this call (derived, not recorded)."""

    item: ContextItem
    """The message as the previous call had it (its id, role, content and tokens there)."""
    previous_trace: str
    """trace_id of the previous call."""
    reason: str
    """:data:`DROPPED` or :data:`SUMMARISED`."""
    summary_id: str | None
    """Id of the new summary item that replaced it (with :data:`SUMMARISED`), else ``None``."""
    from_output: bool
    """True when the message is the previous call's response (its output), not part of its input."""


def conversation_key(trace: RequestTrace) -> str | None:
    """``"session:<id>"`` when the trace has a ``session_id``, else ``"otel:<trace id>"`` for an OTel
    span (``trace_id`` ``"<otel trace id>:<span id>"``), else ``None`` (not part of a conversation)."""
    return _key(trace.session_id, trace.source_format, trace.trace_id)


def _key(session_id: str | None, source_format: str | None, trace_id: str) -> str | None:
    if session_id:
        return "session:" + session_id
    if source_format == "otel" and ":" in trace_id:
        otel_id = trace_id.split(":", 1)[0]
        if otel_id and otel_id != "-":
            return "otel:" + otel_id
    return None


def _order(t: RequestTrace) -> tuple[str, str]:
    return (t.created.isoformat() if t.created else "", t.trace_id)


def order_calls(traces: Iterable[RequestTrace]) -> dict[str, list[RequestTrace]]:
    """Group ``traces`` by :func:`conversation_key` and order each group by send time (then
    trace_id). Traces without a key are left out."""
    groups: dict[str, list[RequestTrace]] = {}
    for t in traces:
        key = conversation_key(t)
        if key is not None:
            groups.setdefault(key, []).append(t)
    return {k: sorted(v, key=_order) for k, v in groups.items()}


def dropped_between_calls(prev: RequestTrace, cur: RequestTrace) -> tuple[DroppedMessage, ...]:
    """Messages of ``prev``'s input plus ``prev``'s reply that ``cur``'s input no longer holds,
    in ``prev``'s order; ``()`` unless ``cur`` continues ``prev``'s thread (:func:`continues`).
    A message sent twice before and once now yields one. Messages whose content was not kept
    cannot be matched and are never reported."""
    al = align(prev, cur)
    if al is None:
        return ()
    summary = al.summaries[0].id if al.summaries else None
    return tuple(
        DroppedMessage(item, prev.trace_id, SUMMARISED if summary else DROPPED, summary, n == al.reply_at)
        for n, item in enumerate(al.earlier) if n not in al.matched
    )


def derived_reason(d: DroppedMessage) -> str:
    """The omission reason shown for a derived item: ``"dropped between calls (derived)"`` or
    ``"summarised into summary-2 (derived)"``."""
    if d.reason == SUMMARISED and d.summary_id:
        return f"{SUMMARISED} into {d.summary_id} (derived)"
    return f"{d.reason} (derived)"


def with_derived_omissions(cur: RequestTrace, dropped: tuple[DroppedMessage, ...]) -> RequestTrace:
    """A copy of ``cur`` with each dropped message inserted as an omitted item (id
    ``"dropped:<previous id>"``, reason from :func:`derived_reason`, ``position=None``), placed
    before the first message of ``cur``; ``attributes[DERIVED_ATTRIBUTE]`` names them and the
    previous call. A dropped user request becomes a history item when ``cur`` sends a user request
    of its own (it is an earlier turn there, not a required input of ``cur``). Returns ``cur``
    itself when ``dropped`` is empty."""
    if not dropped:
        return cur
    own_request = any(i.kind is Kind.USER and i.status is Status.RETAINED for i in cur.items)
    extra = tuple(
        replace(d.item, id=f"dropped:{d.item.id}", status=Status.OMITTED, position=None,
                omission_reason=derived_reason(d),
                kind=Kind.HISTORY if d.item.kind is Kind.USER and own_request else d.item.kind)
        for d in dropped
    )
    items = list(cur.items)
    at = next((n for n, i in enumerate(items) if i.kind in MESSAGE_KINDS), len(items))
    items[at:at] = extra
    attrs = dict(cur.attributes)
    attrs[DERIVED_ATTRIBUTE] = {"previous_trace": dropped[0].previous_trace, "items": [i.id for i in extra]}
    return replace(cur, items=tuple(items), attributes=attrs)


def row_key(row: TraceRow | CallOrder) -> str | None:
    """:func:`conversation_key` of a narrow list row (it holds the fields the key reads)."""
    return _key(row.session_id, row.source_format, row.trace_id)


def earlier_call_ids(store: TraceSource, trace: RequestTrace) -> list[str]:
    """trace_ids of the calls of ``trace``'s conversation (:func:`conversation_key`) sent before
    it, in send order (then trace_id), from the narrow rows only -- never a payload: the
    conversation's ids in send order (:meth:`~ctxviewer.store.TraceSource.session_trace_ids`), or
    for an OTel span the rows in the trace-id range ``"<otel id>:"`` .. ``"<otel id>;"`` (the
    primary key, no scan). ``[]`` when the trace has no conversation or is its first call. Raises
    :class:`ctxviewer.store.StoreError` when the store cannot be read."""
    from ctxviewer.store import TraceQuery
    from ctxviewer.store.filters import quote

    key = conversation_key(trace)
    if key is None:
        return []
    kind, value = key.split(":", 1)
    if kind == "session":
        ids = store.session_trace_ids(value)  # in send order, then trace_id
        if trace.trace_id in ids:
            return ids[: ids.index(trace.trace_id)]
        query = TraceQuery(text=f"conversation == {quote(value)}")
    else:
        query = TraceQuery(text=f"id >= {quote(value + ':')} and id < {quote(value + ';')}")  # ';' follows ':'
    return earlier_among(store.list(query, 0, -1), trace.trace_id, trace.created, key)


def earlier_among(rows: Iterable[TraceRow | CallOrder], trace_id: str, created: datetime | None, key: str) -> list[str]:
    """trace_ids of ``rows`` (narrow list rows or :class:`~ctxviewer.store.sessions.CallOrder`, any
    order) of conversation ``key`` (:func:`conversation_key`) sent before the call ``trace_id`` sent at ``created``, in send order
    (then trace_id): the rule :func:`earlier_call_ids` applies to the rows it reads, for a caller
    that read them itself (the import's refresh reads each conversation once for all its calls:
    :func:`ctxviewer.pipeline.derived_facts.refresh_derived`)."""
    mine = (created.isoformat() if created else "", trace_id)
    earlier = []
    for r in rows:
        order = (r.created.isoformat() if r.created else "", r.trace_id)
        if r.trace_id != trace_id and row_key(r) == key and order < mine:
            earlier.append((order, r.trace_id))
    return [tid for _, tid in sorted(earlier)]


def previous_call(store: TraceSource, trace: RequestTrace) -> RequestTrace | None:
    """The call sent just before ``trace`` in its conversation (:func:`conversation_key`), loaded
    from ``store`` (the last of :func:`earlier_call_ids`; only that one trace is loaded), whatever
    its thread (the window's "compare with the previous call"); ``None`` when the trace has no
    conversation or is its first call. Raises :class:`ctxviewer.store.StoreError` when the store
    cannot be read."""
    for tid in reversed(earlier_call_ids(store, trace)):
        try:
            return store.load(tid)
        except KeyError:
            continue
    return None


def thread_predecessor(store: TraceSource, trace: RequestTrace,
                       load: Callable[[str], RequestTrace] | None = None,
                       earlier: Sequence[str] | None = None) -> RequestTrace | None:
    """The previous call of ``trace``'s thread: the latest call of its conversation sent before
    it that ``trace`` continues (:func:`continues`; rule 4 of the module docstring), loaded from
    ``store`` nearest first, at most :data:`MAX_LOOKBACK` of them. ``None`` when there is none
    (the thread's first call, a sub-agent's first call, a grader, an independent call, a call
    with no content). ``load(trace_id)`` loads an earlier call instead of ``store.load`` (the
    import's refresh passes one that remembers the traces it loaded; it raises ``KeyError`` for
    an id not stored, as ``store.load`` does). Raises :class:`ctxviewer.store.StoreError` when the
    store cannot be read. ``earlier`` is :func:`earlier_call_ids` of ``trace`` when the caller
    has it already (not read again)."""
    if not has_content(trace) or is_tool_span(trace):
        return None
    get = store.load if load is None else load
    for n, tid in enumerate(reversed(earlier_call_ids(store, trace) if earlier is None else earlier)):
        if n >= MAX_LOOKBACK:
            break
        try:
            prev = get(tid)
        except KeyError:
            continue
        if continues(prev, trace):
            return prev
    return None


def derive_for_display(store: TraceSource, trace: RequestTrace,
                       load: Callable[[str], RequestTrace] | None = None,
                       earlier: Sequence[str] | None = None) -> RequestTrace:
    """``trace`` with the messages dropped since the previous call of its thread
    (:func:`thread_predecessor`, ``load`` and ``earlier`` as there) shown as derived omitted items, for surfaces
    (item table, ``show``). Unchanged when the trace's format records omissions (the recorded
    ones apply), when it has no previous call in its thread, or when nothing was dropped."""
    if trace.omissions_recorded:
        return trace
    prev = thread_predecessor(store, trace, load, earlier)
    if prev is None:
        return trace
    return with_derived_omissions(trace, dropped_between_calls(prev, trace))


def derived_note(trace: RequestTrace) -> str | None:
    """The "omissions recorded" fact's second half for a trace shown with derived omissions:
    ``"2 omitted items derived, not recorded: sent in the previous call <id> of this thread and
    missing from this one"``; ``None`` when the trace carries none (see
    :func:`with_derived_omissions`)."""
    info = trace.attributes.get(DERIVED_ATTRIBUTE)
    if not info:
        return None
    n = len(info["items"])
    noun = "item" if n == 1 else "items"
    return (f"{n} omitted {noun} derived, not recorded: sent in the previous call "
            f"{info['previous_trace']} of this thread and missing from this one")
