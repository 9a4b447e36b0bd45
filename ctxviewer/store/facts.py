"""Facts about a trace known at import, stored on its ``traces`` row (schema 2) so the list reads
them as data instead of deriving them per painted cell.

The facts are the conclusions of one assessment per trace. The store never assesses: the import
pipeline hands them to :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` with each trace
(:mod:`ctxviewer.pipeline.stored_facts`), and ``upgrade`` back-fills them after the schema steps
(:mod:`ctxviewer.pipeline.backfill`). This module holds only their shape and their rows. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FACT_COLUMNS: tuple[str, ...] = (
    "omissions_recorded",
    "margin",
    "fits",
    "state",
    "worst_rule",
    "worst_severity",
    "verdict",
    "facts_context",
    "window_used",
    "window_capacity",
)
"""``traces`` columns holding assessment facts, in :class:`~ctxviewer.store.TraceRow` order.
(The counted input is the older ``input_tokens`` column; ``window_used`` and ``window_capacity``,
schema 14, are the tokens eq. 3.1 set against C and that C, tokens, what ``stats`` bands.)"""


@dataclass(frozen=True)
class StoredFacts:
    """What :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` stores of one trace's
    assessment, small and picklable so a worker process can compute it (:mod:`ctxviewer.pipeline.assess_pool`)
    and the writing process store it without assessing again."""

    trace_id: str
    """The trace assessed (a mismatch with the trace written is a bug: :meth:`check_for` raises)."""
    input_tokens: int | None
    """The counted input of eq. 3.1 (``assessment.capacity.input_tokens``, tokens)."""
    values: tuple[Any, ...]
    """The :data:`FACT_COLUMNS` values as SQLite values (booleans as 0/1, unknowns as NULL, the
    state and worst severity as their words; :func:`ctxviewer.pipeline.stored_facts.fact_values`)."""
    findings: tuple[tuple[str, str, int], ...]
    """``(rule, severity, count)`` per rule, the ``trace_findings`` rows without the trace id."""

    def check_for(self, trace_id: str) -> StoredFacts:
        """``self`` when it belongs to ``trace_id``; raises ``ValueError`` otherwise."""
        if trace_id != self.trace_id:
            raise ValueError(f"facts of trace {self.trace_id!r} offered for trace {trace_id!r}")
        return self


def write_findings(conn: Any, trace_id: str, stored: StoredFacts) -> None:
    """Replace the ``trace_findings`` rows of ``trace_id`` with those of ``stored``."""
    conn.execute("DELETE FROM trace_findings WHERE trace_id = ?", (trace_id,))
    conn.executemany("INSERT INTO trace_findings (trace_id, rule, severity, count) VALUES (?, ?, ?, ?)",
                     [(trace_id, *r) for r in stored.findings])
