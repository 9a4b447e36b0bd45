"""The runs of a trace database (schema 8): every step of every imported run in ``run_spans``,
written at import with the traces (:meth:`TraceRuns.write_runs`, inside
:meth:`~ctxviewer.store.TraceStore.add`'s transaction), read a run at a time or a step's children
at a time (:meth:`TraceRuns.run_steps`, :meth:`TraceRuns.children`; the table: ``RUN_SPANS_SQL`` in
:mod:`ctxviewer.store.migrations`) for the run tree
(:mod:`ctxviewer.present.run_tree`). A model call's step names its trace (``trace_id``): its
reported tokens and cost are read from that trace's ``traces`` row and recorded usage. No Qt here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ctxviewer.model.times import stored_time
from ctxviewer.store import span_values
from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.errors import StoreError

if TYPE_CHECKING:
    from ctxviewer.model.run import RunSpan

_COLUMNS = ("run_id", "span_id", "parent_id", "kind", "name", "start", "end", "duration_ms", "status",
            "status_message", "trace_id", "attributes", "attribute_refs")
"""The ``run_spans`` columns a step is written to and read from (``attribute_refs``: schema 13,
:mod:`~ctxviewer.store.span_values`)."""


@dataclass(frozen=True)
class RunStep:
    """One stored step with what the tree shows of its model call (from the call's ``traces``
    row; ``None`` when it is not a model call or the value was not recorded)."""

    span: RunSpan
    duration_ms: float | None
    """End minus start, ms (microsecond precision, as the file gave the times)."""
    input_tokens: int | None = None
    """The call's reported input tokens (its recorded usage, cache included: the file's figure)."""
    output_tokens: int | None = None
    """The call's reported output tokens."""
    cost: float | None = None
    """The call's cost, US dollars (``None``: not known)."""
    state: str | None = None
    """The call's state (``ok`` / ``warning`` / ``failure``)."""
    has_children: bool = False
    """Whether any stored step of the run names this one as its parent (the tree draws an
    expand arrow only then)."""


def _time(value: datetime | None) -> str | None:
    """ISO-8601 UTC with microseconds (``2025-05-13T00:27:38.462180+00:00``): text order is time order."""
    return None if value is None else value.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _row(s: RunSpan) -> tuple[Any, ...]:
    """The step's row with its attributes whole (``attribute_refs`` NULL): as schema 8 stored it."""
    start, end = _time(s.start), _time(s.end)
    return (s.run_id, s.span_id, s.parent_id, s.kind, s.name, start, end, s.duration_ms, s.status, s.status_message,
            s.trace_id, json.dumps(dict(_thaw(s.attributes)), ensure_ascii=False, default=str) if s.attributes else None,
            None)


def _split_row(s: RunSpan, moved_values: dict[bytes, str]) -> tuple[Any, ...]:
    """The step's row as written since schema 13: its long attribute values moved to ``span_values``
    (added to ``moved_values``, digest -> text) and referenced (:func:`~ctxviewer.store.span_values.split`)."""
    start, end = _time(s.start), _time(s.end)
    attrs, refs, moved = span_values.split(_thaw(s.attributes)) if s.attributes else (None, None, {})
    moved_values.update(moved)
    return (s.run_id, s.span_id, s.parent_id, s.kind, s.name, start, end, s.duration_ms, s.status, s.status_message,
            s.trace_id, attrs, refs)


def _thaw(value: Any) -> Any:
    if hasattr(value, "items"):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


def _step(row: tuple[Any, ...], blob: Callable[[bytes], str | None] = lambda _digest: None) -> RunStep:
    """The step of one row of :data:`_SELECT` (``blob(digest)``: the text of a moved attribute in ``span_values``).
    Raises ``ValueError`` when its attributes are damaged (a blob missing)."""
    (run_id, span_id, parent_id, kind, name, start, end, duration, status, message, trace_id, attrs, refs,
     input_tokens, output_tokens, cost, state, has_children) = row
    from ctxviewer.model.run import RunSpan  # imported by the first step read, never by a list

    span = RunSpan(run_id, span_id, parent_id, kind, name, stored_time(start),
                   stored_time(end), status, message, trace_id, span_values.join(attrs, refs, blob))
    return RunStep(span, duration, input_tokens, output_tokens, cost, state, bool(has_children))


def stored_step(span: RunSpan, input_tokens: int | None = None, output_tokens: int | None = None,
                cost: float | None = None, state: str | None = None, has_children: bool = False) -> RunStep:
    """``span`` as :meth:`TraceRuns.run_steps` reads it back once stored (times to microseconds in
    UTC, attributes through their JSON text, the duration as stored), with its call's figures: the
    step of a run read from elsewhere (a ClickHouse store) equals the imported one."""
    return _step(_row(span) + (input_tokens, output_tokens, cost, state, has_children))


_SELECT = (f"SELECT {', '.join('r.' + c for c in _COLUMNS)}, "
           "CASE WHEN json_valid(d.json) THEN json_extract(d.json, '$.usage.input_tokens') END, "
           "t.output_tokens, t.cost, t.state, "
           "EXISTS (SELECT 1 FROM run_spans c INDEXED BY idx_run_spans_parent "
           "WHERE c.run_id = r.run_id AND c.parent_id = r.span_id) "
           "FROM run_spans r LEFT JOIN traces t ON t.trace_id = r.trace_id LEFT JOIN details d ON d.trace_id = r.trace_id")


class TraceRuns(StoreConnection):
    """The runs part of :class:`~ctxviewer.store.TraceStore`. Read methods raise
    :class:`~ctxviewer.store.StoreError` when the database cannot be read."""

    def write_runs(self, spans: Iterable[RunSpan]) -> int:
        """Store ``spans`` (replacing a step of the same run and id), inside the caller's
        transaction (:meth:`~ctxviewer.store.TraceStore.add`). Returns the steps written."""
        moved: dict[bytes, str] = {}
        rows = [_split_row(s, moved) for s in spans]
        span_values.store_values(self._conn, moved)
        self._conn.executemany(f"INSERT OR REPLACE INTO run_spans ({', '.join(_COLUMNS)}) "
                               f"VALUES ({', '.join('?' * len(_COLUMNS))})", rows)
        return len(rows)

    def run_of(self, trace_id: str) -> str | None:
        """The run a model call's trace belongs to, or ``trace_id`` itself when it names a stored
        run; ``None`` when neither (a trace imported without its run, or before schema 8)."""
        try:
            row = self._conn.execute("SELECT run_id FROM run_spans WHERE trace_id = ? LIMIT 1", (trace_id,)).fetchone()
            if row is None:
                row = self._conn.execute("SELECT run_id FROM run_spans WHERE run_id = ? LIMIT 1", (trace_id,)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the runs", exc) from None
        return None if row is None else str(row[0])

    def children(self, run_id: str, parent_id: str | None) -> list[RunStep]:
        """The steps of ``run_id`` directly under ``parent_id`` (``None``: its roots), by start time
        (steps without a start last): one index range, so a 30,000-step run expands lazily."""
        cond = "r.parent_id IS NULL" if parent_id is None else "r.parent_id = ?"
        params = (run_id,) if parent_id is None else (run_id, parent_id)
        try:
            # INDEXED BY: without statistics SQLite walks the whole run by its primary key (run_id)
            sql = _SELECT.replace("FROM run_spans r", "FROM run_spans r INDEXED BY idx_run_spans_parent", 1)
            rows = self._conn.execute(f"{sql} WHERE r.run_id = ? AND {cond} ORDER BY r.start IS NULL, r.start, "
                                      "r.span_id", params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the runs", exc) from None
        return self._steps(rows)

    def run_steps(self, run_id: str) -> list[RunStep]:
        """Every step of ``run_id``, by start time. Empty when the run is not stored."""
        try:
            rows = self._conn.execute(f"{_SELECT} WHERE r.run_id = ? ORDER BY r.start IS NULL, r.start, r.span_id",
                                      (run_id,)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the runs", exc) from None
        return self._steps(rows)

    def _steps(self, rows: list[tuple[Any, ...]]) -> list[RunStep]:
        """The steps of ``rows`` (:data:`_SELECT`'s), each moved attribute read from ``span_values`` once.
        Raises :class:`~ctxviewer.store.StoreError` naming the step whose attributes are damaged."""
        blob = span_values.value_reader(self._conn)
        out = []
        for r in rows:
            try:
                out.append(_step(r, blob))
            except sqlite3.DatabaseError as exc:
                raise self._fail("cannot read the runs", exc) from None
            except ValueError as exc:
                raise StoreError(self.path, f"run {r[0]!r} step {r[1]!r} is damaged: {exc}") from None
        return out

    def run_bounds(self, run_id: str) -> tuple[datetime, datetime] | None:
        """``(first start, last end)`` over every step of ``run_id`` (aware UTC; a step without an
        end counts at its start) -- the ends of the run's timeline -- or ``None`` when no step has
        a start. One pass over the run's primary-key range."""
        try:
            row = self._conn.execute("SELECT min(start), max(coalesce(end, start)) FROM run_spans WHERE run_id = ?",
                                     (run_id,)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the runs", exc) from None
        first = stored_time(row[0]) if row is not None else None
        last = stored_time(row[1]) if row is not None else None
        return (first, last) if first is not None and last is not None else None

    def step_path(self, trace_id: str) -> tuple[str, list[str]] | None:
        """``(run id, span ids from the root down to the step of ``trace_id``)`` -- the branch the
        run tree opens to show a model call -- or ``None`` when no run holds the trace. One
        recursive walk up the parent links (a cycle stops it)."""
        try:
            row = self._conn.execute("SELECT run_id, span_id FROM run_spans WHERE trace_id = ? LIMIT 1",
                                     (trace_id,)).fetchone()
            if row is None:
                return None
            run_id, span_id = row
            chain = [str(r[0]) for r in self._conn.execute(
                "WITH RECURSIVE up(id, parent, depth) AS (SELECT span_id, parent_id, 0 FROM run_spans "
                "WHERE run_id = ? AND span_id = ? UNION ALL SELECT s.span_id, s.parent_id, up.depth + 1 FROM run_spans s "
                "JOIN up ON s.run_id = ? AND s.span_id = up.parent WHERE up.depth < 10000) "
                "SELECT id FROM up ORDER BY depth DESC", (run_id, span_id, run_id))]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the runs", exc) from None
        return str(run_id), list(dict.fromkeys(chain))
