"""Sessions (conversations) of a trace database: the calls that share a ``traces.session_id`` --
OTel ``gen_ai.conversation.id`` / ``session.id``, Langfuse ``sessionId``, LangSmith
``extra.metadata`` ``session_id`` / ``thread_id`` / ``conversation_id``, MLflow
``mlflow.trace.session``, OpenInference ``session.id``, an Inspect AI sample's ``uuid`` (what the
importers record as :attr:`~ctxviewer.model.trace.RequestTrace.session_id`).

:meth:`TraceSessions.sessions` pages through them in session-id order (keyset: ``after`` the last
id shown, one index range per page, so a million traces page as fast as ten), each with its call
count, first and last send time and state counts; :meth:`TraceSessions.session_calls` reads one
session's calls in send order as narrow list rows; :meth:`TraceSessions.rows_of` and
:meth:`TraceSessions.rows_in_id_range` read the rows of many calls (the import's look at their
conversations). ``ctxviewer sessions`` / ``ctxviewer session``
and the window's Sessions dialog read these two methods. Only the narrow ``traces`` columns are
read, never a payload. No Qt here.
"""

from __future__ import annotations

import builtins
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable

from ctxviewer.model.times import parse_created
from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.query import ROW_COLUMNS, TraceQuery, TraceRow


@dataclass(frozen=True)
class SessionSummary:
    """One session: its id and what its calls add up to. Tokens in tokens, cost in US dollars;
    ``None`` = not recorded by any of its calls."""

    session_id: str
    calls: int
    first: datetime | None
    """The first call's send time (aware UTC)."""
    last: datetime | None
    """The last call's send time."""
    ok: int
    warning: int
    failure: int
    input_tokens: int | None
    """Sum of the counted input tokens of the calls that recorded them."""
    output_tokens: int | None
    cost: float | None
    """Sum of the known costs (:attr:`cost_known` calls; a lower bound when fewer than :attr:`calls`)."""
    cost_known: int
    models: int
    """Distinct models the calls asked for."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (times as ISO-8601 UTC, ``None`` as ``null``)."""
        d = dict(self.__dict__)
        d["first"] = None if self.first is None else self.first.isoformat()
        d["last"] = None if self.last is None else self.last.isoformat()
        return d


_SUMMARY = ("session_id, count(*), min(created), max(created), coalesce(sum(state = 'ok'), 0), "
            "coalesce(sum(state = 'warning'), 0), coalesce(sum(state = 'failure'), 0), sum(input_tokens), "
            "sum(output_tokens), sum(cost), count(cost), count(DISTINCT model)")


def _summary(row: tuple[Any, ...]) -> SessionSummary:
    sid, calls, first, last, ok, warning, failure, inp, out, cost, known, models = row
    return SessionSummary(str(sid), int(calls), parse_created(first) if first else None,
                          parse_created(last) if last else None, int(ok), int(warning), int(failure),
                          None if inp is None else int(inp), None if out is None else int(out),
                          None if cost is None else float(cost), int(known), int(models))


ROWS_CHUNK = 500
"""Trace ids per query of :meth:`TraceSessions.rows_of` (below SQLite's bound on parameters)."""


class TraceSessions(StoreConnection):
    """The sessions part of :class:`~ctxviewer.store.TraceStore`. Methods raise
    :class:`~ctxviewer.store.StoreError` when the database cannot be read and
    :class:`~ctxviewer.store.filters.FilterError` for a bad filter."""

    def sessions(self, query: TraceQuery | None = None, after: str | None = None,
                 limit: int = 100) -> builtins.list[SessionSummary]:
        """Up to ``limit`` sessions with a call matching ``query``'s filter (all when ``None``), in
        session-id order, starting after session id ``after`` (``None``: the first); each summed
        over its matching calls. Calls without a session id are in none. Walks the
        ``(session_id, trace_id)`` index (``idx_traces_session_id``) in order and stops after
        ``limit`` sessions."""
        where, params = self.filter_where(query)  # type: ignore[attr-defined]  # TraceListing's
        cond = "session_id IS NOT NULL" + ("" if after is None else " AND session_id > ?")
        args = [*([] if after is None else [after]), *params]
        sql = (f"SELECT {_SUMMARY} FROM traces WHERE {cond} AND ({where}) "
               f"GROUP BY session_id ORDER BY session_id LIMIT ?")
        try:
            rows = self._conn.execute(sql, [*args, int(limit)]).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the sessions", exc) from None
        return [_summary(r) for r in rows]

    def session_count(self, query: TraceQuery | None = None) -> int:
        """How many sessions have a call matching ``query``'s filter (one pass over the session index)."""
        where, params = self.filter_where(query)  # type: ignore[attr-defined]
        try:
            return int(self._conn.execute(
                f"SELECT count(DISTINCT session_id) FROM traces WHERE session_id IS NOT NULL AND ({where})",
                params).fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the sessions", exc) from None

    def session_calls(self, session_id: str) -> builtins.list[TraceRow]:
        """The calls of session ``session_id`` in send order (then trace id; a call without a send
        time first), as narrow list rows; ``[]`` when no call has that session id."""
        sql = (f"SELECT {', '.join(ROW_COLUMNS)} FROM traces WHERE session_id = ? "
               "ORDER BY created, trace_id")  # the order of session_trace_ids (previous_call's)
        try:
            return [TraceRow.from_sql(r) for r in self._conn.execute(sql, (session_id,))]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the session", exc) from None

    def rows_of(self, trace_ids: Iterable[str]) -> dict[str, TraceRow]:
        """The narrow list rows of ``trace_ids`` by trace id (an id not stored is left out), read
        :data:`ROWS_CHUNK` ids per query by the primary key: the calls of an import whose
        conversations are looked at once for all of them (:mod:`ctxviewer.pipeline.derived_facts`)."""
        ids = list(dict.fromkeys(trace_ids))
        out: dict[str, TraceRow] = {}
        try:
            for at in range(0, len(ids), ROWS_CHUNK):
                chunk = ids[at:at + ROWS_CHUNK]
                sql = (f"SELECT {', '.join(ROW_COLUMNS)} FROM traces "
                       f"WHERE trace_id IN ({', '.join('?' * len(chunk))})")
                for r in self._conn.execute(sql, chunk):
                    row = TraceRow.from_sql(r)
                    out[row.trace_id] = row
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read trace rows", exc) from None
        return out

    def rows_in_id_range(self, low: str, high: str) -> builtins.list[TraceRow]:
        """The narrow list rows whose trace id is ``>= low`` and ``< high`` (text order, the
        primary key's range: the calls of one OTel trace are ``"<otel id>:"`` .. ``"<otel id>;"``),
        in trace-id order -- the rows ``list --filter 'id >= LOW and id < HIGH'`` gives, without
        compiling a filter."""
        sql = f"SELECT {', '.join(ROW_COLUMNS)} FROM traces WHERE trace_id >= ? AND trace_id < ? ORDER BY trace_id"
        try:
            return [TraceRow.from_sql(r) for r in self._conn.execute(sql, (low, high))]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read trace rows", exc) from None
