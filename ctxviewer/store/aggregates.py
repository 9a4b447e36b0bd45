"""Aggregates over the trace list or a display filter: calls, tokens, cost, latency, state counts
and context-window use, by model, by session or by day -- one SQL ``GROUP BY`` over the narrow
``traces`` columns (:meth:`TraceAggregates.aggregate`), never over payloads, read from the covering
indexes ``idx_traces_aggregate``, ``idx_traces_aggregate_day`` (schema 10) and
``idx_traces_aggregate_session`` (schema 11), so a million rows
answer in one pass over one of them; the total of a grouped query is the sum of its groups (no
second pass). ``ctxviewer stats`` prints them. No
Qt here.

Sums count only what was recorded, and say how many calls that was: ``cost`` is the sum of the
costs genai-prices knows (:mod:`ctxviewer.store.call_columns`), ``cost_known`` how many calls
those were -- a total over calls with unknown prices is a lower bound, said as such, never a
total with 0 for the unknown ones.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields
from typing import Any

from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.query import TraceQuery

GROUP_KEYS: dict[str, str] = {
    "model": "model",
    "session": "session_id",
    "day": "substr(created, 1, 10)",
}
"""``--by`` value -> the SQL of the group key (a ``traces`` column or an expression over one;
``created`` is ISO-8601 UTC text, so its first 10 characters are the UTC day)."""

WINDOW_BANDS: tuple[tuple[str, float, float], ...] = (
    ("<50%", 0.0, 0.5), ("50-80%", 0.5, 0.8), ("80-90%", 0.8, 0.9), ("90-100%", 0.9, 1.0), (">100%", 1.0, float("inf")),
)
"""Context-window use (input tokens / capacity C) as bands ``[low, high)``: how close to C the calls run."""


@dataclass(frozen=True)
class Group:
    """One group of calls (or all of them). Token quantities in tokens, cost in US dollars,
    durations in ms; a sum's ``*_known`` says how many calls recorded the value."""

    key: str | None
    """The model, session id or UTC day (``2026-11-02``); ``None`` for calls that did not record it
    (or for the total)."""
    calls: int
    input_tokens: int
    """Sum of the counted input tokens (``traces.input_tokens``)."""
    input_known: int
    output_tokens: int
    """Sum of the reported output tokens."""
    output_known: int
    cost: float
    """Sum of the known costs."""
    cost_known: int
    """Calls whose cost is known (the others are not in :attr:`cost`)."""
    duration_mean_ms: float | None
    duration_max_ms: float | None
    duration_known: int
    ok: int
    warning: int
    failure: int
    errors: int
    """Calls whose span ended in error (``span_status = 'error'``)."""
    window: tuple[int, ...]
    """Calls per :data:`WINDOW_BANDS` band of input / capacity (calls without both are in none)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every field, ``window`` as ``{band: calls}``."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}  # not asdict: it deep-copies every value
        d["window"] = dict(zip((b[0] for b in WINDOW_BANDS), self.window))
        return d


_CUMULATIVE = ("count(*) FILTER (WHERE capacity > 0 AND input_tokens * 2 < capacity), "
               "count(*) FILTER (WHERE capacity > 0 AND input_tokens * 10 < capacity * 8), "
               "count(*) FILTER (WHERE capacity > 0 AND input_tokens * 10 < capacity * 9), "
               "count(*) FILTER (WHERE capacity > 0 AND input_tokens < capacity), "
               "count(input_tokens) FILTER (WHERE capacity > 0)")
"""Calls under 50 %, 80 %, 90 % and 100 % of C, and all with both input and C recorded: the
:data:`WINDOW_BANDS` as cumulative counts, in integer products (no division per row, and one
comparison per count instead of a CASE per band); :func:`_group` takes the differences."""

_SELECT = ("count(*), coalesce(sum(input_tokens), 0), count(input_tokens), coalesce(sum(output_tokens), 0), "
           "count(output_tokens), coalesce(sum(cost), 0.0), count(cost), sum(duration_ms), max(duration_ms), "
           "count(duration_ms), count(*) FILTER (WHERE state = 'ok'), count(*) FILTER (WHERE state = 'warning'), "
           "count(*) FILTER (WHERE state = 'failure'), count(*) FILTER (WHERE span_status = 'error'), " + _CUMULATIVE)
"""One group's sums over the narrow ``traces`` columns -- all of them in ``idx_traces_aggregate`` and
``idx_traces_aggregate_day`` (:data:`ctxviewer.store.migrations.AGGREGATE_INDEX`), so SQLite reads a
covering index, not the table."""


def _group(key: Any, row: tuple[Any, ...]) -> Group:
    n = [int(v or 0) for v in row[:5]] + [0, int(row[6] or 0), 0, 0] + [int(v or 0) for v in row[9:]]
    c0, c1, c2, c3, both = n[14:19]
    known = n[9]
    return Group(key=None if key is None else str(key), calls=n[0], input_tokens=n[1], input_known=n[2],
                 output_tokens=n[3], output_known=n[4], cost=float(row[5]), cost_known=n[6],
                 duration_mean_ms=float(row[7]) / known if known and row[7] is not None else None,
                 duration_max_ms=None if row[8] is None else float(row[8]), duration_known=known,
                 ok=n[10], warning=n[11], failure=n[12], errors=n[13],
                 window=(c0, c1 - c0, c2 - c1, c3 - c2, both - c3))


def _sum_groups(groups: list[Group]) -> Group:
    """The total of ``groups`` (disjoint, together every matching call): sums, the largest max and
    the mean over every call that recorded a duration -- what one pass over all rows gives."""
    known = sum(g.duration_known for g in groups)
    spent = sum((g.duration_mean_ms or 0.0) * g.duration_known for g in groups)
    maxes = [g.duration_max_ms for g in groups if g.duration_max_ms is not None]
    return Group(key=None, calls=sum(g.calls for g in groups), input_tokens=sum(g.input_tokens for g in groups),
                 input_known=sum(g.input_known for g in groups), output_tokens=sum(g.output_tokens for g in groups),
                 output_known=sum(g.output_known for g in groups), cost=sum(g.cost for g in groups),
                 cost_known=sum(g.cost_known for g in groups), duration_mean_ms=spent / known if known else None,
                 duration_max_ms=max(maxes) if maxes else None, duration_known=known,
                 ok=sum(g.ok for g in groups), warning=sum(g.warning for g in groups),
                 failure=sum(g.failure for g in groups), errors=sum(g.errors for g in groups),
                 window=tuple(sum(g.window[i] for g in groups) for i in range(len(WINDOW_BANDS))))


def aggregate_sql(by: str | None, where: str = "1") -> str:
    """The one statement :meth:`TraceAggregates.aggregate` runs: the sums of the rows ``where`` keeps
    (SQL over ``traces``; ``"1"``: all), grouped by ``by``'s key (:data:`GROUP_KEYS`) when given.
    Without a filter the total and by model read the covering ``idx_traces_aggregate``, by day
    ``idx_traces_aggregate_day``, by session ``idx_traces_aggregate_session`` (schema 11), each in
    its key's order (no sort). Raises ``KeyError`` for another ``by``."""
    source = f"traces WHERE {where}" if where != "1" else "traces"
    if by is None:
        return f"SELECT {_SELECT} FROM {source}"
    return f"SELECT {GROUP_KEYS[by]} AS k, {_SELECT} FROM {source} GROUP BY k ORDER BY k"


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
            rows = self._conn.execute(aggregate_sql(by, where), params).fetchall()
            if by is None:
                return _group(None, rows[0]), []
            groups = [_group(r[0], r[1:]) for r in rows]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot aggregate traces", exc) from None
        total = _sum_groups(groups)  # one pass: the total is the groups' (every call is in one group)
        return total, groups
