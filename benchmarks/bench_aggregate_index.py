"""Benchmark: ``ctxviewer stats`` SQL with and without the covering indexes ``idx_traces_aggregate``
and ``idx_traces_aggregate_day`` (schema 10) and ``idx_traces_aggregate_session`` (schema 11) on the
``traces`` table of a large database (issue 22 item 5: 1M traces within the list's 500 ms filter
budget), the per-session rollup (schema 12) that answers ``--by session`` unfiltered, and the
sessions list's first page (100 sessions).

The ``traces`` table of ``--db`` (a ``gen_traces.py`` database of schema 8 or later, only read) is
copied into a scratch file -- the table alone, so a 10 GB database need not be upgraded to
measure it -- where the indexes are built; then the statement :meth:`TraceStore.aggregate` runs
(:func:`ctxviewer.store.aggregates.aggregate_sql`) is timed as it is (``index``) and, for the total,
by model, by day and by session, with the indexes out of reach (``table``: ``NOT INDEXED``), interleaved, best of
``--repeat``. Since schema 12 ``--by session`` unfiltered reads the per-session rollup:
``session rollup SQL`` is its statement with every session's row fetched, ``session rollup`` the
whole of :meth:`TraceStore.aggregate` (rows sorted, decoded into 220k Python groups, the total
summed: what ``ctxviewer stats --by session`` prints), and ``window by session`` / ``window by day``
what the Statistics window asks (:meth:`TraceStore.aggregate_top`: the 200 groups with the most
calls and the total, ranked and summed in SQLite); the rollup's build from the table is timed once. The floor is
one column summed over the table; figures are ms and ratios to it in this run.

    python benchmarks/bench_aggregate_index.py --db /tmp/gen-1m.db --repeat 5

Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ctxviewer.store import session_rollup  # noqa: E402
from ctxviewer.store.aggregates import aggregate_sql, top_sql  # noqa: E402
from ctxviewer.store.group_sums import group_of, sum_groups  # noqa: E402
from ctxviewer.store.migrations import (  # noqa: E402
    AGGREGATE_DAY_INDEX_V12,
    AGGREGATE_INDEX_V12,
    AGGREGATE_SESSION_INDEX,
)
from ctxviewer.store.sessions import _SUMMARY  # noqa: E402

BUDGET_MS = 500.0
"""The trace list's exact count of a filter (benchmarks/bench_filter_search.py)."""


def scratch_copy(db: Path, out: Path) -> int:
    """Copy ``db``'s ``traces`` table (same DDL and rows) into the new file ``out`` and build the
    aggregate indexes there; returns the rows."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as src:
        ddl = src.execute("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'traces'").fetchone()[0]
    conn = sqlite3.connect(out)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute(ddl)
    conn.execute("ATTACH ? AS src", (f"file:{db}?mode=ro",))
    conn.execute("INSERT INTO traces SELECT * FROM src.traces")
    conn.commit()
    conn.execute("DETACH src")
    conn.execute("CREATE INDEX IF NOT EXISTS idx_traces_session_id ON traces (session_id)")  # as the store has it
    conn.execute(AGGREGATE_INDEX_V12)  # as schema 12 has them
    conn.execute(AGGREGATE_DAY_INDEX_V12)
    conn.execute(AGGREGATE_SESSION_INDEX)
    conn.execute("ANALYZE idx_traces_aggregate")
    conn.execute("ANALYZE idx_traces_aggregate_day")
    conn.execute("ANALYZE idx_traces_aggregate_session")
    conn.commit()
    t0 = time.perf_counter()
    with conn:
        session_rollup.create(conn)
    print(f"session rollup built from the table in {(time.perf_counter() - t0) * 1000:,.0f} ms")
    n = int(conn.execute("SELECT count(*) FROM traces").fetchone()[0])
    conn.close()
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a gen_traces.py database (only read)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "traces.db"
        rows = scratch_copy(args.db, path)
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        runs = {"floor": "SELECT sum(input_tokens) FROM traces NOT INDEXED"}
        for by in (None, "model", "day", "session"):  # what the indexes serve, and the same SQL kept off them
            sql = aggregate_sql(by)
            runs[f"{by or 'total'} index"] = sql
            runs[f"{by or 'total'} table"] = sql.replace("FROM traces", "FROM traces NOT INDEXED", 1)
        runs["sessions page"] = (f"SELECT {_SUMMARY} FROM traces WHERE session_id IS NOT NULL AND (1) "
                                 "GROUP BY session_id ORDER BY session_id LIMIT 100")  # TraceSessions.sessions
        runs["session rollup SQL"] = session_rollup.READ_SQL  # every session's row, fetched
        runs["window by session"] = top_sql(session_rollup.READ_SQL)  # the Statistics window: top 200 + total
        runs["window by day"] = top_sql(aggregate_sql("day"))
        best = dict.fromkeys([*runs, "session rollup"], float("inf"))
        for _ in range(args.repeat):
            for name, sql in runs.items():
                t0 = time.perf_counter()
                conn.execute(sql, (200,) if name.startswith("window") else ()).fetchall()
                best[name] = min(best[name], (time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            sum_groups([group_of(r[0], r[1:]) for r in session_rollup.read(conn)])
            best["session rollup"] = min(best["session rollup"], (time.perf_counter() - t0) * 1000)
        runs["session rollup"] = session_rollup.READ_SQL
        floor = best.pop("floor")
        print(f"stats SQL over {rows:,} traces; floor: one column summed over the table {floor:.1f} ms")
        for name, ms in best.items():
            plan = " / ".join(str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + runs[name],
                                                                (200,) if name.startswith("window") else ()))
            print(f"  {name:16s} {ms:8.1f} ms {ms / floor:6.1f} x floor  "
                  f"{'within' if ms <= BUDGET_MS else 'over'} {BUDGET_MS:.0f} ms  [{plan}]")
        conn.close()


if __name__ == "__main__":
    main()
