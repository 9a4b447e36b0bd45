"""Benchmark: display filters and full-text search on a generated database (issue 11).

Times what the window does when the user filters or searches a large database:

* **filter, first page** -- the first 200 rows of the list in send order for a display filter
  (:meth:`TraceStore.filter_where`: compiled, probed and planned, timed with the query; then
  ``ORDER BY created, trace_id LIMIT 200``); goal p95 <= 100 ms. The floor is the same page
  without a filter (a bare index walk).
* **filter, exact count** -- ``count(*)`` of the matching rows, which the window computes off the
  GUI thread; goal <= 500 ms. The floor is ``count(*)`` of all rows.
* **search, first page of hits** -- :meth:`TraceStore.search` (one page) with ``limit=50``; goal
  p95 <= 50 ms.
  The floor is the bare FTS5 ``MATCH ... LIMIT 50`` on the index.

    python benchmarks/gen_traces.py --traces 1000000 --db /tmp/gen-1m.db
    python benchmarks/bench_filter_search.py --db /tmp/gen-1m.db --repeat 20

Prints median and p95 in ms per query, each with its ratio to the floor measured in the same run,
plus the first (cold) run. Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ctxviewer.store import TraceQuery, TraceStore  # noqa: E402
from ctxviewer.store.filters import compile_filter  # noqa: E402
from ctxviewer.store.fts import match_expression  # noqa: E402

FILTERS = (
    'model ~ "gpt-4o" and omitted > 2 and finding == "injection" and capacity < 16000 and conversation == "c-17"',
    'model ~ "gpt-4o"',
    "omitted > 2",
    "finding == injection",
    "capacity < 16000",
    "conversation == c-4711",
    "state == failure and service == billing-bot",
    "claude",
    "item(kind == evidence and status == omitted)",
    'text ~ "ignore previous"',
    "status == error",  # schema 5 (issue 13): span status, agent, operation
    'agent == "billing-bot-agent"',
    "agent ~ billing",
    "operation == chat and status == error",
)
SEARCHES = ("ignore previous", "refund", "ship", '"order number"', "igno prev", "shipping delays", "prezzz", "zyzzyva")
PAGE = 200


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, float, Any]:
    """``(first ms, median ms, p95 ms, last result)`` of ``repeat`` + 1 calls."""
    t0 = time.perf_counter()
    result = fn()
    first = (time.perf_counter() - t0) * 1000
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        runs.append((time.perf_counter() - t0) * 1000)
    runs.sort()
    p95 = runs[min(len(runs) - 1, round(0.95 * (len(runs) - 1)))]
    return first, statistics.median(runs), p95, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--no-count", action="store_true", help="skip the exact counts (slow on 1M)")
    args = ap.parse_args()
    store = TraceStore.open(args.db)
    conn = store._conn
    cols = "rowid, trace_id, created, model, capacity, input_tokens, retained_count, omitted_count, state"

    def page(text: str) -> Callable[[], Any]:
        query = TraceQuery(text=text)

        def run() -> Any:
            where, params = store.filter_where(query)
            sql = f"SELECT {cols} FROM traces WHERE ({where}) ORDER BY created, trace_id LIMIT {PAGE}"
            return conn.execute(sql, params).fetchall()
        return run

    def count(where: str, params: tuple[Any, ...]) -> Callable[[], Any]:
        sql = f"SELECT count(*) FROM traces WHERE ({where})"
        return lambda: conn.execute(sql, params).fetchone()[0]

    total = conn.execute("SELECT count(*) FROM traces").fetchone()[0]
    print(f"{args.db}: {total:,} traces, repeat {args.repeat}")
    _, floor_page, floor_page95, _ = timed(page(""), args.repeat)
    print(f"floor: first page, no filter      median {floor_page:7.2f} ms  p95 {floor_page95:7.2f} ms")
    floor_count = 0.0
    if not args.no_count:
        _, floor_count, _, _ = timed(count("1", ()), max(3, args.repeat // 4))
        print(f"floor: count(*) of all rows       median {floor_count:7.2f} ms")
    print()
    print(f"{'filter':<60} {'rows':>8} {'first':>8} {'median':>8} {'p95':>8} {'x floor':>8} {'count ms':>9}")
    for text in FILTERS:
        c = compile_filter(text)
        first, med, p95, rows = timed(page(text), args.repeat)
        n = ""
        cms = ""
        if not args.no_count:
            _, cmed, _, n = timed(count(c.where, c.params), 2)
            cms = f"{cmed:9.1f}"
        label = text if len(text) <= 58 else text[:55] + "..."
        print(f"{label:<60} {n!s:>8} {first:8.1f} {med:8.2f} {p95:8.2f} {p95 / max(floor_page95, 1e-3):8.1f} {cms}")
    print()
    print(f"{'search (first 50 hits)':<30} {'hits':>5} {'first':>8} {'median':>8} {'p95':>8} {'floor p95':>10} {'x floor':>8}")
    for q in SEARCHES:
        expr = match_expression(q)
        _, _, fp95, _ = timed(lambda e=expr: conn.execute(
            "SELECT rowid FROM content_fts WHERE content_fts MATCH ? LIMIT 50", (e,)).fetchall(), args.repeat)
        first, med, p95, hits = timed(lambda q=q: store.search(q, limit=50).hits, args.repeat)
        print(f"{q:<30} {len(hits):>5} {first:8.1f} {med:8.2f} {p95:8.2f} {fp95:10.2f} {p95 / max(fp95, 1e-3):8.1f}")
    store.close()


if __name__ == "__main__":
    main()
