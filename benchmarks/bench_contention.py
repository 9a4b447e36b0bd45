"""Benchmark: painting the trace list while a worker thread runs Python (issue 11: never stopping).

Every call from Qt into Python (each ``data()`` of a painted cell) takes the interpreter lock
(GIL) back; beside a thread that runs Python without pause -- an import parsing a file, the
assessment of a big trace, a what-if, a diff -- each such hand-over waits up to the interpreter's
switch interval (``sys.getswitchinterval()``, 5 ms by default). This script paints the real trace
list (:class:`~ctxviewer.gui.trace_list_model.TraceListModel` in the app's table view, 700x760
px, the page cache emptied before each paint so rows are read as on a first paint) and reports
the paint time (median and p95 of ``--repeat`` paints, wall-clock ms):

* alone (the floor);
* beside a pure-Python loop (the worst case: a thread that never waits);
* beside a loop of ``store.load`` + :func:`~ctxviewer.assess.assessment.assess` on the list's traces
  (real work: SQLite, JSON decoding, the model's structuring, the checks);
* beside SQLite counting in C (releases the lock: should cost little);

each at the default switch interval and at :data:`ctxviewer.gui.app.SWITCH_INTERVAL_S`, the one
the app sets. Also the pure-Python loop's own throughput at both intervals when the GUI thread is
idle and when it paints, so the price paid by the worker is visible. Not a test::

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_contention.py --db /tmp/gen-1m.db
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=Path("sample_traces/samples.db"))
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    default_si = sys.getswitchinterval()
    from ctxviewer.gui.app import SWITCH_INTERVAL_S, application
    from ctxviewer.gui.tables import make_table
    from ctxviewer.gui.trace_list_model import TraceListModel
    from ctxviewer.store import TraceStore

    app = application([])
    sys.setswitchinterval(default_si)
    st = TraceStore.open(args.db)
    model = TraceListModel(st, threaded=False)
    view = make_table(model)
    view.resize(700, 760)
    view.show()
    for _ in range(20):
        app.processEvents()
        time.sleep(0.005)
    ids = [model.trace_id(r) for r in range(min(20, model.rowCount()))]
    print(f"uptime: {Path('/proc/loadavg').read_text().split()[:3]}; {args.db}: {model.rowCount():,} traces; "
          f"switch interval: default {default_si * 1000:g} ms, the app's {SWITCH_INTERVAL_S * 1000:g} ms")

    def paints() -> list[float]:
        out = []
        for _ in range(args.repeat):
            model._pages.clear()  # rows read by key again, as on a first paint
            t0 = time.perf_counter()
            view.viewport().repaint()
            out.append((time.perf_counter() - t0) * 1000)
            app.processEvents()
        return out

    stop = threading.Event()
    spins = [0]

    def python_loop() -> None:
        while not stop.is_set():
            x = 0
            for i in range(10_000):
                x += i
            spins[0] += 1

    def load_assess() -> None:
        from ctxviewer.assess.assessment import assess

        reader = st.reader()
        try:
            while not stop.is_set():
                for tid in ids:
                    if stop.is_set():
                        break
                    if tid is not None:
                        assess(reader.load(tid))
        finally:
            reader.close()

    def sqlite_count() -> None:
        conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        while not stop.is_set():
            conn.execute("SELECT count(*) FROM traces WHERE model LIKE '%zz%'").fetchall()
        conn.close()

    def beside(worker: Callable[[], None] | None) -> list[float]:
        if worker is None:
            return paints()
        stop.clear()
        t = threading.Thread(target=worker, daemon=True)
        t.start()
        time.sleep(0.2)  # the worker's first-time imports are done
        try:
            return paints()
        finally:
            stop.set()
            t.join()

    def p95(xs: list[float]) -> float:
        s = sorted(xs)
        return s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]

    rows: list[tuple[str, float, list[float]]] = []
    for name, worker in (("alone", None), ("beside a pure-Python loop", python_loop),
                         ("beside load + assess", load_assess), ("beside SQLite counting", sqlite_count)):
        for si in (default_si, SWITCH_INTERVAL_S):
            sys.setswitchinterval(si)
            rows.append((name, si, beside(worker)))
    floor = statistics.median(rows[0][2] + rows[1][2])
    print(f"{'trace list paint':<28} {'interval':>9} {'median':>9} {'p95':>9} {'x alone':>8}")
    for name, si, xs in rows:
        print(f"{name:<28} {si * 1000:7.2f} ms {statistics.median(xs):6.1f} ms {p95(xs):6.1f} ms "
              f"{statistics.median(xs) / floor:7.1f}x")

    # the worker's price: loop iterations per second, GUI idle and GUI painting
    for si in (default_si, SWITCH_INTERVAL_S):
        sys.setswitchinterval(si)
        for painting in (False, True):
            stop.clear()
            spins[0] = 0
            t = threading.Thread(target=python_loop, daemon=True)
            t0 = time.perf_counter()
            t.start()
            if painting:
                while time.perf_counter() - t0 < 1.0:
                    model._pages.clear()
                    view.viewport().repaint()
            else:
                time.sleep(1.0)
            stop.set()
            t.join()
            rate = spins[0] / (time.perf_counter() - t0)
            print(f"pure-Python worker at {si * 1000:.2f} ms, GUI {'painting' if painting else 'idle':<8}: "
                  f"{rate:8.0f} loops/s")
    print(f"uptime: {Path('/proc/loadavg').read_text().split()[:3]}")


if __name__ == "__main__":
    main()
