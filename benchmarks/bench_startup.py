"""Benchmark: issue 11's start-up rows -- first screen, a CLI command, selecting a big trace, peak RSS.

Not a test: figures depend on the machine (2 cores shared with other work); read the ratios to the
floors measured in the same run (a bare interpreter, ``import PySide6.QtWidgets``, ``store.load``).
Every figure is wall-clock milliseconds unless it says CPU (user + system of the child process,
``resource.getrusage(RUSAGE_CHILDREN)``), which a loaded machine inflates less::

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_startup.py --db sample_traces/samples.db
    QT_QPA_PLATFORM=offscreen python benchmarks/bench_startup.py --db /tmp/gen-1m.db --rss

``--rss`` measures peak RSS in a fresh process: open the database in the window, jump to the end
of the list, then a what-if on a 5,000-item trace with its chart.

``--cli`` measures only the CLI row (issue 11: ``show DB ID --json`` <= 2.5x a bare interpreter) on
each ``--db`` given: ``python -c pass`` and ``python -m ctxviewer show DB ID --json`` interleaved,
after one warm-up run each, median and p95 of ``--repeat`` (7) runs, wall and CPU. The children
run without ``PYTHONDONTWRITEBYTECODE`` (set in some environments), so every run after the
warm-up reads compiled ``.pyc`` files as an installed package would::

    python benchmarks/bench_startup.py --cli --db sample_traces/samples.db --db /work/brief/gen-1m-v3.db
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
PY = sys.executable

import bench_million as bm  # noqa: E402  (the first screen and the selection rows are shared)


def child_ms(argv: list[str], repeat: int, env: dict[str, str] | None = None) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of ``argv`` run ``repeat`` times (in ``env``, default this process's)."""
    wall, cpu = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT, env=env)
        wall.append((time.perf_counter() - t0) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall, cpu


RSS = """
import json, resource, sys, tempfile
from dataclasses import replace
sys.path.insert(0, sys.argv[2])
from PySide6.QtCore import QSettings
from ctxviewer.gui.app import application
from ctxviewer.gui.main_window import MainWindow
import bench_million as bm
app = application([])
w = MainWindow(QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat))
w.resize(1280, 800)
w.show()
w.open_database(sys.argv[1], remember=False)
import time
deadline = time.time() + 120
while not w.trace_model.counted and time.time() < deadline:  # every row key read (8 bytes per trace)
    app.processEvents()
    time.sleep(0.01)
w.trace_view.scrollToBottom()
w.select_row(w.trace_model.rowCount() - 1)
w.repaint()
opened = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
from ctxviewer.builder import whatif
big = bm._big_trace(5000)
out = whatif.run(big, whatif.Scenario(capacity=(big.endpoint.capacity or 128_000) // 2))
w.whatif.panel.set_trace(big)
w.whatif.panel.show()
from ctxviewer.assess.assessment import assess
w.panel.set_trace(out.trace, assess(out.trace) if out.trace is not None else None)  # the what-if's trace, as the panes render it
w.chart.ensure_plot()
w.repaint()
for _ in range(20):
    app.processEvents()
print(json.dumps({"opened": opened, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rows": w.trace_model.rowCount(), "counted": w.trace_model.counted}))
w.whatif.panel.close()
w.close()
app.processEvents()
"""


def cli_row(dbs: list[Path], repeat: int) -> None:
    """Print the CLI row: ``show DB ID --json`` against a bare interpreter, CPU and wall (see the module docstring)."""
    from ctxviewer.store import TraceStore

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    bare = [PY, "-c", "pass"]
    for db in dbs:
        with TraceStore.open(db) as st:
            some_id = st.first_rows(limit=1)[0][1].trace_id
        show = [PY, "-m", "ctxviewer", "show", str(db), some_id, "--json"]
        for argv in (bare, show):  # warm-up: .pyc written, pages cached
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT, env=env)
        bw, bc, sw, sc = [], [], [], []
        for _ in range(repeat):  # interleaved, so both see the same load
            w, c = child_ms(bare, 1, env)
            bw += w
            bc += c
            w, c = child_ms(show, 1, env)
            sw += w
            sc += c
        print(f"{db.name}: show {some_id} --json: wall {stats(sw)} ms = {statistics.median(sw) / statistics.median(bw):.1f}x bare "
              f"({stats(bw)}); CPU {stats(sc)} ms = {statistics.median(sc) / statistics.median(bc):.1f}x bare CPU "
              f"({stats(bc)}); goal <= 2.5x")


def stats(xs: list[float]) -> str:
    s = sorted(xs)
    p95 = s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]
    return f"median {statistics.median(s):,.0f}, p95 {p95:,.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, action="append", help="database (repeat --db for several with --cli)")
    ap.add_argument("--cli", action="store_true", help="only the CLI row (show --json vs a bare interpreter)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--rss", action="store_true", help="also measure peak RSS in a fresh process")
    ap.add_argument("--no-select", action="store_true", help="skip the selection rows")
    args = ap.parse_args()
    dbs = args.db or [ROOT / "sample_traces" / "samples.db"]
    if args.cli:
        print(f"load average {os.getloadavg()[0]:.1f}")
        cli_row(dbs, args.repeat)
        return
    args.db = dbs[0]
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    print(f"database {args.db}; load average {os.getloadavg()[0]:.1f}")
    bare_w, bare_c = child_ms([PY, "-c", "pass"], args.repeat)
    qt_w, qt_c = child_ms([PY, "-c", "import PySide6.QtWidgets"], args.repeat)
    print(f"floor: python -c pass: {stats(bare_w)} ms (CPU {stats(bare_c)}); "
          f"import PySide6.QtWidgets: {stats(qt_w)} ms (CPU {stats(qt_c)})")
    fs, mods, chart = bm.first_screen(args.db, args.repeat)
    print(f"process start to first screen: {stats(fs)} ms = {statistics.median(fs) / statistics.median(bare_w):.1f}x bare, "
          f"{statistics.median(fs) / statistics.median(qt_w):.1f}x the QtWidgets import; heavy modules by then: "
          f"{', '.join(mods) or 'none'}; first trace shown with its assessment at {stats(bm.FIRST_SHOWN)} ms; "
          f"chart plot drawn at {stats(chart)} ms")
    fs_cpu = bm.FIRST_SCREEN_CPU
    print(f"  first screen in CPU: {stats(fs_cpu)} ms = {statistics.median(fs_cpu) / statistics.median(bare_c):.1f}x bare CPU, "
          f"{statistics.median(fs_cpu) / statistics.median(qt_c):.1f}x the QtWidgets import's CPU")
    from ctxviewer.store import TraceStore

    with TraceStore.open(args.db) as st:
        some_id = st.first_rows(limit=1)[0][1].trace_id
    show_w, show_c = child_ms([PY, "-m", "ctxviewer", "show", str(args.db), some_id, "--json"], args.repeat)
    print(f"show DB {some_id} --json: {stats(show_w)} ms = {statistics.median(show_w) / statistics.median(bare_w):.1f}x bare; "
          f"CPU {stats(show_c)} ms = {statistics.median(show_c) / statistics.median(bare_c):.1f}x bare CPU")
    if not args.no_select:
        from PySide6.QtWidgets import QApplication

        _app = QApplication.instance() or QApplication([])
        for row in bm.bench_select(args.repeat):
            print(f"{row.what}: {stats(row.samples)} ms (floor store.load {row.floor:,.0f} ms)")
    if args.rss:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        r = subprocess.run([PY, "-c", RSS, str(args.db), str(ROOT / "benchmarks")], capture_output=True, text=True,
                           env=env, cwd=ROOT, check=False)
        line = next((x for x in r.stdout.splitlines() if x.startswith("{")), None)
        if line is None:
            raise RuntimeError(r.stderr[-2000:])
        d = json.loads(line)
        print(f"peak RSS, fresh process: {d['opened']:,.0f} MiB after opening ({d['rows']:,} rows, keys read: "
              f"{d['counted']}) and End; "
              f"{d['peak']:,.0f} MiB after a 5,000-item what-if and its chart")


if __name__ == "__main__":
    main()
