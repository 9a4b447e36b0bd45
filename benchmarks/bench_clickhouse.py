"""Benchmark: the ClickHouse backend (:mod:`ctxviewer.pipeline.clickhouse`) on chDB, in-process.

Creates the OpenTelemetry Collector exporter's ``otel_traces`` (Map flavour, DDL verbatim from
``tests/data/clickhouse/otel_traces_map.sql``) in a temporary chDB directory and fills it in SQL
(``INSERT ... SELECT FROM numbers(N)``) with ``--spans`` spans spread over 48 hours -- every second
one a chat span with model, usage and one input message, the rest ``execute_tool`` spans -- so
the default 24 h window holds about a quarter of them as chat spans. Then prints wall-clock
medians in ms (``--repeat``) of:

* floor -- ``SELECT 1`` through the same client (the engine's per-query cost);
* open -- :class:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource` (``system.columns`` and ``version()``);
* first page -- :meth:`first_rows` (100 rows, keyset on ``(Timestamp, SpanId)``, time window);
* next page -- the page after a key in the middle of the window (what ``list --after`` runs);
* count -- the exact count of chat spans in the window;
* load one span -- :meth:`load` (its OTel trace's spans by ``TraceId``, mapped, counted);
* fast count -- :meth:`estimate_count` (``EXPLAIN ESTIMATE``: the upper bound shown "≤ N");
* cancel exact count / no-hit search -- ms from :meth:`cancel` (``KILL QUERY``) to the call's end;

and each as a ratio to the floor. The issue's budgets (10M spans, 2 cores: first page <= 300 ms,
load one span <= 30 ms, fast count <= 100 ms) are for a server; the machine is shared, so compare
ratios within one run.

Example:
    .venv/bin/python benchmarks/bench_clickhouse.py --spans 1000000 --repeat 5
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]


def _ms(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


FILL = """
INSERT INTO bench.otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind,
    ServiceName, ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode, StatusMessage)
SELECT fromUnixTimestamp64Nano(toInt64({now:Int64} - number * {step:Int64})),
       leftPad(lower(hex(intDiv(number, 2))), 32, '0'), leftPad(lower(hex(number)), 16, '0'),
       if(number % 2 = 0, leftPad(lower(hex(number + 1)), 16, '0'), ''), '',
       if(number % 2 = 0, 'chat gpt-4o-mini', 'execute_tool lookup'), 'Client', 'bench',
       map('service.name', 'bench'), 'gen', '1.0',
       if(number % 2 = 0,
          map('gen_ai.operation.name', 'chat', 'gen_ai.request.model', 'gpt-4o-mini',
              'gen_ai.provider.name', 'openai', 'gen_ai.usage.input_tokens', toString(number % 1000),
              'gen_ai.input.messages', concat('[{"role":"user","parts":[{"type":"text","content":"question ',
                                              toString(number), '"}]}]')),
          map('gen_ai.operation.name', 'execute_tool', 'gen_ai.tool.name', 'lookup')),
       500000000, 'Ok', ''
FROM numbers({n:UInt64})
"""


def _cancel_ms(src: Any, call: Callable[[], Any], after_s: float = 0.15) -> float:
    """Run ``call`` on a thread, :meth:`cancel` it after ``after_s``; ms from the cancel until the
    call has returned or raised (a call done before the cancel counts 0)."""
    import threading

    done = threading.Event()

    def run() -> None:
        try:
            call()
        except Exception:  # the killed query's StoreError
            pass
        done.set()

    threading.Thread(target=run, daemon=True).start()
    if done.wait(after_s):
        return 0.0
    t0 = time.perf_counter()
    src.cancel()
    done.wait(30)
    return (time.perf_counter() - t0) * 1000


def _rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import clickhouse_connect

    sys.path.insert(0, str(ROOT))
    from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
    from ctxviewer.pipeline.clickhouse.target import parse_target
    from tests.store.clickhouse_spans import create_table

    folder = Path(tempfile.mkdtemp(prefix="bench-chdb-"))
    try:
        client = clickhouse_connect.get_client(dsn=f"chdb://{folder}")
        create_table(client, "bench", "otel_traces")
        now = time.time_ns()
        step = 48 * 3600 * 10**9 // args.spans
        t0 = time.perf_counter()
        client.command(FILL, parameters={"now": now, "step": step, "n": args.spans})
        fill_s = time.perf_counter() - t0
        url = f"chdb://{folder}/bench?table=otel_traces"
        floor = _ms(lambda: client.query("SELECT 1"), args.repeat)
        open_ms = _ms(lambda: ClickHouseSource(parse_target(url), client=client), args.repeat)
        src = ClickHouseSource(parse_target(url), client=client)
        first = _ms(lambda: src.first_rows(limit=100), args.repeat)
        middle = (now - 12 * 3600 * 10**9, "")
        nxt = _ms(lambda: src._rows_after(middle, 100), args.repeat)
        count = src.count()
        count_ms = _ms(src.count, args.repeat)
        tid = src.first_rows(limit=1)[0][1].trace_id
        load = _ms(lambda: src.load(tid), args.repeat)
        bound = src.estimate_count()
        bound_ms = _ms(src.estimate_count, args.repeat)
        cancel_count = _cancel_ms(src, src.count)
        cancel_search = _cancel_ms(src, lambda: src.search("zzqqnohit", limit=10))
        rss = _rss_mb()
        print(f"{args.spans:,} spans ({count:,} chat spans in the 24 h window), filled in {fill_s:.1f} s")
        for name, ms in (("floor (SELECT 1)", floor), ("open", open_ms), ("first page (100)", first),
                         ("next page (100)", nxt), ("count", count_ms), ("load one span", load),
                         (f"fast count (<= {bound:,})", bound_ms), ("cancel exact count", cancel_count),
                         ("cancel no-hit search", cancel_search)):
            print(f"  {name:<26} {ms:8.1f} ms   {ms / floor:7.1f}x floor")
        print(f"  max RSS {rss:,.0f} MB (the process, chDB's engine and its data cache included)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
