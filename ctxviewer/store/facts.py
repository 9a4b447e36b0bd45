"""Facts about a trace known at import, stored on its ``traces`` row (schema 2) so the list reads
them as data instead of deriving them per painted cell.

The facts come from one :func:`ctxviewer.assessment.assess` call per trace, made by
:meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` (so every import path stores them) and by
the schema-2 migration's back-fill for traces stored before. No Qt here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the assessment (checks, scanner) is imported when a trace is written
    from ..assessment import Assessment
    from ..model import RequestTrace

FACT_COLUMNS: tuple[str, ...] = (
    "omissions_recorded",
    "margin",
    "fits",
    "state",
    "worst_rule",
    "worst_severity",
    "verdict",
)
"""``traces`` columns holding assessment facts, in :class:`~ctxviewer.store.TraceRow` order.
(The counted input is the older ``input_tokens`` column.)"""


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def fact_values(a: Assessment) -> tuple[Any, ...]:
    """The :data:`FACT_COLUMNS` values of assessment ``a`` as SQLite values: booleans as 0/1,
    unknowns as NULL, the state and worst severity as their words (``failure``)."""
    top = a.worst
    return (
        int(a.omissions_recorded),
        a.capacity.margin,
        _flag(a.capacity.fits),
        a.state.value,
        top.rule if top is not None else None,
        top.severity.value if top is not None else None,
        a.verdict,
    )


def trace_facts(trace: RequestTrace) -> tuple[Assessment, tuple[Any, ...]]:
    """Assess ``trace`` once and return the assessment and its :func:`fact_values`."""
    from ..assessment import assess

    a = assess(trace)
    return a, fact_values(a)


def backfill(conn: Any) -> int:
    """Assess every stored trace and write its facts into its ``traces`` row (the schema-2 step
    for databases written before). ``conn`` is the migrating database's ``sqlite3.Connection``.
    A trace that cannot be loaded keeps NULL facts (shown as "not recorded"). Returns the number
    of rows filled."""
    from pathlib import Path

    from .schema import StoreError
    from .store import TraceStore

    name = next((str(r[2]) for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
    reader = TraceStore(conn, Path(name or "database"), readonly=True)  # reads only; never closed here
    sql = f"UPDATE traces SET {', '.join(f'{c} = ?' for c in FACT_COLUMNS)} WHERE trace_id = ?"
    n = 0
    for (trace_id,) in conn.execute("SELECT trace_id FROM traces").fetchall():
        try:
            trace = reader.load(trace_id)
        except (KeyError, StoreError):
            continue
        _, values = trace_facts(trace)
        conn.execute(sql, (*values, trace_id))
        n += 1
    return n
