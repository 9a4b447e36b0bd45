"""Benchmark: the trace list over a large database (issue #2: "databases of a million traces").

Builds (or reuses) a database of N traces made from ``tests/factories.make_trace`` with varied ids,
models and times, then times the operations the window performs: count, the first page of the
list in three sort orders, a filtered page, a page deep into the list, and loading one trace.

    python benchmarks/bench_store.py --traces 200000 --db /tmp/bench.db

Prints one line per operation with the median of --repeat runs in ms. Not a test: figures depend on
the machine. Times are wall-clock (time.perf_counter).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ctxviewer.model.trace import Endpoint  # noqa: E402
from ctxviewer.pipeline.stored_facts import with_facts  # noqa: E402
from ctxviewer.store import TraceQuery, TraceStore  # noqa: E402
from tests.factories import make_trace  # noqa: E402

MODELS = ("gpt-4o-mini", "gpt-4o", "claude-sonnet-4", "gemini-2.5-pro")


def build(db: Path, n: int) -> float:
    """Create ``db`` with ``n`` traces; returns seconds taken."""
    base = make_trace()
    assert base.created is not None
    t0 = time.perf_counter()
    with TraceStore.create(db) as st:
        batch = 20_000
        for start in range(0, n, batch):
            st.add(with_facts(
                replace(
                    base,
                    trace_id=f"tr-{i:07d}",
                    created=base.created + timedelta(seconds=i * 7 % 86_400_00),
                    endpoint=replace(base.endpoint, model=MODELS[i % len(MODELS)]) if base.endpoint else Endpoint(),
                )
                for i in range(start, min(n, start + batch))
            ))
    return time.perf_counter() - t0


def timed(fn, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t0) * 1000)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=100_000)
    ap.add_argument("--db", type=Path, default=Path("/tmp/ctxviewer-bench.db"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not args.db.exists():
        secs = build(args.db, args.traces)
        print(f"built {args.traces:,} traces in {secs:.1f} s ({args.db.stat().st_size / 1e6:.1f} MB)")
    st = TraceStore.open(args.db)
    n = st.count()
    print(f"database: {n:,} traces")
    ops = {
        "count()": lambda: st.count(),
        "list first 200, by created": lambda: st.list(TraceQuery(), 0, 200),
        "list first 200, by model desc": lambda: st.list(TraceQuery(sort="model", descending=True), 0, 200),
        "list first 200, by input_tokens": lambda: st.list(TraceQuery(sort="input_tokens"), 0, 200),
        "list 200 at offset n/2": lambda: st.list(TraceQuery(), n // 2, 200),
        "count(filter 'claude')": lambda: st.count(TraceQuery(text="claude")),
        "list first 200, filter 'claude'": lambda: st.list(TraceQuery(text="claude"), 0, 200),
        "load(one trace)": lambda: st.load(f"tr-{n // 3:07d}"),
    }
    for name, fn in ops.items():
        print(f"{name:<34}{timed(fn, args.repeat):9.1f} ms")
    st.close()


if __name__ == "__main__":
    main()
