"""Benchmark: issue 11's table ("a million traces on a laptop") on a generated database.

Every row of the issue's table, as median and p95 over ``--repeat`` runs, with the ratio to the
figure the issue measured before ("today") and to a floor measured in the same run (a bare
interpreter, a bare SQLite query, raw tiktoken). Not a test: figures depend on the machine; read
the ratios. Build the database first with ``benchmarks/gen_traces.py``::

    python benchmarks/gen_traces.py --traces 1000000 --db /tmp/gen-1m.db
    QT_QPA_PLATFORM=offscreen python benchmarks/bench_million.py --db /tmp/gen-1m.db

Times are wall-clock milliseconds (``time.perf_counter``); memory is RSS from ``/proc/self/statm``
and ``ru_maxrss``. GUI rows run the real widgets offscreen and force a synchronous paint
(``viewport().repaint()``), so a frame's time includes every ``data()`` call it makes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from ctxviewer.pipeline.stored_facts import with_facts

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PY = sys.executable


@dataclass
class Row:
    """One line of the table: samples (ms, or the unit given) against the goal and today."""

    what: str
    goal: str
    today: float | None
    samples: list[float]
    floor: float | None = None
    unit: str = "ms"
    note: str = ""
    higher_is_better: bool = False

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    @property
    def p95(self) -> float:
        if not self.samples:
            return float("nan")
        s = sorted(self.samples)
        return s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def subprocess_ms(argv: list[str], repeat: int, env: dict[str, str] | None = None) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env, cwd=ROOT)
        out.append((time.perf_counter() - t0) * 1000)
    return out


FIRST_SCREEN = """
import sys, time, json
t0 = float(sys.argv[1])
from ctxviewer import cli  # the command's own import path
from ctxviewer.gui.app import application
from ctxviewer.gui.main_window import MainWindow
from PySide6.QtCore import QSettings
app = application([])
try:  # code of a paired "before" run that still had a GUI-thread selection: select as its app did
    w = MainWindow(QSettings(sys.argv[3], QSettings.Format.IniFormat), background=True)
except TypeError:  # one selection path: the selected trace is loaded and assessed off the GUI thread
    w = MainWindow(QSettings(sys.argv[3], QSettings.Format.IniFormat))
w.resize(1280, 800)
w.show()
w.open_database(sys.argv[2], remember=False)
w.repaint()  # the first screen: the list with rows (the first trace follows from the loader)
t1 = time.time()
import resource
ru = resource.getrusage(resource.RUSAGE_SELF)
cpu = (ru.ru_utime + ru.ru_stime) * 1000
heavy = [m for m in ("numpy", "pyqtgraph", "pygments", "tiktoken", "sqlite_utils") if m in sys.modules]
getattr(w, "wait_shown", lambda: True)()  # the first trace with its assessment
w.repaint()
t_shown = time.time()
while not getattr(w.chart, "plot_built", True):  # the chart's plot is built right after the first paint
    app.processEvents()
    time.sleep(0.002)  # the plot's module is imported in a thread: leave it the interpreter
w.panel.finish_deferred() if hasattr(w.panel, "finish_deferred") else None
w.repaint()
t2 = time.time()
print(json.dumps({"ms": (t1 - t0) * 1000, "chart_ms": (t2 - t0) * 1000, "cpu_ms": cpu, "modules": heavy,
                  "rows": w.trace_model.rowCount(), "shown_ms": (t_shown - t0) * 1000}))
w.close()
app.processEvents()
"""


FIRST_SHOWN: list[float] = []
"""Milliseconds from process start to the first trace shown with its assessment, per :func:`first_screen` run."""

FIRST_SCREEN_CPU: list[float] = []
"""CPU milliseconds (user + system) of each :func:`first_screen` run up to its first paint."""


def first_screen(db: Path, repeat: int) -> tuple[list[float], list[str], list[float]]:
    """Process start to the first painted screen (list rows + detail), the heavy modules loaded by
    then, and process start to the chart's plot drawn (built right after the first paint), in ms.
    The CPU time of each run up to its first paint is appended to :data:`FIRST_SCREEN_CPU`. One
    warm-up run first, not counted (it writes the ``.pyc`` files the counted runs read)."""
    out, mods, chart = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat + 1):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # .pyc read, as installed
            env["QT_QPA_PLATFORM"] = "offscreen"
            r = subprocess.run([PY, "-c", FIRST_SCREEN, repr(time.time()), str(db), f"{tmp}/s.ini"],
                               capture_output=True, text=True, env=env, cwd=ROOT, check=False)
            line = next((x for x in r.stdout.splitlines() if x.startswith("{")), None)
            if line is None:
                raise RuntimeError(f"first-screen child exited {r.returncode}: {r.stderr[-2000:]}")
            d = json.loads(line)
            if i == 0:
                continue
            out.append(d["ms"])
            chart.append(d["chart_ms"])
            FIRST_SHOWN.append(d.get("shown_ms", d["ms"]))
            FIRST_SCREEN_CPU.append(d["cpu_ms"])
            mods = d["modules"]
    return out, mods, chart


def bench(db: Path, repeat: int, quick: bool) -> list[Row]:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QTableView

    from ctxviewer.gui.main_window import MainWindow
    from ctxviewer.gui.tables import make_table
    from ctxviewer.gui.trace_list_model import TraceListModel
    from ctxviewer.store import TraceStore

    rows: list[Row] = []
    bare = subprocess_ms([PY, "-c", "pass"], repeat)
    bare_med = statistics.median(bare)

    # 1. process start to first screen
    fs, mods, chart = first_screen(db, repeat)
    qt_floor = subprocess_ms([PY, "-c", "import PySide6.QtWidgets"], repeat)
    rows.append(Row("process start to first screen", "<= 400 ms", 1342, fs, bare_med,
                    note="heavy modules loaded by then: " + (", ".join(mods) or "none")
                    + f"; floor 'import PySide6.QtWidgets' {statistics.median(qt_floor):.0f} ms"
                    + f"; chart plot drawn at {statistics.median(chart):.0f} ms"))

    # 2. CLI command
    st = TraceStore.open(db)
    some_id = st.first_rows(limit=1)[0][1].trace_id
    show = subprocess_ms([PY, "-m", "ctxviewer", "show", str(db), some_id, "--json"], repeat)
    rows.append(Row("a CLI command (show DB ID --json)", "<= 2.5x bare", 510, show, bare_med,
                    note=f"{statistics.median(show) / bare_med:.1f}x a bare interpreter"))

    app = QApplication.instance() or QApplication([])
    view: QTableView = make_table(None)
    view.resize(700, 760)
    view.show()

    def painted_first_page() -> TraceListModel:
        s = TraceStore.open(db)
        m = TraceListModel(s)
        view.setModel(m)
        view.viewport().repaint()
        return m

    # 3. open to a painted first page (the OS page cache is warm after the first run)
    open_ms = timed(painted_first_page, repeat)
    floor_q = timed(lambda: sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
        "SELECT rowid, * FROM traces ORDER BY created, trace_id LIMIT 100").fetchall(), repeat)
    rows.append(Row("open the 1M database to a painted first page", "<= 100 ms", 183, open_ms,
                    statistics.median(floor_q), note="the exact count is not waited for"))

    # 4. exact count, off the GUI thread: time from set_store to sig_counted (the count comes first,
    #    the keys after it in chunks: their time is in the note)
    keys_ms: list[float] = []

    def counted() -> None:
        s = TraceStore.open(db)
        t0 = time.perf_counter()
        m = TraceListModel(s)
        while not m.counted:
            app.processEvents()
            time.sleep(0.001)
        t1 = time.perf_counter()
        while not m.keys_ready:
            app.processEvents()
            time.sleep(0.001)
        keys_ms.append((time.perf_counter() - t0) * 1000)
        rows_counted.append((t1 - t0) * 1000)
    rows_counted: list[float] = []
    timed(counted, repeat)
    floor_c = timed(lambda: st.count_where(), repeat)
    rows.append(Row("exact trace count (off the GUI thread)", "<= 500 ms", 154, rows_counted,
                    statistics.median(floor_c), note=f"count(*) in the worker; every row key read after "
                    f"{statistics.median(keys_ms):,.0f} ms median (p95 {Row('', '', None, keys_ms).p95:,.0f}); "
                    "floor: SELECT count(*)"))

    model = TraceListModel(st, threaded=False)
    view.setModel(model)
    n = model.rowCount()
    rng = random.Random(1)

    # 5. scrolling per frame: page down through deep rows, then jumps to random rows
    bar = view.verticalScrollBar()
    frames: list[float] = []
    start = rng.randrange(n // 2, n - 5000)
    bar.setValue(start)
    view.viewport().repaint()
    for i in range(300 if not quick else 60):
        t0 = time.perf_counter()
        bar.setValue(start + i * 3)  # wheel-sized steps: a fresh page every few dozen frames
        view.viewport().repaint()
        frames.append((time.perf_counter() - t0) * 1000)
    for _ in range(60 if not quick else 15):
        t0 = time.perf_counter()
        bar.setValue(rng.randrange(n))  # dragging the thumb: a page never read before
        view.viewport().repaint()
        frames.append((time.perf_counter() - t0) * 1000)
    floor_frames = qt_floor_frames(view, 300 if not quick else 60)
    view.setModel(model)
    rows.append(Row("scrolling, per frame", "p95 <= 16.7 ms", 41.6, frames, statistics.median(floor_frames),
                    note=f"floor: the same view over an in-memory C++ QStandardItemModel (p95 "
                         f"{sorted(floor_frames)[int(0.95 * (len(floor_frames) - 1))]:.1f} ms)"))

    # 6. jump to end / to any row
    def jump_end() -> None:
        view.scrollToTop()
        view.viewport().repaint()
        view.scrollToBottom()
        view.viewport().repaint()
    ends = timed(jump_end, repeat)
    last = view.indexAt(view.viewport().rect().bottomLeft() - view.viewport().rect().topLeft()).row()
    jumps = []
    for _ in range(40):
        r = rng.randrange(n)
        t0 = time.perf_counter()
        view.scrollTo(model.index(r, 0))
        view.viewport().repaint()
        jumps.append((time.perf_counter() - t0) * 1000)
    rows.append(Row("jump to end", "<= 50 ms", 132_000, ends, None,
                    note=f"bottom row after End: {last:,} of {n:,}"))
    rows.append(Row("jump to any row", "p95 <= 33 ms", None, jumps, None))

    # 7. list memory per trace, in a fresh process (keys + page cache after scrolling, a filter and back)
    mem = list_memory(db)
    rows.append(Row("list memory", "<= 64 B per trace", 651, [mem["per_trace"]], 8.0, unit="B/trace",
                    note=f"fresh process: RSS {mem['before'] / 2**20:,.1f} MiB with the store open -> "
                         f"{mem['keys'] / 2**20:+,.1f} MiB with all keys -> {mem['scrolled'] / 2**20:+,.1f} after "
                         f"scrolling -> {mem['after'] / 2**20:+,.1f} after a filter and back "
                         f"({mem['pages']} cached pages); peak {mem['peak'] / 2**20:,.1f} MiB"))

    # 8. filter or sort: time to the first page painted (threaded, as the window does: display-filter
    #    text planned by the store in the worker)
    from ctxviewer.store.filters import prepare_parser

    prepare_parser().join()  # the window builds it in the background once it is up (FilterEdit)
    tm = TraceListModel(st)
    view.setModel(tm)
    filters = ['model == "gpt-4o-2024-08-06"', "omitted > 2", "state == failure", "capacity < 16000",
               "finding == injection", 'model ~ "claude" and omitted > 0', "conversation == c-4711",
               "item(kind == evidence and status == omitted)"]
    from ctxviewer.store import SORTABLE

    fs_ms: list[float] = []
    per: dict[str, list[float]] = {}
    count_after: list[float] = []

    def first_page_painted(action: Callable[[], None]) -> tuple[float, float]:
        t0 = time.perf_counter()
        action()
        while tm.rowCount() == 0 and not tm.counted:
            app.processEvents()
            time.sleep(0.0005)
        view.viewport().repaint()
        first = (time.perf_counter() - t0) * 1000
        while not tm.keys_ready:
            app.processEvents()
            time.sleep(0.001)
        return first, (time.perf_counter() - t0) * 1000

    for text in filters * (2 if not quick else 1):
        first, done = first_page_painted(lambda text=text: tm.set_filter(text))
        fs_ms.append(first)
        per.setdefault(text, []).append(first)
        count_after.append(done)
    tm.set_filter("")
    for key in SORTABLE:
        for desc in (False, True):
            first, _ = first_page_painted(lambda key=key, desc=desc: tm.set_sort(key, desc))
            fs_ms.append(first)
            per.setdefault(f"sort {key}", []).append(first)
    floor_f = timed(lambda: st._conn.execute(
        "SELECT rowid FROM traces WHERE model = ? ORDER BY created, trace_id LIMIT 100", ["gpt-4o-2024-08-06"]).fetchall(),
        repeat)
    worst = sorted(per.items(), key=lambda kv: -max(kv[1]))[:4]
    rows.append(Row("filter or sort (first page painted)", "p95 <= 100 ms", 510, fs_ms, statistics.median(floor_f),
                    note=f"{len(filters)} display filters x{2 if not quick else 1}, {len(SORTABLE)} sorts x2; slowest: "
                         + "; ".join(f"{k} {max(v):,.0f} ms" for k, v in worst)
                         + f"; all keys of a filter after {statistics.median(count_after):,.0f} ms median"))

    # 9. full-text search (issue 11's other half; measured when the store has it)
    search = getattr(st, "search", None)
    if callable(search):
        sm = []
        for q in ("refund", "invoice addr*", "ignore previous", "policy version", "shipping"):
            t0 = time.perf_counter()
            try:
                search(q, limit=50)
            except TypeError:
                search(q)
            sm.append((time.perf_counter() - t0) * 1000)
        rows.append(Row("full-text search, first page of hits", "p95 <= 50 ms", None, sm))
    else:
        rows.append(Row("full-text search, first page of hits", "p95 <= 50 ms", None, [],
                        note="not in this build (TraceStore.search absent)"))

    # 10, 11. import and token counting
    rows.extend(bench_import(db, st, quick))
    rows.extend(bench_tokens(st, quick))

    # 12. select a trace of 500 / 5,000 items to painted detail
    rows.extend(bench_select(repeat))

    # 13. peak RSS: this process holds the 1M list, now add a 5,000-item what-if and its chart
    from ctxviewer.builder import whatif

    big = _big_trace(5000)
    out = whatif.run(big, whatif.Scenario(capacity=(big.endpoint.capacity or 128_000) // 2))
    from ctxviewer.assess.assessment import assess

    w = MainWindow(QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat))
    w.panel.set_trace(out.trace, assess(out.trace) if out.trace is not None else None)  # as the panes render it
    w.repaint()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(Row("peak RSS: 1M database open + 5,000-item what-if + chart", "<= 300 MB", 764, [peak],
                    unit="MiB", note="includes the benchmark's own work (all filters, sorts, imports above)"))
    st.close()
    return rows


MEMORY = """
import json, os, random, resource, sys, time
sys.path.insert(0, sys.argv[2])
from PySide6.QtWidgets import QApplication
from ctxviewer.gui.tables import make_table
from ctxviewer.gui.trace_list_model import TraceListModel
from ctxviewer.store import TraceStore

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def wait(m):
    while not m.keys_ready:
        app.processEvents()
        time.sleep(0.002)

app = QApplication([])
view = make_table(None)
view.resize(700, 760)
view.show()
st = TraceStore.open(sys.argv[1])
st.first_rows(limit=100)
app.processEvents()
before = rss()
m = TraceListModel(st)
view.setModel(m)
wait(m)
app.processEvents()
keys = rss()
n = m.rowCount()
rng = random.Random(3)
for _ in range(150):
    view.verticalScrollBar().setValue(rng.randrange(n))
    view.viewport().repaint()
scrolled = rss()
for text in ("omitted > 2", "capacity < 16000", ""):
    m.set_filter(text)
    wait(m)
    view.viewport().repaint()
app.processEvents()
after = rss()
print(json.dumps({"n": n, "before": before, "keys": keys - before, "scrolled": scrolled - before,
                  "after": after - before, "per_trace": (after - before) / n, "pages": len(m._pages),
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def list_memory(db: Path) -> dict[str, float]:
    """RSS of the trace list in a fresh process (the store already open before the baseline):
    all keys read, 150 random scroll positions painted, two filters and back to all traces."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([PY, "-c", MEMORY, str(db), str(ROOT)], capture_output=True, text=True, env=env,
                       cwd=ROOT, check=False)
    line = next((x for x in r.stdout.splitlines() if x.startswith("{")), None)
    if line is None:
        raise RuntimeError(r.stderr[-2000:])
    return dict(json.loads(line))


def qt_floor_frames(view: Any, n_frames: int) -> list[float]:
    """Frame times of the same view over a C++ ``QStandardItemModel`` of 20,000 rows (no Python
    per cell): what painting alone costs on this machine."""
    from PySide6.QtGui import QStandardItem, QStandardItemModel

    from ctxviewer.present.columns import TRACE_COLUMNS

    sm = QStandardItemModel(20_000, len(TRACE_COLUMNS))
    for r in range(20_000):
        for c in range(len(TRACE_COLUMNS)):
            sm.setItem(r, c, QStandardItem(f"cell {r:,} {c} text"))
    view.setModel(sm)
    view.viewport().repaint()
    bar, rng, out = view.verticalScrollBar(), random.Random(2), []
    for i in range(n_frames):
        t0 = time.perf_counter()
        bar.setValue(rng.randrange(20_000) if i % 5 == 0 else bar.value() + 3)
        view.viewport().repaint()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _big_trace(n_items: int) -> Any:
    from tests.factories import make_trace

    base = make_trace()
    items = []
    for i in range(n_items):
        src = base.items[i % len(base.items)]
        items.append(replace(src, id=f"{src.id}-{i}", position=i + 1 if src.position is not None else None))
    return replace(base, trace_id=f"big-{n_items}", items=tuple(items))


def bench_select(repeat: int) -> list[Row]:
    from PySide6.QtCore import QSettings

    from ctxviewer.gui.main_window import MainWindow
    from ctxviewer.store import TraceStore

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "big.db"
        with TraceStore.create(db) as st:
            st.add(with_facts([_big_trace(500), _big_trace(5000), _big_trace(3)]))
        w = MainWindow(QSettings(f"{tmp}/s.ini", QSettings.Format.IniFormat))
        w.resize(1280, 800)
        w.show()
        w.open_database(db, remember=False)
        w.wait_shown()
        floor = []
        painted: list[float] = []

        def items_painted(_trace_id: str) -> None:  # items, content, conversation (the assessment follows)
            w.repaint()
            painted.append(time.perf_counter())

        for n, today in ((500, 30), (5000, 80)):
            samples, assessed = [], []
            for _ in range(repeat):
                w.select_trace("big-3")  # another trace first, so each selection is a real one
                w.wait_shown()
                w.sig_trace_selected.connect(items_painted)
                painted.clear()
                t0 = time.perf_counter()
                w.select_trace(f"big-{n}")
                w.wait_shown()  # loaded, derived and assessed off the GUI thread
                w.repaint()  # header, chart and findings painted
                assessed.append((time.perf_counter() - t0) * 1000)
                w.sig_trace_selected.disconnect(items_painted)
                samples.append((painted[0] - t0) * 1000)
            floor = timed(lambda n=n: w.store.load(f"big-{n}"), repeat)  # type: ignore[union-attr]
            out.append(Row(f"select a trace of {n:,} items to painted detail", "<= 50 ms" if n == 500 else "-",
                           today, samples, statistics.median(floor),
                           note=f"floor: store.load of the trace; assessment (header, chart, findings) painted at "
                                f"{statistics.median(assessed):,.0f} ms, off the GUI thread"))
        w.close()
    return out


def bench_import(db: Path, st: Any, quick: bool) -> list[Row]:
    from ctxviewer.pipeline.importing import import_into

    k = 300 if quick else 2000
    ids = [r.trace_id for _k, r in st.first_rows(order="trace_id", limit=k)]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "export.otlp.json"
        subprocess.run([PY, "-m", "ctxviewer", "export", str(db), *ids, "-o", str(src), "--format", "otlp"],
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        n_items = sum(st._conn.execute("SELECT count(*) FROM items WHERE trace_id = ?", (i,)).fetchone()[0] for i in ids)
        samples, floor = [], []
        for r in range(2):
            target = Path(tmp) / f"import-{r}.db"
            t0 = time.perf_counter()
            import_into(target, [src])
            secs = time.perf_counter() - t0
            samples.append(n_items / secs)
            conn = sqlite3.connect(Path(tmp) / f"floor-{r}.db")
            conn.execute("CREATE TABLE items (trace_id, ordinal, item_id, kind, status, tokens, content_hash, "
                         "PRIMARY KEY (trace_id, ordinal))")
            rows = st._conn.execute(
                f"SELECT trace_id, ordinal, item_id, kind, status, tokens, content_hash FROM items WHERE trace_id IN "
                f"({','.join('?' * len(ids))})", ids).fetchall()
            t0 = time.perf_counter()
            with conn:
                conn.executemany("INSERT INTO items VALUES (?,?,?,?,?,?,?)", rows)
            floor.append(len(rows) / (time.perf_counter() - t0))
            conn.close()
        size = src.stat().st_size
    return [Row("import (OTLP JSON)", ">= 100,000 item rows/s", 11_600, samples, statistics.median(floor),
                unit="rows/s", higher_is_better=True,
                note=f"{k:,} traces, {n_items:,} items, {size / 1e6:.0f} MB file; floor: bare executemany of the rows")]


def bench_tokens(st: Any, quick: bool) -> list[Row]:
    from ctxviewer.tokens import counting as tokens

    texts = [r[0] for r in st._conn.execute("SELECT text FROM blobs LIMIT ?", (3000 if quick else 20000,))]
    enc = tokens.get_encoding("cl100k_base")
    t0 = time.perf_counter()
    total = sum(len(enc.encode_ordinary(t)) for t in texts)
    floor = total / (time.perf_counter() - t0) / 1e6
    many = getattr(tokens, "count_many", None)
    samples = []
    for _ in range(3):
        t0 = time.perf_counter()
        if callable(many):
            n = sum(many(texts, "cl100k_base"))
        else:
            n = sum(tokens.count_tokens(t, "cl100k_base") for t in texts)
        samples.append(n / (time.perf_counter() - t0) / 1e6)
    return [Row("token counting", ">= 5.5 Mtok/s on 2 cores", 4.6, samples, floor, unit="Mtok/s",
                higher_is_better=True, note=f"{total / 1e6:.1f} Mtok of stored texts; floor: raw tiktoken, one thread")]


def table(rows: list[Row]) -> str:
    out = ["| what | goal | median | p95 | today | vs today | floor | vs floor | note |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def f(x: float | None) -> str:
            if x is None or x != x:
                return "-"
            return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.1f}"
        med = r.median
        vs_today = "-" if r.today is None or med != med else f"{med / r.today:.2f}x"
        vs_floor = "-" if r.floor is None or med != med or not r.floor else f"{med / r.floor:.1f}x"
        out.append(f"| {r.what} | {r.goal} | {f(med)} {r.unit} | {f(r.p95)} | {f(r.today)} | {vs_today} | "
                   f"{f(r.floor)} | {vs_floor} | {r.note} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=Path("/tmp/gen-1m.db"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    rows = bench(args.db, args.repeat, args.quick)
    print(f"database: {args.db} ({args.db.stat().st_size / 1e9:.2f} GB)")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1))


if __name__ == "__main__":
    main()
