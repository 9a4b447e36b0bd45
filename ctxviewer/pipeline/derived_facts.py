"""The facts of imported calls whose earlier turns were dropped between calls, stored as every
surface reads them.

Formats that record only what was sent (OpenTelemetry GenAI spans and the other observability
exports) cannot say what a call left out; ctxviewer derives it from the call before it in the same
thread (:func:`ctxviewer.diff.conversation.derive_for_display`). ``show``, ``check`` and the window
assess the trace with those derived omissions, so the facts stored on its row -- what ``list`` and
``list --filter 'finding == R'`` read -- must be computed the same way: after an import has added
its traces (the earlier calls of a conversation may come later in a file, or from an earlier
import), :func:`refresh_derived` re-assesses the calls of this run that have a thread predecessor
and rewrites their facts. Only conversations with a key (a session id, an OTel trace id) are
looked at. Each trace is loaded from the store once while it is among the last
:data:`REMEMBERED` loaded (a call is loaded as itself and again as its successors' predecessor:
:class:`RecentLoads`). No Qt here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from ctxviewer.assess.context import AssessContext
from ctxviewer.diff.conversation import DERIVED_ATTRIBUTE, derive_for_display, earlier_among, row_key
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.stored_facts import stored_facts
from ctxviewer.store import StoreError, TraceStore
from ctxviewer.store.facts import StoredFacts

REMEMBERED = 256
"""Traces :class:`RecentLoads` keeps (the calls of a conversation sit near each other in an import;
a few MB of traces)."""


class RecentLoads:
    """``store.load`` remembering the last ``keep`` traces it returned (least recently used
    forgotten first). Traces are immutable, so a remembered one is the one the store would return
    while the caller does not write in between. Raises what ``store.load`` raises (``KeyError``
    for an id not stored, :class:`~ctxviewer.store.StoreError`)."""

    def __init__(self, store: TraceStore, keep: int = REMEMBERED) -> None:
        self._store = store
        self._keep = keep
        self._recent: OrderedDict[str, RequestTrace] = OrderedDict()

    def __call__(self, trace_id: str) -> RequestTrace:
        trace = self._recent.get(trace_id)
        if trace is not None:
            self._recent.move_to_end(trace_id)
            return trace
        trace = self._store.load(trace_id)
        self._recent[trace_id] = trace
        if len(self._recent) > self._keep:
            self._recent.popitem(last=False)
        return trace


def refresh_derived(store: TraceStore, trace_ids: Iterable[str], context: AssessContext) -> int:
    """Re-assess each of ``trace_ids`` (calls of one import whose format records no omissions and
    that belong to a conversation) with its derived omissions, in ``context``, and rewrite the
    facts of those that have any, in one transaction. Returns the rows rewritten. Raises
    :class:`~ctxviewer.store.StoreError` when the store cannot be read or written.

    The earlier calls of every call are found first from the narrow rows, each conversation read
    once for all its calls (:func:`earlier_calls`); a call with none (the first of its
    conversation, or one not stored) derives nothing and is not loaded."""
    fresh: list[StoredFacts] = []
    load = RecentLoads(store)
    ids = list(dict.fromkeys(trace_ids))
    earlier = earlier_calls(store, ids)
    for tid in ids:
        before = earlier.get(tid)
        if not before:
            continue
        try:
            trace = load(tid)
        except KeyError:
            continue
        shown = derive_for_display(store, trace, load, before)
        if shown is not trace and shown.attributes.get(DERIVED_ATTRIBUTE):
            fresh.append(stored_facts(shown, context))
    return store.write_facts(fresh) if fresh else 0


def earlier_calls(store: TraceStore, trace_ids: Iterable[str]) -> dict[str, list[str]]:
    """:func:`~ctxviewer.diff.conversation.earlier_call_ids` of each stored call of ``trace_ids``
    (an id not stored is left out), read from the narrow rows: where the calls stand in one query
    per 500 (:meth:`~ctxviewer.store.TraceStore.call_orders`), then each conversation once for
    all its calls -- a session's ids in send order (:meth:`~ctxviewer.store.TraceStore.session_trace_ids`),
    the calls of the OTel traces in one query per 500 (:meth:`~ctxviewer.store.TraceStore.otel_trace_calls`)
    -- instead of a filtered list per call. The same ids as ``earlier_call_ids`` of the loaded
    call: the row holds the fields the conversation key and the send order read. Raises
    :class:`~ctxviewer.store.StoreError` when the store cannot be read."""
    calls = store.call_orders(trace_ids)
    keys = {tid: row_key(c) for tid, c in calls.items()}
    members = store.otel_trace_calls(k.split(":", 1)[1] for k in keys.values() if k and k.startswith("otel:"))
    sessions: dict[str, list[str]] = {}
    out: dict[str, list[str]] = {}
    for tid, call in calls.items():
        key = keys[tid]
        if key is None:
            out[tid] = []
            continue
        kind, value = key.split(":", 1)
        if kind == "otel":
            out[tid] = earlier_among(members[value], tid, call.created, key)
            continue
        ids = sessions.get(value)
        if ids is None:
            ids = sessions[value] = store.session_trace_ids(value)
        if tid in ids:  # always: the row has that session id
            out[tid] = ids[: ids.index(tid)]
        else:
            out[tid] = earlier_among(store.session_calls(value), tid, call.created, key)
    return out


__all__ = ["StoreError", "refresh_derived"]
