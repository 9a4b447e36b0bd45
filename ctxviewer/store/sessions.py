"""Sessions (conversations) of a trace database: the calls that share a ``traces.session_id`` --
OTel ``gen_ai.conversation.id`` / ``session.id``, Langfuse ``sessionId``, LangSmith
``extra.metadata`` ``session_id`` / ``thread_id`` / ``conversation_id``, MLflow
``mlflow.trace.session``, OpenInference ``session.id``, an Inspect AI sample's ``uuid`` (what the
importers record as :attr:`~ctxviewer.model.trace.RequestTrace.session_id`).

:meth:`TraceSessions.sessions` pages through them in session-id order (keyset: ``after`` the last
id shown, one index range per page, so a million traces page as fast as ten), each with its call
count, first and last send time and state counts; :meth:`TraceSessions.session_calls` reads one
session's calls in send order as narrow list rows; :meth:`TraceSessions.call_orders` and
:meth:`TraceSessions.otel_trace_calls` read where many calls stand in their conversations (the
import's look at them, :class:`CallOrder`). ``ctxviewer sessions`` / ``ctxviewer session``
and the window's Sessions dialog read these two methods. Only the narrow ``traces`` columns are
read, never a payload. No Qt here.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, NamedTuple, Sequence

from ctxviewer.model.times import format_created, stored_time
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
        """The JSON form (times as ``list --json`` writes them, ISO-8601 UTC with ms and ``Z``:
        :func:`~ctxviewer.model.times.format_created`; ``None`` as ``null``)."""
        d = dict(self.__dict__)
        d["first"] = format_created(self.first)
        d["last"] = format_created(self.last)
        return d


_SUMMARY = ("session_id, count(*), min(created), max(created), coalesce(sum(state = 'ok'), 0), "
            "coalesce(sum(state = 'warning'), 0), coalesce(sum(state = 'failure'), 0), "
            "CASE WHEN count(input_tokens) THEN total(input_tokens) END, "
            "CASE WHEN count(output_tokens) THEN total(output_tokens) END, sum(cost), count(cost), count(DISTINCT model)")
"""One session's summary; token sums by ``total()`` (``sum()`` raises "integer overflow" on 64-bit sums)."""


def _summary(row: tuple[Any, ...]) -> SessionSummary:
    sid, calls, first, last, ok, warning, failure, inp, out, cost, known, models = row
    return SessionSummary(str(sid), int(calls), stored_time(first),
                          stored_time(last), int(ok), int(warning), int(failure),
                          None if inp is None else int(inp), None if out is None else int(out),
                          None if cost is None else float(cost), int(known), int(models))


ROWS_CHUNK = 500
"""Ids per query of :meth:`TraceSessions.call_orders` and :meth:`TraceSessions.otel_trace_calls`
(below SQLite's bound on parameters)."""


class CallOrder(NamedTuple):
    """What places one call in its conversation, from its ``traces`` row: the fields
    :func:`ctxviewer.diff.conversation.conversation_key` and the send order read."""

    trace_id: str
    created: datetime | None
    """Send time (aware UTC), as :class:`TraceRow` reads it."""
    session_id: str | None
    source_format: str | None


_ORDER_COLUMNS = "trace_id, created, session_id, source_format"


def _call_order(r: Sequence[Any]) -> CallOrder:
    return CallOrder(str(r[0]), stored_time(r[1]), r[2], r[3])


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

    def sessionless_count(self, query: TraceQuery | None = None) -> int:
        """How many calls matching ``query``'s filter record no session id (in no session; ``stats
        --by session`` sums them as "not recorded"), by ``idx_traces_session_id``."""
        where, params = self.filter_where(query)  # type: ignore[attr-defined]
        try:
            return int(self._conn.execute(f"SELECT count(*) FROM traces WHERE session_id IS NULL AND ({where})",
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

    def call_orders(self, trace_ids: Iterable[str]) -> dict[str, CallOrder]:
        """The :class:`CallOrder` of each stored call of ``trace_ids``, by trace id (an id not
        stored is left out), :data:`ROWS_CHUNK` ids per query by the primary key: the calls of an
        import whose conversations are looked at once for all of them
        (:mod:`ctxviewer.pipeline.derived_facts`)."""
        ids = list(dict.fromkeys(trace_ids))
        out: dict[str, CallOrder] = {}
        try:
            for at in range(0, len(ids), ROWS_CHUNK):
                chunk = ids[at:at + ROWS_CHUNK]
                sql = f"SELECT {_ORDER_COLUMNS} FROM traces WHERE trace_id IN ({', '.join('?' * len(chunk))})"
                for r in self._conn.execute(sql, chunk):
                    out[r[0]] = _call_order(r)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read trace rows", exc) from None
        return out

    def otel_trace_calls(self, otel_ids: Iterable[str]) -> dict[str, builtins.list[CallOrder]]:
        """The :class:`CallOrder` of every call stored under each OTel trace id of ``otel_ids``
        (trace ids ``"<otel id>:"`` .. ``"<otel id>;"``, the primary key's range: the rows
        ``list --filter 'id >= "<otel id>:" and id < "<otel id>;"'`` gives), in trace-id order;
        an OTel trace id with none maps to ``[]``. :data:`ROWS_CHUNK` OTel ids per query."""
        ids = list(dict.fromkeys(otel_ids))
        out: dict[str, builtins.list[CallOrder]] = {i: [] for i in ids}
        sql = (f"SELECT j.value, {', '.join('t.' + c for c in _ORDER_COLUMNS.split(', '))} FROM json_each(?) j "
               "JOIN traces t ON t.trace_id >= j.value || ':' AND t.trace_id < j.value || ';' ORDER BY t.trace_id")
        try:
            for at in range(0, len(ids), ROWS_CHUNK):
                for r in self._conn.execute(sql, (json.dumps(ids[at:at + ROWS_CHUNK]),)):
                    out[r[0]].append(_call_order(r[1:]))
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read trace rows", exc) from None
        return out
