"""A list row's facts recomputed in the current assessment context, for rows stored in another.

A row's facts (state, worst finding, eq. 3.1 margin ...) are stored at import with the
fingerprint of the context they were computed in (``traces.facts_context``, schema 7). When the
context changes afterwards (a ``ctxviewer.toml`` written beside the database, new marks, a newer
ctxviewer), the stored facts are stale (:func:`ctxviewer.present.columns.is_stale`). The window
keeps the database read-only, so it does not rewrite them: :func:`refreshed_row` computes what the
row says in the current context -- the same assessment ``show`` and ``check`` run (dropped turns
derived first, :func:`ctxviewer.diff.conversation.derive_for_display`, then
:func:`ctxviewer.pipeline.stored_facts.stored_facts`) -- and the list shows that row instead.
``ctxviewer upgrade`` stores them.

A row of a source that keeps no facts at all -- a ClickHouse spans table
(:mod:`ctxviewer.pipeline.clickhouse`), whose rows hold only the span's own columns, with
``retained_count`` ``None`` -- is laid out whole by :func:`assessed_row`: the row the import would
have stored for that trace; :func:`refreshed_rows` assesses a page of them at once, through the
source's local sidecar of assessed rows when it keeps one
(:mod:`ctxviewer.pipeline.clickhouse.assessed`: keyed by span id and rule-set fingerprint). No Qt here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from ctxviewer.assess.context import AssessContext
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.pipeline.stored_facts import stored_facts
from ctxviewer.store import TraceRow, TraceSource
from ctxviewer.store.facts import FACT_COLUMNS
from ctxviewer.store.trace_row import trace_row


def refreshed_row(store: TraceSource, row: TraceRow, context: AssessContext) -> TraceRow:
    """``row`` with its :data:`~ctxviewer.store.facts.FACT_COLUMNS` and counted input
    (``input_tokens``, tokens) recomputed for its trace in ``context``; every other field as stored.
    ``facts_context`` becomes ``context.fingerprint``, so the row is no longer stale. Reads the
    trace from ``store`` (never writes). Raises ``KeyError`` when the trace is no longer stored and
    :class:`~ctxviewer.store.StoreError` when the store cannot be read. A row without item counts
    (``retained_count`` ``None``: a source that keeps no facts) is made whole by :func:`assessed_row`."""
    if row.retained_count is None:
        return assessed_row(store, row, context)
    trace = derive_for_display(store, store.load(row.trace_id))
    facts = stored_facts(trace, context)
    values = dict(zip(FACT_COLUMNS, facts.values))
    for flag in ("omissions_recorded", "fits"):
        if values[flag] is not None:
            values[flag] = bool(values[flag])
    return replace(row, input_tokens=facts.input_tokens, **values)


def assessed_row(store: TraceSource, row: TraceRow, context: AssessContext) -> TraceRow:
    """The row an import would store for ``row``'s trace: loaded from ``store`` (dropped turns
    derived, :func:`ctxviewer.diff.conversation.derive_for_display`), assessed in ``context``
    (:func:`ctxviewer.pipeline.stored_facts.stored_facts`) and laid out as ``TraceStore.add`` lays
    out its row (:func:`ctxviewer.store.trace_row.trace_row`). Raises
    ``KeyError`` when the trace is gone and :class:`~ctxviewer.store.StoreError` when the store
    cannot be read."""
    t = derive_for_display(store, store.load(row.trace_id))
    return trace_row(t, stored_facts(t, context))


def refreshed_rows(store: TraceSource, rows: Sequence[TraceRow], context: AssessContext,
                   cancelled: Callable[[], bool] | None = None) -> list[TraceRow]:
    """:func:`refreshed_row` of each of ``rows`` (a page a surface shows), in order; a row whose trace
    is gone (``KeyError``) is left out, and ``cancelled()`` is polled between rows. Rows of a source
    that keeps no facts and has a sidecar of assessed rows (``assess_rows``: a ClickHouse store) are
    read from it or assessed and kept there. Raises :class:`~ctxviewer.store.StoreError` when the
    store cannot be read."""
    assess = getattr(store, "assess_rows", None)
    bare = [r for r in rows if r.retained_count is None]
    done: dict[str, TraceRow] = {}
    if assess is not None and bare:
        done = {r.trace_id: r for r in assess(bare, context, cancelled)}
    out: list[TraceRow] = []
    for row in rows:
        if row.trace_id in done:
            out.append(done[row.trace_id])
            continue
        if (assess is not None and row.retained_count is None) or (cancelled is not None and cancelled()):
            continue
        try:
            out.append(refreshed_row(store, row, context))
        except KeyError:
            continue
    return out


__all__ = ["assessed_row", "refreshed_row", "refreshed_rows"]
