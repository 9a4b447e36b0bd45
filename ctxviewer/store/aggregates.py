"""Aggregates over the trace list or a display filter: calls, tokens, cost, latency, state counts
and context-window use, by model, by session or by day -- one SQL ``GROUP BY`` over the narrow
``traces`` columns (:meth:`TraceAggregates.aggregate`), never over payloads, so a million rows
answer in one pass. ``ctxviewer stats`` prints them. No Qt here.

Sums count only what was recorded, and say how many calls that was: ``cost`` is the sum of the
costs genai-prices knows (:mod:`ctxviewer.store.call_columns`), ``cost_known`` how many calls
those were -- a total over calls with unknown prices is a lower bound, said as such, never a
total with 0 for the unknown ones.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
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
        d = asdict(self)
        d["window"] = dict(zip((b[0] for b in WINDOW_BANDS), self.window))
        return d


_BAND = ("CASE WHEN capacity > 0 THEN CASE WHEN input_tokens * 2 < capacity THEN 0 "
         "WHEN input_tokens * 10 < capacity * 8 THEN 1 WHEN input_tokens * 10 < capacity * 9 THEN 2 "
         "WHEN input_tokens < capacity THEN 3 WHEN input_tokens IS NOT NULL THEN 4 END END")
"""The :data:`WINDOW_BANDS` band (0-4) of a row's input / capacity, in integer products (no
division per row); NULL when either is not recorded."""

_INNER = ("input_tokens, output_tokens, cost, duration_ms, state, span_status, " + _BAND + " AS band")


def _select() -> str:
    bands = ", ".join(f"coalesce(sum(band = {i}), 0)" for i in range(len(WINDOW_BANDS)))
    return ("count(*), coalesce(sum(input_tokens), 0), count(input_tokens), coalesce(sum(output_tokens), 0), "
            "count(output_tokens), coalesce(sum(cost), 0.0), count(cost), avg(duration_ms), max(duration_ms), "
            "count(duration_ms), coalesce(sum(state = 'ok'), 0), coalesce(sum(state = 'warning'), 0), "
            f"coalesce(sum(state = 'failure'), 0), coalesce(sum(span_status = 'error'), 0), {bands}")


def _group(key: Any, row: tuple[Any, ...]) -> Group:
    n = [int(v or 0) for v in row[:5]] + [0] + [int(v or 0) for v in row[6:]]  # row[5], the cost: a float
    return Group(key=None if key is None else str(key), calls=n[0], input_tokens=n[1], input_known=n[2],
                 output_tokens=n[3], output_known=n[4], cost=float(row[5]), cost_known=n[6],
                 duration_mean_ms=None if row[7] is None else float(row[7]),
                 duration_max_ms=None if row[8] is None else float(row[8]), duration_known=n[9],
                 ok=n[10], warning=n[11], failure=n[12], errors=n[13], window=tuple(n[14:]))


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
        # no filter: one pass over the table (an index walk in key order reads every row at random)
        source = "traces NOT INDEXED" if where == "1" else f"traces WHERE {where}"
        try:
            total = _group(None, self._conn.execute(f"SELECT {_select()} FROM (SELECT {_INNER} FROM {source})",
                                                    params).fetchone())
            groups = []
            if by is not None:
                inner = f"SELECT {GROUP_KEYS[by]} AS k, {_INNER} FROM {source}"
                sql = f"SELECT k, {_select()} FROM ({inner}) GROUP BY k ORDER BY k"
                groups = [_group(r[0], r[1:]) for r in self._conn.execute(sql, params)]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot aggregate traces", exc) from None
        return total, groups
