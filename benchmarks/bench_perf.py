"""Benchmark: issue 25's table -- every CLI question, ingest, memory and disk beside its floor, in one run.

Each row is a whole process, timed from outside (``os.wait4``: wall seconds, user + system CPU,
peak resident memory of the child), the ctxviewer command and its floor run in turn (A B A B ...)
after one warm-up each, and the ratio is the median of the pairwise ratios, so a machine whose
speed drifts during the run still compares like with like. Not a test: figures depend on the
machine; read the ratios against the budgets (issue 25, "Budgets").

Rows and floors:

* ``--help`` -- a bare interpreter (``python -c pass``); budget <= 3x.
* ``show DB ID --json`` -- the bare interpreter (<= 3x) and the ecosystem's own CLI on the same
  database, ``sqlite-utils query DB 'select * from traces limit 1'`` (<= 1.0x).
* ``list DB --limit 50`` -- an SQLite page as a process: ``python`` + ``sqlite3`` selecting the
  first 50 ``traces`` rows in list order and printing them (<= 2x); and ``list DB`` into a pipe
  (every row), whose peak memory must not grow with the row count.
* ingest of ``--spans`` OTel GenAI traces (OTLP/JSON Lines, :func:`bench_import.trace_lines`: an
  agent span and a chat span each) with ``ctxviewer import`` -- ``json.loads`` of every line, and
  ``json.loads`` plus one SQLite ``executemany`` of a row per span (<= 3x); peak RSS (<= 300 MB);
  disk per trace against the input's bytes and the content bytes stored (<= 1.3x content).
  ``--spans 10000,50000`` measures each size (disk at the first) and the peak RSS of the largest
  over the smallest (flat in N: near 1.0); ``--ingest-repeat`` sets the pairs per size.
* ``--gui``: process start to the first screen on the list database (:func:`bench_million.first_screen`)
  beside ``import PySide6.QtWidgets`` as a process (budget 400 ms).

The list database is generated at bench time with ``benchmarks/gen_traces.py`` (``--list-traces``,
default 100,000; 1,000,000 for the issue's figure), kept in ``--dir`` and reused when it exists.
Arize Phoenix is not run here (it needs a venv of its own and a server); its column is left out.

    python benchmarks/bench_perf.py --dir /tmp/bench-perf                  # 100k list DB, 10k spans
    python benchmarks/bench_perf.py --list-traces 1000000 --gui --repeat 7
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
PY = sys.executable
SQLITE_UTILS = str(Path(PY).with_name("sqlite-utils"))
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children's environment: without ``PYTHONDONTWRITEBYTECODE`` (set in some environments), so
the warm-up run writes the ``.pyc`` files and every counted run reads them, as an installed package
does; with it, every module whose ``.pyc`` is missing or older than its source is compiled again
in every run (about 0.8 s of a ``show`` whose package has no ``.pyc`` at all)."""

SQLITE_PAGE = """
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
for r in c.execute("SELECT * FROM traces ORDER BY created, trace_id LIMIT 50"):
    print(*r, sep="\\t")
"""
"""The floor of ``list --limit 50``: the same 50 rows, in the same order, by the same index."""

JSON_FLOOR = """
import json, sys
n = 0
with open(sys.argv[1], encoding="utf-8") as fh:
    for line in fh:
        if line.strip():
            json.loads(line)
            n += 1
"""

INGEST_FLOOR = """
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE spans (trace_id TEXT, span_id TEXT, name TEXT, body TEXT)")
rows = []
with open(sys.argv[1], encoding="utf-8") as fh:
    for line in fh:
        if not line.strip():
            continue
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    rows.append((s["traceId"], s["spanId"], s["name"], json.dumps(s["attributes"])))
with db:
    db.executemany("INSERT INTO spans VALUES (?, ?, ?, ?)", rows)
"""
"""The ingest floor: parse every line and write one row per span, one ``executemany``, one transaction."""


@dataclass
class Run:
    """One finished child: wall and CPU seconds, peak resident MiB."""

    wall: float
    cpu: float
    peak_mib: float


@dataclass
class Pair:
    """A ctxviewer command and its floor, measured in turn."""

    a: list[Run] = field(default_factory=list)
    b: list[Run] = field(default_factory=list)

    def ratio(self, what: str = "wall") -> float:
        return statistics.median(getattr(x, what) / max(getattr(y, what), 1e-9) for x, y in zip(self.a, self.b))


def run_once(argv: list[str], env: dict[str, str] | None = None) -> Run:
    """``argv`` as a child process (in ``env``, default :data:`CHILD_ENV`) with its output thrown
    away; its rusage from ``wait4``."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                         env=CHILD_ENV if env is None else env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{argv} exited {p.returncode}")
    return Run(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024)


def paired(a: list[str], b: list[str], repeat: int, before: object = None) -> Pair:
    """``a`` and ``b`` in turn, ``repeat`` times each after one warm-up of each; ``before`` (a
    callable) runs before every ``a`` (e.g. removing the database an import creates)."""
    pair = Pair()
    for i in range(repeat + 1):
        if callable(before):
            before()
        ra = run_once(a)
        if callable(before):
            before()
        rb = run_once(b)
        if i:
            pair.a.append(ra)
            pair.b.append(rb)
    return pair


def med(runs: list[Run], what: str = "wall") -> float:
    return statistics.median(getattr(r, what) for r in runs)


ROWS: list[tuple[str, str, str, str, str]] = []


def row(measure: str, ours: str, floor: str, ratio: str, budget: str) -> None:
    ROWS.append((measure, ours, floor, ratio, budget))
    print(f"  {measure}: {ours} | {floor} | {ratio} | {budget}", flush=True)


def verdict(value: float, limit: float) -> str:
    return "met" if value <= limit else "MISSED"


def list_db(work: Path, traces: int) -> Path:
    """The generated list database of ``traces`` traces (made once, then reused)."""
    db = work / f"gen-{traces}.db"
    if not db.exists():
        print(f"generating {db} ({traces:,} traces, benchmarks/gen_traces.py) ...", flush=True)
        subprocess.run([PY, str(ROOT / "benchmarks" / "gen_traces.py"), "--traces", str(traces), "--db", str(db)],
                       check=True, cwd=ROOT)
    return db


def spans_file(work: Path, n: int) -> Path:
    """OTLP/JSON Lines of ``n`` traces (:func:`bench_import.trace_lines`), made once."""
    import bench_import

    path = work / f"spans-{n}.otlp.jsonl"
    if not path.exists():
        with path.open("w", encoding="utf-8") as fh:
            for i in range(n):
                for line in bench_import.trace_lines(i):
                    fh.write(line + "\n")
    return path


def cli_rows(db: Path, repeat: int) -> None:
    bare = [PY, "-c", "pass"]
    cv = [PY, "-m", "ctxviewer"]
    tid = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
        "SELECT trace_id FROM traces ORDER BY created, trace_id LIMIT 1 OFFSET 7").fetchone()[0]

    p = paired([*cv, "--help"], bare, repeat)
    r = p.ratio()
    row("--help", f"{med(p.a) * 1000:.0f} ms", f"bare interpreter {med(p.b) * 1000:.0f} ms", f"{r:.2f}x",
        f"<= 3x bare: {verdict(r, 3)}")

    p = paired([*cv, "show", str(db), tid, "--json"], bare, repeat)
    r = p.ratio()
    row("show --json, one trace", f"{med(p.a) * 1000:.0f} ms", f"bare interpreter {med(p.b) * 1000:.0f} ms",
        f"{r:.2f}x", f"<= 3x bare: {verdict(r, 3)}")
    if Path(SQLITE_UTILS).exists():
        q = paired([*cv, "show", str(db), tid, "--json"], [SQLITE_UTILS, "query", str(db),
                                                           "select * from traces limit 1"], repeat)
        r = q.ratio()
        row("show --json vs sqlite-utils", f"{med(q.a) * 1000:.0f} ms",
            f"sqlite-utils query (1 row) {med(q.b) * 1000:.0f} ms", f"{r:.2f}x", f"<= 1.0x: {verdict(r, 1.0)}")

    p = paired([*cv, "list", str(db), "--limit", "50"], [PY, "-c", SQLITE_PAGE, str(db)], repeat)
    r = p.ratio()
    row("list --limit 50", f"{med(p.a) * 1000:.0f} ms, {med(p.a, 'peak_mib'):.0f} MiB",
        f"SQLite page as a process {med(p.b) * 1000:.0f} ms", f"{r:.2f}x", f"<= 2x: {verdict(r, 2)}")

    whole = [run_once([*cv, "list", str(db)]) for _ in range(max(1, repeat // 3))]
    n = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute("SELECT count(*) FROM traces").fetchone()[0]
    row(f"list, every row into a pipe ({n:,})", f"{med(whole):.2f} s, peak {med(whole, 'peak_mib'):.0f} MiB",
        "", "", "memory flat in N (compare two sizes)")


PEAKS: dict[int, float] = {}
"""Median import peak RSS (MiB) per ingest size, for the flat-in-N row."""


def ingest_rows(work: Path, spans: int, repeat: int, disk: bool = True) -> None:
    src = spans_file(work, spans)
    db = work / "ingest.db"
    floor_db = work / "floor.db"

    def clean() -> None:
        for p in (db, floor_db):
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(str(p) + suffix).unlink(missing_ok=True)

    loads = [run_once([PY, "-c", JSON_FLOOR, str(src)]) for _ in range(repeat)]
    p = paired([PY, "-m", "ctxviewer", "import", str(src), "-o", str(db)],
               [PY, "-c", INGEST_FLOOR, str(src), str(floor_db)], max(1, repeat // 2), before=clean)
    r = p.ratio()
    rate = spans / med(p.a)
    row(f"ingest {spans:,} traces (OTLP/JSON)", f"{med(p.a):.2f} s ({rate:,.0f} traces/s), {med(p.a, 'cpu'):.2f} s CPU",
        f"json.loads {med(loads):.2f} s; + executemany {med(p.b):.2f} s", f"{r:.2f}x", f"<= 3x: {verdict(r, 3)}")
    rc = p.ratio("cpu")  # on a loaded machine wall time waits for the others; CPU seconds do not
    row(f"ingest {spans:,} traces, CPU", f"{med(p.a, 'cpu'):.2f} s", f"floor {med(p.b, 'cpu'):.2f} s", f"{rc:.2f}x",
        f"<= 3x: {verdict(rc, 3)}")
    peak = med(p.a, "peak_mib")
    PEAKS[spans] = peak
    row(f"ingest peak RSS, {spans:,} traces", f"{peak:.0f} MiB", f"floor {med(p.b, 'peak_mib'):.0f} MiB", "",
        f"<= 300 MB: {verdict(peak * 1.048576, 300)}")
    if not disk:
        return
    run_once([PY, "-m", "ctxviewer", "import", str(src), "-o", str(db)]) if not db.exists() else None
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    n = conn.execute("SELECT count(*) FROM traces").fetchone()[0]
    # the input's content: every item's text as sent (a shared system prompt counted per trace)
    content = conn.execute("SELECT coalesce(sum(b.bytes), 0) FROM items i JOIN blobs b ON b.hash = i.content_hash"
                           ).fetchone()[0]
    size = db.stat().st_size
    per, per_in, per_content = size / n / 1024, src.stat().st_size / n / 1024, content / n / 1024
    row("disk per trace", f"{per:.1f} KB", f"input {per_in:.1f} KB; content {per_content:.1f} KB",
        f"{per / per_content:.2f}x content", f"<= 1.3x content: {verdict(per / per_content, 1.3)}")


def gui_rows(db: Path, repeat: int) -> None:
    import bench_million as bm

    fs, _mods, _chart = bm.first_screen(db, repeat)
    qt = [run_once([PY, "-c", "import PySide6.QtWidgets"]) for _ in range(repeat)]
    m = statistics.median(fs)
    row("GUI first screen", f"{m:.0f} ms", f"QtWidgets import {med(qt) * 1000:.0f} ms", f"{m / (med(qt) * 1000):.1f}x",
        f"<= 400 ms: {verdict(m, 400)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "bench-perf")
    ap.add_argument("--list-traces", type=int, default=100_000, help="traces in the generated list database")
    ap.add_argument("--list-db", type=Path, default=None, help="use this database for the CLI rows instead")
    ap.add_argument("--spans", default="10000", help="traces in the ingest file; comma-separated for several "
                    "sizes (10000,50000: peak memory at each and its growth)")
    ap.add_argument("--ingest-repeat", type=int, default=None, help="pairs per ingest size (default --repeat / 2)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip", default="", help="comma-separated: cli, ingest")
    ap.add_argument("--gui", action="store_true", help="also the first screen (offscreen Qt)")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    skip = set(filter(None, args.skip.split(",")))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.repeat} runs each, interleaved")
    db = args.list_db or (list_db(args.dir, args.list_traces) if {"cli"} - skip or args.gui else None)
    if "cli" not in skip and db is not None:
        cli_rows(db, args.repeat)
    if "ingest" not in skip:
        sizes = [int(x) for x in args.spans.split(",")]
        for n in sizes:
            ingest_rows(args.dir, n, 2 * args.ingest_repeat if args.ingest_repeat else args.repeat, disk=n == sizes[0])
        if len(PEAKS) > 1:
            lo, hi = min(PEAKS), max(PEAKS)
            row(f"ingest peak RSS, {hi:,} / {lo:,} traces", f"{PEAKS[hi]:.0f} / {PEAKS[lo]:.0f} MiB", "",
                f"{PEAKS[hi] / PEAKS[lo]:.2f}x", "flat in N (near 1.0)")
    if args.gui and db is not None:
        gui_rows(db, args.repeat)
    print(f"\nload average {os.getloadavg()[0]:.2f}\n")
    print("| measure | ctxviewer | floor | ratio | budget |")
    print("|---|---|---|---|---|")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")
    print("\n(json: " + json.dumps([dict(zip(("measure", "ours", "floor", "ratio", "budget"), r)) for r in ROWS]) + ")")


if __name__ == "__main__":
    main()
