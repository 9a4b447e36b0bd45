"""One trace's ``traces`` row, as :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` writes it:
:func:`trace_row_values` (the values in :data:`~ctxviewer.store.query.ROW_COLUMNS` order) and
:func:`trace_row` (the same as a :class:`~ctxviewer.store.TraceRow`, for a source that keeps no rows
of its own -- a ClickHouse spans table, :mod:`ctxviewer.pipeline.fresh_rows` -- so its list says what
the stored row of that trace says). The one place the row is laid out. No Qt here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ctxviewer.model.span_facts import row_values as span_row_values
from ctxviewer.model.times import format_created
from ctxviewer.store.call_columns import call_values
from ctxviewer.store.facts import StoredFacts
from ctxviewer.store.query import TraceRow
from ctxviewer.store.score_rows import summary as score_summary

if TYPE_CHECKING:
    from ctxviewer.model.trace import RequestTrace


def trace_row_values(t: RequestTrace, stored: StoredFacts) -> tuple[Any, ...]:
    """The ``traces`` row of ``t`` with its facts ``stored``, in ``ROW_COLUMNS`` order: ids, time,
    endpoint, counted input (tokens), item counts, facts, session, span facts, call columns (cost,
    output tokens, duration), score summary."""
    from ctxviewer.model.trace import Status  # imported by the first write, never by a list

    retained = sum(1 for i in t.items if i.status is Status.RETAINED)
    return (
        t.trace_id, format_created(t.created), t.service, t.endpoint.provider, t.endpoint.model,
        t.endpoint.capacity, stored.input_tokens, t.reserved_output_tokens,
        retained, len(t.items) - retained, t.replay_of, t.source_format, *stored.values, t.session_id,
        *span_row_values(t.attributes), *call_values(t), score_summary(t.attributes),
    )


def trace_row(t: RequestTrace, stored: StoredFacts) -> TraceRow:
    """:func:`trace_row_values` read back as a :class:`~ctxviewer.store.TraceRow` (what listing
    the stored row gives)."""
    return TraceRow.from_sql(trace_row_values(t, stored))
