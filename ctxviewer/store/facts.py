"""Facts about a trace known at import, stored on its ``traces`` row (schema 2) so the list reads
them as data instead of deriving them per painted cell.

The facts come from one :func:`ctxviewer.assessment.assess` call per trace, made by
:meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` (so every import path stores them) and by
the schema-2 migration's back-fill for traces stored before. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # the assessment (checks, scanner) is imported when a trace is written
    from ..assessment import Assessment, Conclusion
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


def fact_values(a: Assessment | Conclusion) -> tuple[Any, ...]:
    """The :data:`FACT_COLUMNS` values of assessment ``a`` (or its :class:`~ctxviewer.assessment.Conclusion`) as SQLite values: booleans as 0/1,
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


def trace_facts(trace: RequestTrace) -> tuple[Conclusion, tuple[Any, ...]]:
    """Conclude on ``trace`` once (:func:`ctxviewer.assessment.conclude`: the assessment without
    the chart figure and header rows, which the store does not keep) and return the conclusion
    and its :func:`fact_values`."""
    from ..assessment import conclude

    a = conclude(trace)
    return a, fact_values(a)


@dataclass(frozen=True)
class StoredFacts:
    """What :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` stores of one trace's
    assessment, small and picklable so a worker process can compute it (:mod:`ctxviewer.assess_pool`)
    and the writing process store it without assessing again."""

    trace_id: str
    """The trace assessed (a mismatch with the trace written is a bug: :meth:`check_for` raises)."""
    input_tokens: int | None
    """The counted input of eq. 3.1 (``assessment.capacity.input_tokens``, tokens)."""
    values: tuple[Any, ...]
    """The :data:`FACT_COLUMNS` values (:func:`fact_values`)."""
    findings: tuple[tuple[str, str, int], ...]
    """``(rule, severity, count)`` per rule, the ``trace_findings`` rows without the trace id."""

    def check_for(self, trace_id: str) -> StoredFacts:
        """``self`` when it belongs to ``trace_id``; raises ``ValueError`` otherwise."""
        if trace_id != self.trace_id:
            raise ValueError(f"facts of trace {self.trace_id!r} offered for trace {trace_id!r}")
        return self


def stored_facts(trace: RequestTrace) -> StoredFacts:
    """Assess ``trace`` once (:func:`ctxviewer.assessment.assess`) and keep what the store writes."""
    a, values = trace_facts(trace)
    return StoredFacts(trace.trace_id, a.capacity.input_tokens, values,
                       tuple((r[1], r[2], r[3]) for r in finding_rows(trace.trace_id, a)))


def finding_rows(trace_id: str, a: Assessment | Conclusion) -> list[tuple[str, str, str, int]]:
    """``trace_findings`` rows of assessment ``a``: ``(trace_id, rule, severity, count)`` once per
    rule, with the severity of its worst finding (findings come worst first) and how many there are."""
    rows: dict[str, list[Any]] = {}
    for f in a.findings:
        if f.rule in rows:
            rows[f.rule][3] += 1
        else:
            rows[f.rule] = [trace_id, f.rule, f.severity.value, 1]
    return [(r[0], r[1], r[2], r[3]) for r in rows.values()]


def write_findings(conn: Any, trace_id: str, a: Assessment | Conclusion | StoredFacts) -> None:
    """Replace the ``trace_findings`` rows of ``trace_id`` with those of assessment ``a`` (or of
    facts already computed, :class:`StoredFacts`)."""
    rows = ([(trace_id, *r) for r in a.findings] if isinstance(a, StoredFacts) else finding_rows(trace_id, a))
    conn.execute("DELETE FROM trace_findings WHERE trace_id = ?", (trace_id,))
    conn.executemany("INSERT INTO trace_findings (trace_id, rule, severity, count) VALUES (?, ?, ?, ?)", rows)


def backfill(conn: Any) -> int:
    """Assess every stored trace and write its facts into its ``traces`` row (the schema-2 step
    for databases written before), and its findings into ``trace_findings`` when that table exists
    (schema 3). ``conn`` is the migrating database's ``sqlite3.Connection``.
    A trace that cannot be loaded keeps NULL facts (shown as "not recorded"). Returns the number
    of rows filled. The traces are assessed over the cores (:func:`ctxviewer.assess_pool.assessed`)."""
    from pathlib import Path

    from .schema import StoreError
    from .store import TraceStore

    name = next((str(r[2]) for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
    reader = TraceStore(conn, Path(name or "database"), readonly=True)  # reads only; never closed here
    sql = f"UPDATE traces SET {', '.join(f'{c} = ?' for c in FACT_COLUMNS)} WHERE trace_id = ?"
    findings = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'trace_findings'").fetchone() is not None
    from ..assess_pool import assessed

    def loaded() -> Iterator[RequestTrace]:
        for (trace_id,) in conn.execute("SELECT trace_id FROM traces").fetchall():
            try:
                yield reader.load(trace_id)
            except (KeyError, StoreError):
                continue

    n = 0
    for trace, stored in assessed(loaded()):  # over the cores, like an import (ctxviewer.assess_pool)
        conn.execute(sql, (*stored.values, trace.trace_id))
        if findings:
            write_findings(conn, trace.trace_id, stored)
        n += 1
    return n
