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
looked at. No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable

from ctxviewer.assess.context import AssessContext
from ctxviewer.diff.conversation import DERIVED_ATTRIBUTE, derive_for_display
from ctxviewer.pipeline.stored_facts import stored_facts
from ctxviewer.store import StoreError, TraceStore
from ctxviewer.store.facts import StoredFacts


def refresh_derived(store: TraceStore, trace_ids: Iterable[str], context: AssessContext) -> int:
    """Re-assess each of ``trace_ids`` (calls of one import whose format records no omissions and
    that belong to a conversation) with its derived omissions, in ``context``, and rewrite the
    facts of those that have any, in one transaction. Returns the rows rewritten. Raises
    :class:`~ctxviewer.store.StoreError` when the store cannot be read or written."""
    fresh: list[StoredFacts] = []
    for tid in trace_ids:
        try:
            trace = store.load(tid)
        except KeyError:
            continue
        shown = derive_for_display(store, trace)
        if shown is not trace and shown.attributes.get(DERIVED_ATTRIBUTE):
            fresh.append(stored_facts(shown, context))
    return store.write_facts(fresh) if fresh else 0


__all__ = ["StoreError", "refresh_derived"]
