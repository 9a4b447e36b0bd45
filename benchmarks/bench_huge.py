"""Benchmark: huge items (issue 12) -- import time and peak memory, select-to-paint, cancel latency.

    python benchmarks/bench_huge.py --item-mb 50 --file-mb 200 [--skip-import]

1. **import of one item of ITEM MB** (letters without whitespace, the issue's case) and **of a
   FILE MB native file** (many 1 MB items), each in a fresh subprocess through ``ctxviewer import``:
   wall time and peak resident memory (``ru_maxrss`` of the child), with the floor of importing a
   1 MB item measured in the same run, so figures read as ratios on any machine.
2. **select-to-paint** in the content view (offscreen Qt): ``set_content`` of the ITEM MB text plus a
   forced repaint, in ms, against the same for a 1 KB text (the floor).
3. **cancel latency**: a cancel requested while the ITEM MB item is being counted and scanned,
   until :func:`ctxviewer.pipeline.importing.import_into` returns (ms).

Not a test: figures depend on the machine (here: 2 cores shared by many processes).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from factories import make_trace  # noqa: E402

from ctxviewer.importers.formats.native import write_jsonl  # noqa: E402


def _file_with_items(path: Path, sizes_mb: list[float], letters_only: bool) -> None:
    base = make_trace()
    traces = []
    for n, mb in enumerate(sizes_mb):
        size = int(mb * 1024 * 1024)
        text = "a" * size if letters_only else ("lorem ipsum dolor sit amet " * (size // 27 + 1))[:size]
        items = list(base.items)
        items[3] = replace(items[3], content=text + f" #{n}", tokens=None)
        traces.append(replace(base, trace_id=f"huge-{n}", items=tuple(items)))
    write_jsonl(traces, path)


def _import_child(src: Path, db: Path) -> tuple[float, float]:
    """(seconds, peak MB) of ``ctxviewer import src -o db`` in a child process."""
    code = ("import resource, sys, time; from ctxviewer.pipeline.importing import import_into; t=time.perf_counter(); "
            f"r=import_into({str(db)!r}, [{str(src)!r}]); "
            "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, r.imported)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    secs, peak, _n = out.split()
    return float(secs), float(peak)


def bench_import(item_mb: float, file_mb: float, tmp: Path) -> None:
    floor_src = tmp / "floor.jsonl"
    _file_with_items(floor_src, [1], True)
    fs, fm = _import_child(floor_src, tmp / "floor.db")
    print(f"import 1 MB item (floor):      {fs:8.1f} s   peak {fm:7.0f} MB")
    src = tmp / "item.jsonl"
    _file_with_items(src, [item_mb], True)
    s, m = _import_child(src, tmp / "item.db")
    print(f"import {item_mb:g} MB item:             {s:8.1f} s   peak {m:7.0f} MB   ({s / fs:.1f}x time, "
          f"{m / fm:.1f}x memory of the floor)")
    with_text = tmp / "file.jsonl"
    _file_with_items(with_text, [1.0] * int(file_mb), False)
    s, m = _import_child(with_text, tmp / "file.db")
    print(f"import {file_mb:g} MB file ({int(file_mb)} x 1 MB): {s:8.1f} s   peak {m:7.0f} MB   ({s / fs:.1f}x time, "
          f"{m / fm:.1f}x memory of the floor)")
    import sqlite3

    with sqlite3.connect(tmp / "item.db") as conn:
        big = conn.execute("SELECT count(*), max(bytes) FROM blobs WHERE bytes > 1000000").fetchone()
    print(f"blobs over 1 MB after the {item_mb:g} MB import: {big[0]} (largest {big[1] / 1e6:.1f} MB)")
    with sqlite3.connect(tmp / "file.db") as conn:
        n, total = conn.execute("SELECT count(*), sum(bytes) FROM blobs WHERE bytes > 1000000").fetchone()
        size = (tmp / "file.db").stat().st_size
    print(f"blobs over 1 MB after the {file_mb:g} MB file: {n} holding {(total or 0) / 1e6:.1f} MB "
          f"(each item text once); database file {size / 1e6:.1f} MB")


def bench_paint(item_mb: float) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from ctxviewer.gui.app import application
    from ctxviewer.gui.content_view import ContentView

    app = application([])
    view = ContentView()
    view.resize(900, 700)
    view.show()

    def paint(text: str) -> float:
        t0 = time.perf_counter()
        view.set_content(text)
        view.viewport().repaint()
        app.processEvents()
        return (time.perf_counter() - t0) * 1000

    small = "x" * 1024
    floor = min(paint(small) for _ in range(5))
    huge = "a" * int(item_mb * 1024 * 1024)
    worst = max(paint(huge) for _ in range(3))
    print(f"select-to-paint 1 KB item (floor): {floor:7.1f} ms")
    print(f"select-to-paint {item_mb:g} MB item:        {worst:7.1f} ms ({worst / max(floor, 0.01):.1f}x the floor); "
          f"preview: {view.partial}")


def bench_cancel(item_mb: float, tmp: Path) -> None:
    from ctxviewer.pipeline.importing import import_into

    src = tmp / "cancel.jsonl"
    _file_with_items(src, [item_mb], True)
    flag = threading.Event()
    asked: list[float] = []

    def later() -> None:
        time.sleep(2.0)
        asked.append(time.perf_counter())
        flag.set()

    threading.Thread(target=later, daemon=True).start()
    report = import_into(tmp / "cancel.db", [src], cancelled=flag.is_set)
    done = time.perf_counter()
    print(f"cancel during a {item_mb:g} MB item: returned {(done - asked[0]) * 1000:.0f} ms after the request "
          f"(cancelled={report.cancelled}, database left: {(tmp / 'cancel.db').exists()})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--item-mb", type=float, default=50)
    ap.add_argument("--file-mb", type=float, default=200)
    ap.add_argument("--skip-import", action="store_true", help="only select-to-paint and cancel")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        bench_paint(args.item_mb)
        bench_cancel(args.item_mb, tmp)
        if not args.skip_import:
            bench_import(args.item_mb, args.file_mb, tmp)
    print(json.dumps({"maxrss_parent_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
