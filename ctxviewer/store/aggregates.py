"""Aggregates over the trace list or a display filter: calls, tokens, cost, latency, state counts
and context-window use, by model, by session or by day -- one SQL ``GROUP BY`` over the narrow
``traces`` columns (:meth:`TraceAggregates.aggregate`), never over payloads, read from the covering
indexes ``idx_traces_aggregate``, ``idx_traces_aggregate_day`` (schema 10) and
``idx_traces_aggregate_session`` (schema 11), so a million rows
answer in one pass over one of them; every session unfiltered reads the stored per-session sums
instead (:mod:`ctxviewer.store.session_rollup`, schema 12: one row per session); the total of a grouped query is the sum of its groups (no
second pass). ``ctxviewer stats`` prints them. No
Qt here.

Sums count only what was recorded, and say how many calls that was: ``cost`` is the sum of the
costs genai-prices knows (:mod:`ctxviewer.store.call_columns`), ``cost_known`` how many calls
those were -- a total over calls with unknown prices is a lower bound, said as such, never a
total with 0 for the unknown ones.
"""

from __future__ import annotations

import sqlite3

from ctxviewer.store import session_rollup
from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.group_sums import SUMS_SQL, Group, group_of, sum_groups
from ctxviewer.store.query import TraceQuery

GROUP_KEYS: dict[str, str] = {
    "model": "model",
    "session": "session_id",
    "day": "substr(created, 1, 10)",
}
"""``--by`` value -> the SQL of the group key (a ``traces`` column or an expression over one;
``created`` is ISO-8601 UTC text, so its first 10 characters are the UTC day)."""

def aggregate_sql(by: str | None, where: str = "1") -> str:
    """The one statement :meth:`TraceAggregates.aggregate` runs: the sums of the rows ``where`` keeps
    (SQL over ``traces``; ``"1"``: all), grouped by ``by``'s key (:data:`GROUP_KEYS`) when given.
    Without a filter the total and by model read the covering ``idx_traces_aggregate``, by day
    ``idx_traces_aggregate_day``, by session ``idx_traces_aggregate_session`` (schema 11), each in
    its key's order (no sort). Raises ``KeyError`` for another ``by``."""
    source = f"traces WHERE {where}" if where != "1" else "traces"
    if by is None:
        return f"SELECT {SUMS_SQL} FROM {source}"
    return f"SELECT {GROUP_KEYS[by]} AS k, {SUMS_SQL} FROM {source} GROUP BY k ORDER BY k"


class TraceAggregates(StoreConnection):
    """The aggregating part of :class:`~ctxviewer.store.TraceStore`."""

    def aggregate(self, query: TraceQuery | None = None, by: str | None = None) -> tuple[Group, list[Group]]:
        """``(total, groups)`` over the traces matching ``query``'s filter (all when ``None``):
        the total of every matching call, and one :class:`Group` per distinct ``by`` key
        (:data:`GROUP_KEYS`: ``model``, ``session``, ``day``; ``None``: no groups), in key order
        with the calls that recorded no key first. Raises ``ValueError`` for another ``by`` and
        :class:`~ctxviewer.store.StoreError` when the database cannot be read."""
        if by is not None and by not in GROUP_KEYS:
            raise ValueError(f"cannot group by {by!r}; one of: {', '.join(GROUP_KEYS)}")
        where, params = self.filter_where(query)  # type: ignore[attr-defined]  # TraceListing's
        try:
            if by == "session" and where == "1":  # every session: its stored sums (schema 12)
                rows = session_rollup.read(self._conn)
            else:
                rows = self._conn.execute(aggregate_sql(by, where), params).fetchall()
            if by is None:
                return group_of(None, rows[0]), []
            groups = [group_of(r[0], r[1:]) for r in rows]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot aggregate traces", exc) from None
        total = sum_groups(groups)  # one pass: the total is the groups' (every call is in one group)
        return total, groups

    def aggregate_top(self, query: TraceQuery | None, by: str, top: int) -> tuple[Group, list[Group], int]:
        """``(total, groups, n)``: what the statistics window shows -- the total of every call
        matching ``query``'s filter, the ``top`` groups by ``by`` (:data:`GROUP_KEYS`) with the most
        calls (ties: the first in key order), in key order with the calls that recorded no key
        first, and ``n``, the number of groups. One statement (:func:`top_sql`): the groups are
        ranked and summed in SQLite, so 220,717 sessions answer without a Python object each.
        ``top`` >= 1. Raises ``ValueError`` for another ``by`` or ``top`` and
        :class:`~ctxviewer.store.StoreError` when the database cannot be read."""
        if by not in GROUP_KEYS:
            raise ValueError(f"cannot group by {by!r}; one of: {', '.join(GROUP_KEYS)}")
        if top < 1:
            raise ValueError(f"top must be at least 1, not {top}")
        where, params = self.filter_where(query)  # type: ignore[attr-defined]  # TraceListing's
        inner = session_rollup.READ_SQL if by == "session" and where == "1" else aggregate_sql(by, where)
        try:
            rows = self._conn.execute(top_sql(inner), (*params, top)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot aggregate traces", exc) from None
        (last,) = [r for r in rows if r[0] == 1]  # each row says which it is: 0 a group, 1 the total
        ranked = [r for r in rows if r[0] == 0]
        groups = [group_of(None if isinstance(r[1], bytes) else r[1], r[2:]) for r in ranked]
        groups.sort(key=lambda g: (g.key is not None, g.key or ""))
        return group_of(None, last[2:]), groups, int(last[1])


    def stale_count(self, query: TraceQuery | None, current: str) -> int:
        """How many calls matching ``query``'s filter have facts (state, fits, window bands)
        computed in a context other than ``current`` (an
        :attr:`~ctxviewer.assess.context.AssessContext.fingerprint`; no context recorded counts):
        the sums of their states are as stored at import. By ``idx_traces_facts_context`` ranges
        (schema 12). Raises :class:`~ctxviewer.store.StoreError` when the database cannot be read."""
        where, params = self.filter_where(query)  # type: ignore[attr-defined]  # TraceListing's
        sql = ("SELECT count(*) FROM traces WHERE (facts_context IS NULL OR facts_context < ? OR facts_context > ?)"
               + (f" AND ({where})" if where != "1" else ""))
        try:
            return int(self._conn.execute(sql, (current, current, *params)).fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot aggregate traces", exc) from None


_NAMED = ", ".join(("k", *session_rollup.SUM_COLUMNS))
_TOTALS = ", ".join(f"max({c})" if c == "duration_max_ms" else f"total({c})" for c in session_rollup.SUM_COLUMNS)
"""The groups' sums summed: ``total()``, which never raises "integer overflow" as ``sum()`` does."""


def top_sql(inner: str) -> str:
    """The statement :meth:`TraceAggregates.aggregate_top` runs over ``inner`` (rows ``(key, *19
    sums)``, :data:`~ctxviewer.store.group_sums.SUMS_SQL`): its groups materialised once, the
    ``?`` (last parameter) with the most calls as rows ``(0, key, *sums)``, then one row ``(1,
    number of groups, *the sums of them all)``."""
    return (f"WITH g({_NAMED}) AS MATERIALIZED ({inner}) "
            f"SELECT * FROM (SELECT 0, * FROM g ORDER BY calls DESC, k IS NOT NULL AND typeof(k) <> 'blob', k "
            f"LIMIT ?) UNION ALL SELECT 1, count(*), {_TOTALS} FROM g")
