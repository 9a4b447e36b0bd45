"""What a model call cost and took, on its ``traces`` row (schema 8): ``cost``, ``output_tokens``,
``duration_ms`` -- the trace list's Cost column, the ``cost`` / ``output`` / ``duration`` display
filters and the sums of ``ctxviewer stats``, read from the
narrow row, never from the payloads.

* ``cost`` -- US dollars, :func:`ctxviewer.tokens.cost.call_cost` of the recorded usage (priced by
  genai-prices at the time the call was sent), as a REAL; NULL when the price is not known (never 0).
* ``output_tokens`` -- the provider-reported output tokens (``gen_ai.usage.output_tokens``), tokens.
* ``duration_ms`` -- the span's duration (``ctxviewer.duration_ms``: end minus start, or the duration
  the source recorded without its times, promptfoo's ``latencyMs``), milliseconds;
  NULL when the span recorded no end or the duration is negative (end before start: not a latency).

No Qt here.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Any, Mapping

from ctxviewer.model.times import stored_time

if TYPE_CHECKING:
    from ctxviewer.model.trace import RequestTrace, Usage

CALL_COLUMNS: tuple[str, ...] = ("cost", "output_tokens", "duration_ms")
"""``traces`` columns written from :func:`call_values` (schema 8, ``m016_call_columns``), in that order."""

DURATION_KEY = "ctxviewer.duration_ms"
"""The trace attribute the importers write the span's duration under (milliseconds)."""


def _duration(attributes: Mapping[str, Any]) -> float | None:
    ms = attributes.get(DURATION_KEY)
    if isinstance(ms, bool) or not isinstance(ms, (int, float)) or ms < 0:
        return None
    return float(ms)


def values(provider: str | None, model: str | None, created: datetime | None, usage: Usage,
           attributes: Mapping[str, Any]) -> tuple[float | None, int | None, float | None]:
    """``(cost USD, output tokens, duration ms)`` for :data:`CALL_COLUMNS` (module docstring)."""
    from ctxviewer.tokens.cost import call_cost  # the price library: for writes, not for a list's columns

    cost = call_cost(provider, model, created, usage)
    return (None if cost.total is None else float(cost.total), usage.output_tokens, _duration(attributes))


def call_values(trace: RequestTrace) -> tuple[float | None, int | None, float | None]:
    """The :data:`CALL_COLUMNS` values of ``trace``."""
    ep = trace.endpoint
    return values(ep.provider, ep.model, trace.created, trace.usage, trace.attributes)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _from_details(created: str | None, doc: Mapping[str, Any]) -> tuple[float | None, int | None, float | None]:
    from ctxviewer.model.trace import Usage

    u, ep, attrs = (_mapping(doc.get(key)) for key in ("usage", "endpoint", "attributes"))
    usage = Usage(_int(u.get("input_tokens")), _int(u.get("output_tokens")), _int(u.get("cached_input_tokens")),
                  _int(u.get("cache_creation_input_tokens")), _int(u.get("reasoning_tokens")))
    when = stored_time(created)
    return values(ep.get("provider"), ep.get("model"), when, usage, attrs)


def backfill(conn: sqlite3.Connection, chunk: int = 5000) -> int:
    """Fill :data:`CALL_COLUMNS` of every ``traces`` row from its ``details`` JSON (schema step
    ``m016_call_columns``). Returns the rows given a value."""
    sql = f"UPDATE traces SET {', '.join(f'{c} = ?' for c in CALL_COLUMNS)} WHERE trace_id = ?"
    cur = conn.execute("SELECT t.trace_id, t.created, d.json FROM traces t JOIN details d ON d.trace_id = t.trace_id")
    n = 0
    while True:
        rows = cur.fetchmany(chunk)
        if not rows:
            return n
        out = []
        for trace_id, created, text in rows:
            try:
                doc = json.loads(text)
            except ValueError:
                continue
            if isinstance(doc, dict):
                vals = _from_details(created, doc)
                if any(v is not None for v in vals):
                    out.append((*vals, trace_id))
        conn.executemany(sql, out)
        n += len(out)
