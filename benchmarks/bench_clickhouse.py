"""Benchmark: the ClickHouse backend (:mod:`ctxviewer.pipeline.clickhouse`) on chDB, in-process.

Creates the OpenTelemetry Collector exporter's ``otel_traces`` (Map flavour, DDL verbatim from
``tests/data/clickhouse/otel_traces_map.sql``) in a temporary chDB directory and fills it in SQL
(``INSERT ... SELECT FROM numbers(N)``, a million rows an INSERT: memory stays flat) with ``--spans`` spans spread over 48 hours -- every second
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

and each as a ratio to the floor; then the Python heap's peak (``tracemalloc``: ctxviewer's and the
client's objects, not chDB's engine, which is a server's memory in production) while paging
through ``--pages`` pages of 100 by key and counting -- run at two ``--spans`` sizes, equal
figures mean memory flat in the number of spans (the issue's budget). The issue's budgets (10M spans, 2 cores: first page <= 300 ms,
<= 150 ms with the accelerator; load one span <= 30 ms, fast count <= 100 ms) are for a server; the
machine is shared, so compare ratios within one run.

``--accelerators`` also copies the spans into a second table with the README's optional
accelerators (the materialized ``gen_ai_*`` columns and the ``idx_gen_ai_input`` text index,
:data:`tests.store.clickhouse_spans.ACCELERATORS`, added before the copy so inserts fill them) and
prints first page, next page, count, load one span, fast count, a search's first hits and a no-hit
search (the whole window, one run) on both tables side by side, with the ratio without / with.
(Search does not use the text index: commit 668d661's version of this benchmark measured it on
the accelerated table, index path off vs on.)
``--optimize`` then merges both tables' parts (``OPTIMIZE TABLE ... FINAL``) and measures them
again: a table still merging reads more parts per query.
``--message-bytes N`` pads each chat span's input message with N bytes of words (the default 0
keeps the one short question: then ``SpanAttributes`` is small and the accelerators gain little).

Example:
    .venv/bin/python benchmarks/bench_clickhouse.py --spans 1000000 --repeat 5
    .venv/bin/python benchmarks/bench_clickhouse.py --spans 4000000 --message-bytes 2000 --accelerators
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
                                              toString(number), {pad:String}, '"}]}]')),
          map('gen_ai.operation.name', 'execute_tool', 'gen_ai.tool.name', 'lookup')),
       500000000, 'Ok', ''
FROM numbers({start:UInt64}, {n:UInt64})
"""


def _cancel_ms(src: Any, call: Callable[[Callable[[], bool]], Any], after_s: float = 0.15) -> float:
    """Run ``call(cancelled)`` on a thread, cancel it after ``after_s`` as the window does (the
    worker's flag, then :meth:`cancel`: ``KILL QUERY``); ms from the cancel until the call has
    returned or raised (a call done before the cancel counts 0)."""
    import threading

    done, flag = threading.Event(), threading.Event()

    def run() -> None:
        try:
            call(flag.is_set)
        except Exception:  # the killed query's StoreError
            pass
        done.set()

    threading.Thread(target=run, daemon=True).start()
    if done.wait(after_s):
        return 0.0
    t0 = time.perf_counter()
    flag.set()
    src.cancel()
    done.wait(30)
    return (time.perf_counter() - t0) * 1000


def _fill(client: Any, sql: str, now: int, step: int, n: int, pad: str, chunk: int = 1_000_000) -> None:
    """Run the ``FILL`` statement ``sql`` for spans ``0 .. n - 1``, ``chunk`` spans an INSERT."""
    for start in range(0, n, chunk):
        client.command(sql, parameters={"now": now, "step": step, "start": start, "n": min(chunk, n - start),
                                        "pad": pad})


def _padding(n: int) -> str:
    """``n`` bytes of filler words (``" lorem ipsum dolor ..."``) for the input messages."""
    words = " lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"
    return (words * (n // len(words) + 1))[:n]


def _accelerated(client: Any, now: int, n: int, step: int, pad: str) -> float:
    """``bench.otel_traces_acc``: the exporter's table with the accelerators added while empty,
    then the same spans inserted (:data:`FILL`); seconds taken."""
    from tests.store.clickhouse_spans import accelerate, create_table

    t0 = time.perf_counter()
    create_table(client, "bench", "otel_traces_acc")
    accelerate(client, "bench", "otel_traces_acc")
    _fill(client, FILL.replace("bench.otel_traces ", "bench.otel_traces_acc "), now, step, n, pad)
    return time.perf_counter() - t0


def _ms_pair(fn: Callable[[Any], Any], a: Any, b: Any, repeat: int) -> tuple[float, float]:
    """Medians in ms of ``fn(a)`` and ``fn(b)``, the runs alternated (a, b, a, b...) so both
    see the same load of the shared machine."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for side, src in enumerate((a, b)):
            t0 = time.perf_counter()
            fn(src)
            times[side].append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


def _side_by_side(plain: Any, fast: Any, now: int, repeat: int, floor: float) -> None:
    """Print each measure on both sources (the same rows first checked): ms without, ms with, ratio."""
    middle = (now - 12 * 3600 * 10**9, "")
    tid = plain.first_rows(limit=1)[0][1].trace_id
    assert fast.first_rows(limit=100) == plain.first_rows(limit=100)
    assert fast.count() == plain.count()
    measures: list[tuple[str, Callable[[Any], Any], int]] = [
        ("first page (100)", lambda s: s.first_rows(limit=100), repeat),
        ("first page, model ~ gpt", lambda s: s.first_rows(*s.filter_where(_query("model ~ gpt")), limit=100), repeat),
        ("next page (100)", lambda s: s._rows_after(middle, 100), repeat),
        ("count", lambda s: s.count(), repeat),
        ("load one span", lambda s: s.load(tid), repeat),
        ("fast count", lambda s: s.estimate_count(), repeat),
        ("search 'question' (10)", lambda s: s.search("question", limit=10), repeat),
        ("no-hit search (window)", lambda s: s.search("zzqqnohit", limit=10), 1),
    ]
    print(f"  {'':<26} {'without':>10} {'with':>10}   without / with   (accelerators)")
    for name, fn, times in measures:
        a, b = _ms_pair(fn, plain, fast, times)
        print(f"  {name:<26} {a:7.1f} ms {b:7.1f} ms   {a / b:6.2f}x        ({b / floor:.1f}x floor with)")


def _query(text: str) -> Any:
    from ctxviewer.store import TraceQuery

    return TraceQuery(text=text)


def _heap_peak_mb(src: Any, pages: int) -> tuple[float, int]:
    """Peak Python heap (MB) over ``pages`` keyset pages of 100 (:meth:`stream`) and an exact count,
    and the rows read."""
    import tracemalloc

    tracemalloc.start()
    seen = sum(1 for _ in src.stream(None, pages * 100))  # the CLI's cursor pages (list --limit / --after)
    src.count()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20, seen


def _rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--message-bytes", type=int, default=0, help="filler bytes in each input message")
    ap.add_argument("--accelerators", action="store_true", help="also measure a table with the accelerators")
    ap.add_argument("--pages", type=int, default=50, help="keyset pages of 100 read for the heap's peak")
    ap.add_argument("--optimize", action="store_true",
                    help="with --accelerators: OPTIMIZE TABLE ... FINAL both tables (parts merged) and measure again")
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
        pad = _padding(args.message_bytes)
        _fill(client, FILL, now, step, args.spans, pad)
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
        cancel_count = _cancel_ms(src, lambda _cancelled: src.count())
        cancel_search = _cancel_ms(src, lambda cancelled: src.search("zzqqnohit", limit=10, cancelled=cancelled))
        rss = _rss_mb()
        print(f"{args.spans:,} spans ({count:,} chat spans in the 24 h window), filled in {fill_s:.1f} s")
        for name, ms in (("floor (SELECT 1)", floor), ("open", open_ms), ("first page (100)", first),
                         ("next page (100)", nxt), ("count", count_ms), ("load one span", load),
                         (f"fast count (<= {bound:,})", bound_ms), ("cancel exact count", cancel_count),
                         ("cancel no-hit search", cancel_search)):
            print(f"  {name:<26} {ms:8.1f} ms   {ms / floor:7.1f}x floor")
        print(f"  max RSS {rss:,.0f} MB (the process, chDB's engine and its data cache included)")
        heap, seen = _heap_peak_mb(src, args.pages)
        print(f"  Python heap peak {heap:.1f} MB paging {seen:,} rows ({args.pages} pages of 100) and counting")
        if args.accelerators:
            acc_s = _accelerated(client, now, args.spans, step, pad)
            fast = ClickHouseSource(parse_target(f"chdb://{folder}/bench?table=otel_traces_acc"), client=client)
            assert fast.schema.materialized and fast.schema.input_index, "accelerators not detected"
            fast.window = src.window  # the same window (each is fixed when its source opens)
            print(f"accelerated copy (columns and text index) written in {acc_s:.1f} s, "
                  f"{args.message_bytes} filler bytes per input message")
            _side_by_side(src, fast, now, args.repeat, floor)
            if args.optimize:
                parts = "SELECT count() FROM system.parts WHERE database = 'bench' AND table = {t:String} AND active"
                before = [client.query(parts, parameters={"t": t}).result_rows[0][0] for t in ("otel_traces", "otel_traces_acc")]
                t0 = time.perf_counter()
                for t in ("otel_traces", "otel_traces_acc"):
                    client.command(f"OPTIMIZE TABLE bench.{t} FINAL")
                after = [client.query(parts, parameters={"t": t}).result_rows[0][0] for t in ("otel_traces", "otel_traces_acc")]
                print(f"both tables merged (OPTIMIZE ... FINAL, {time.perf_counter() - t0:.1f} s): active parts "
                      f"{before[0]} -> {after[0]} without, {before[1]} -> {after[1]} with the accelerators")
                _side_by_side(src, fast, now, args.repeat, floor)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
