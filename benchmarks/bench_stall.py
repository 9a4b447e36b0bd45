"""Benchmark: does the window ever stop? The longest GUI-thread stall on a large database (issue 11).

Issue 11 is done when "a person can open the 1M database, jump to its end, filter and search
without the window ever stopping". This script does that with the real :class:`MainWindow`
(offscreen, 1280x800) while a 10 ms ``QTimer`` heartbeat records the gap between its ticks: a gap
is how long the GUI thread could not process events (a frozen window). Steps, each given time to
settle (the list's count and keys arrive off the GUI thread meanwhile):

1. open the database (``open_database``: first page, first trace shown);
2. Ctrl+End in the trace list (the real last row, its trace shown);
3. a display filter typed into the filter box and applied (``omitted > 2 and capacity < 16000``),
   then a second one (``model ~ claude``), then a sort by the Retained / omitted column;
4. a full-text search in the search dock (``ignore previous``) and opening its first hit.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_stall.py --db /tmp/gen-1m.db

Prints, per step, the longest gap and what was running; then the longest gap overall, the p99 and
the number of gaps over 100 ms and 250 ms. Times are wall-clock milliseconds. Not a test: the
figures depend on the machine (print ``uptime`` with them).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HEARTBEAT_MS = 10
SETTLE_MS = 2500


def run(db: Path, settle_ms: int = SETTLE_MS, list_only: bool = False) -> dict[str, Any]:
    """Drive the window through the steps; returns ``{"steps": [(label, max gap ms, step ms)],
    "gaps": [ms, ...], "count_ms": ..., ...}``. ``list_only``: a selected trace is not shown (its
    load, assessment and panels skipped), so the stalls are the list's, the filter's and the search's own.
    The window selects traces as the app does: loaded, derived and assessed off the GUI thread."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtTest import QTest

    from ctxviewer.gui.app import application
    from ctxviewer.gui.main_window import MainWindow

    app = application([])
    if list_only:
        def no_row(self: MainWindow, current: Any, _previous: Any) -> None:  # read, never shown
            tid = self.trace_model.trace_id(current.row()) if current.isValid() else None
            self.trace = None if tid is None or self.store is None else self.store.load(tid)

        MainWindow._on_trace_row = no_row  # type: ignore[method-assign]
    tmp = tempfile.mkdtemp()
    settings = QSettings(f"{tmp}/s.ini", QSettings.Format.IniFormat)
    try:  # code of a paired "before" run that still had a GUI-thread selection: select as its app did
        w = MainWindow(settings, background=True)
    except TypeError:  # one selection path, always off the GUI thread
        w = MainWindow(settings)
    w.resize(1280, 800)
    w.show()
    app.processEvents()

    gaps: list[tuple[float, str]] = []
    label = ["idle"]
    last = [time.perf_counter()]

    beats: list[float] = []

    def beat() -> None:
        now = time.perf_counter()
        gaps.append(((now - last[0]) * 1000 - HEARTBEAT_MS, label[0]))
        beats.append(now)
        last[0] = now

    heart = QTimer()
    heart.setInterval(HEARTBEAT_MS)
    heart.timeout.connect(beat)
    heart.start()

    facts: dict[str, Any] = {}
    t_open = [0.0]

    def step_open() -> None:
        t0 = time.perf_counter()
        w.open_database(str(db), remember=False)
        facts["open_call_ms"] = (time.perf_counter() - t0) * 1000
        t_open[0] = t0
        w.trace_model.sig_counted.connect(lambda n: facts.setdefault("count_ms", (time.perf_counter() - t0) * 1000))
        w.trace_model.sig_keys_ready.connect(lambda: facts.setdefault("keys_ms", (time.perf_counter() - t0) * 1000))

    def step_end() -> None:
        w.trace_view.setFocus()
        QTest.keyClick(w.trace_view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        idx = w.trace_view.currentIndex()
        facts["end_row"] = idx.row()

        def shown() -> None:  # after the settle: the trace shown (a background selection has arrived)
            facts["end_trace"] = w.trace.trace_id if w.trace is not None else None
            facts["end_matches"] = w.trace is not None and w.trace_model.trace_id(idx.row()) == w.trace.trace_id
        after[0] = shown

    def step_filter(text: str) -> Callable[[], None]:
        def go() -> None:
            w.focus_filter()
            w.filter_edit.setText(text)
            w.apply_filter()
        return go

    def step_sort() -> None:
        from ctxviewer.present.columns import TRACE_COLUMNS

        col = next(i for i, c in enumerate(TRACE_COLUMNS) if c.sort_key == "retained_count")
        w.trace_view.sortByColumn(col, Qt.SortOrder.DescendingOrder)

    def step_search() -> None:
        w.search.open_search()
        w.search.panel.entry.setText("ignore previous")
        w.search.panel.search()

    def step_open_hit() -> None:
        hit = w.search.panel.model.hit(0)
        facts["hit"] = None if hit is None else (hit.trace_id, hit.item_id)
        if hit is not None:
            w.search.panel.sig_hit_activated.emit(hit, w.search.panel.model.query)

        def shown() -> None:
            item = w.panel.items.current_item()
            facts["hit_shown"] = (w.trace is not None and hit is not None and w.trace.trace_id == hit.trace_id
                                  and item is not None and item.id == hit.item_id)
        after[0] = shown

    steps: list[tuple[str, Callable[[], None]]] = [
        ("nothing (the heartbeat's floor on this machine)", lambda: None),
        ("open the database", step_open),
        ("Ctrl+End", step_end),
        ("filter 'omitted > 2 and capacity < 16000'", step_filter("omitted > 2 and capacity < 16000")),
        ("filter 'model ~ claude'", step_filter("model ~ claude")),
        ("sort by Retained / omitted, descending", step_sort),
        ("clear the filter", step_filter("")),
        ("search 'ignore previous'", step_search),
        ("open the first hit", step_open_hit),
    ]
    timings: list[tuple[str, float]] = []
    after: list[Callable[[], None] | None] = [None]  # a step's check, run once it has settled

    def settled() -> None:
        if after[0] is not None:
            after[0]()
            after[0] = None

    def schedule(i: int) -> None:
        if i == len(steps):
            QTimer.singleShot(settle_ms, lambda: (settled(), app.quit()))
            return
        name, fn = steps[i]

        def go() -> None:
            settled()
            label[0] = name
            t0 = time.perf_counter()
            fn()
            timings.append((name, (time.perf_counter() - t0) * 1000))
            schedule(i + 1)
        QTimer.singleShot(settle_ms, go)

    schedule(0)
    app.exec()
    heart.stop()
    facts["rows"] = w.trace_model.total
    by_step = []
    for name, call_ms in timings:
        mine = [g for g, lab in gaps if lab == name]
        by_step.append((name, max(mine) if mine else 0.0, call_ms))
    facts["beats"] = beats
    facts["worst"] = sorted(((g, lab) for g, lab in gaps if lab != "idle"), reverse=True)[:8]
    w.close()
    # the window's own start (before the first step) is not part of the walk
    return {"steps": by_step, "gaps": [g for g, lab in gaps if lab != "idle"], **facts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--settle", type=int, default=SETTLE_MS, help="ms between steps (default %(default)s)")
    ap.add_argument("--list-only", action="store_true",
                    help="do not show the selected trace (store.load only): the list's, filter's and search's own stalls")
    args = ap.parse_args()
    print(f"uptime: {Path('/proc/loadavg').read_text().split()[:3]}" + ("; list only" if args.list_only else "")
          )
    r = run(args.db, args.settle, args.list_only)
    print(f"{args.db}: {r['rows']:,} rows at the end; count after {r.get('count_ms', float('nan')):.0f} ms, "
          f"all keys after {r.get('keys_ms', float('nan')):.0f} ms; Ctrl+End -> row {r.get('end_row')} "
          f"({r.get('end_trace')}, its row: {r.get('end_matches')}); first hit {r.get('hit')} shown with its item "
          f"selected: {r.get('hit_shown')}")
    print(f"{'step':<50} {'longest stall':>14} {'the call itself':>16}")
    for name, gap, call in r["steps"]:
        print(f"{name:<50} {gap:11.1f} ms {call:13.1f} ms")
    print("longest stalls: " + "; ".join(f"{g:.0f} ms ({lab})" for g, lab in r["worst"]))
    gaps = sorted(r["gaps"])
    p99 = gaps[min(len(gaps) - 1, round(0.99 * (len(gaps) - 1)))]
    print(f"heartbeat {HEARTBEAT_MS} ms, {len(gaps):,} ticks: longest stall {gaps[-1]:.1f} ms, p99 {p99:.1f} ms, "
          f"median {statistics.median(gaps):.1f} ms, stalls > 100 ms: {sum(g > 100 for g in gaps)}, "
          f"> 250 ms: {sum(g > 250 for g in gaps)}")
    print(f"uptime: {Path('/proc/loadavg').read_text().split()[:3]}")


if __name__ == "__main__":
    main()
