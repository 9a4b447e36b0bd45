"""A list row's facts recomputed in the current assessment context, for rows stored in another.

A row's facts (state, worst finding, eq. 3.1 margin ...) are stored at import with the
fingerprint of the context they were computed in (``traces.facts_context``, schema 7). When the
context changes afterwards (a ``ctxviewer.toml`` written beside the database, new marks, a newer
ctxviewer), the stored facts are stale (:func:`ctxviewer.present.columns.is_stale`). The window
keeps the database read-only, so it does not rewrite them: :func:`refreshed_row` computes what the
row says in the current context -- the same assessment ``show`` and ``check`` run (dropped turns
derived first, :func:`ctxviewer.diff.conversation.derive_for_display`, then
:func:`ctxviewer.pipeline.stored_facts.stored_facts`) -- and the list shows that row instead.
``ctxviewer upgrade`` stores them. No Qt here.
"""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.assess.context import AssessContext
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.pipeline.stored_facts import stored_facts
from ctxviewer.store import TraceRow, TraceSource
from ctxviewer.store.facts import FACT_COLUMNS


def refreshed_row(store: TraceSource, row: TraceRow, context: AssessContext) -> TraceRow:
    """``row`` with its :data:`~ctxviewer.store.facts.FACT_COLUMNS` and counted input
    (``input_tokens``, tokens) recomputed for its trace in ``context``; every other field as stored.
    ``facts_context`` becomes ``context.fingerprint``, so the row is no longer stale. Reads the
    trace from ``store`` (never writes). Raises ``KeyError`` when the trace is no longer stored and
    :class:`~ctxviewer.store.StoreError` when the store cannot be read."""
    trace = derive_for_display(store, store.load(row.trace_id))
    facts = stored_facts(trace, context)
    values = dict(zip(FACT_COLUMNS, facts.values))
    for flag in ("omissions_recorded", "fits"):
        if values[flag] is not None:
            values[flag] = bool(values[flag])
    return replace(row, input_tokens=facts.input_tokens, **values)


__all__ = ["refreshed_row"]
