"""Benchmark: selecting a big trace in the window (issue 11 rows "select a trace of 500 items to
painted detail <= 50 ms" and "the window never stops").

A database of two traces (500 and 5,000 items, :func:`bench_million._big_trace`) is opened in the
real :class:`MainWindow` (offscreen, 1280x800) and each trace is selected ``--repeat`` times the
way the app selects: the selection returns at once; the trace is read, derived and assessed in the
loader's worker. Reported: the time to the items painted and to the assessment painted (wall), the
GUI thread's own time in each of the two hand-overs (their handler plus the paint), and the longest
gap of a 5 ms ``QTimer`` heartbeat meanwhile.

Floor: ``store.load`` of the trace on the GUI thread. Times are wall-clock milliseconds, medians
(p95 in brackets); not a test: print ``uptime`` with them.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_selection.py --repeat 9
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ctxviewer.pipeline.stored_facts import with_facts

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

HEARTBEAT_MS = 5


def _p(xs: list[float]) -> str:
    s = sorted(xs)
    p95 = s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]
    return f"{statistics.median(s):7.1f} ({p95:6.1f})"


def run(repeat: int, sizes: tuple[int, ...] = (500, 5000)) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bench_million import _big_trace
    from PySide6.QtCore import QSettings, QTimer

    from ctxviewer.gui.app import application
    from ctxviewer.gui.main_window import MainWindow
    from ctxviewer.store import TraceStore

    app = application([])
    tmp = tempfile.mkdtemp()
    db = Path(tmp) / "big.db"
    with TraceStore.create(db) as st:
        st.add(with_facts([_big_trace(n) for n in sizes] + [_big_trace(3)]))
    handover: dict[str, list[float]] = {"loaded": [], "assessed": []}
    marks: dict[str, float] = {}
    on_loaded, on_assessed = MainWindow._on_loaded, MainWindow._on_assessed

    def timed_loaded(self: MainWindow, trace: Any) -> None:
        t0 = time.perf_counter()
        on_loaded(self, trace)
        self.repaint()
        marks["items"] = time.perf_counter()
        handover["loaded"].append((marks["items"] - t0) * 1000)

    def timed_assessed(self: MainWindow, trace: Any, assessment: Any) -> None:
        t0 = time.perf_counter()
        on_assessed(self, trace, assessment)
        self.repaint()
        marks["assessed"] = time.perf_counter()
        handover["assessed"].append((marks["assessed"] - t0) * 1000)

    MainWindow._on_loaded = timed_loaded  # type: ignore[method-assign]
    MainWindow._on_assessed = timed_assessed  # type: ignore[method-assign]
    gaps: list[float] = []
    last = [time.perf_counter()]

    def beat() -> None:
        now = time.perf_counter()
        gaps.append((now - last[0]) * 1000 - HEARTBEAT_MS)
        last[0] = now

    heart = QTimer()
    heart.setInterval(HEARTBEAT_MS)
    heart.timeout.connect(beat)
    print(f"uptime: {Path('/proc/loadavg').read_text().split()[:3]}")
    print(f"{'trace':<10} {'items painted':>16} {'assessed painted':>17} {'GUI: items':>16} "
          f"{'GUI: assessment':>16} {'longest gap':>16} {'floor load':>11}")
    w = MainWindow(QSettings(f"{tmp}/s.ini", QSettings.Format.IniFormat))
    w.resize(1280, 800)
    w.show()
    w.open_database(db, remember=False)
    w.wait_shown()
    w.panel.finish_deferred()
    app.processEvents()
    heart.start()
    for n in sizes:
        items, assessed, longest = [], [], []
        handover["loaded"].clear()
        handover["assessed"].clear()
        for _ in range(repeat):
            w.select_trace("big-3")  # another trace first, so each selection is a real one
            w.wait_shown()
            app.processEvents()
            marks.clear()
            gaps.clear()
            last[0] = t0 = time.perf_counter()
            w.select_trace(f"big-{n}")
            w.wait_shown()
            app.processEvents()
            items.append((marks["items"] - t0) * 1000)
            assessed.append((marks["assessed"] - t0) * 1000)
            longest.append(max(gaps, default=0.0))
        floor = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            assert w.store is not None
            w.store.load(f"big-{n}")
            floor.append((time.perf_counter() - t0) * 1000)
        print(f"{n:>6,} it. {_p(items):>16} {_p(assessed):>17} {_p(handover['loaded']):>16} "
              f"{_p(handover['assessed']):>16} {_p(longest):>16} {statistics.median(floor):9.1f}")
    heart.stop()
    w.close()
    app.processEvents()
    print(f"uptime: {Path('/proc/loadavg').read_text().split()[:3]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    run(args.repeat)


if __name__ == "__main__":
    main()
