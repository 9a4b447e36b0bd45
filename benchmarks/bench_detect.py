"""Benchmark: format detection (issue 5, the importer registry's sniffing).

Detection asks every registered importer for a confidence on the file's first 64 KiB and reads
further (1 MiB, then 16 MiB) only while no importer is confident. For four files written into a
temporary folder it prints the median wall-clock time of :func:`ctxviewer.importers.detect` and,
as the floor measured in the same run, the time to read the file's first 64 KiB plus one
``json.loads`` of a 64 KiB JSON document:

* ``native-tagged`` -- 2,000 native lines with the ``ctxviewer.trace/1`` tag (decided at 64 KiB);
* ``otlp`` -- an OTLP request of 2,000 GenAI chat spans (decided at 64 KiB);
* ``span-list-big-first`` -- a span list whose first span holds 2 MiB of non-GenAI attributes
  before its ``gen_ai.*`` keys (decided only after reading 16 MiB of head);
* ``unknown-jsonl`` -- 20 MiB of JSON Lines no importer knows (read to the 16 MiB cap, rejected).

Times are medians of ``--repeat`` runs in ms; the machine is shared, so compare the ratios.

Example:
    .venv/bin/python benchmarks/bench_detect.py
    .venv/bin/python benchmarks/bench_detect.py --repeat 9
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from ctxviewer.importers import ImportFailed, detect
from ctxviewer.importers.formats.native import write_jsonl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from factories import make_trace
from otlp_factories import chat_span, otlp_request


def write_files(folder: Path) -> dict[str, Path]:
    """The four benchmark files (see module docstring)."""
    files = {name: folder / name for name in ("native-tagged.jsonl", "otlp.json", "span-list-big-first.json",
                                               "unknown-jsonl.jsonl")}
    write_jsonl([make_trace(trace_id=f"t{i}") for i in range(2000)], files["native-tagged.jsonl"])
    spans = [chat_span(f"{i:016x}") for i in range(2000)]
    files["otlp.json"].write_text(json.dumps(otlp_request(*spans)))
    first = {"name": "chat", "spanContext": {"traceId": "ab" * 16, "spanId": "cd" * 8},
             "attributes": {"app.dump": "x" * (2 * 1024 * 1024), "gen_ai.operation.name": "chat",
                            "gen_ai.input.messages": json.dumps([{"role": "user", "content": "hi"}])}}
    files["span-list-big-first.json"].write_text(json.dumps([first]))
    line = json.dumps({"event": "page_view", "user": "u-1", "path": "/a" * 40}) + "\n"
    with open(files["unknown-jsonl.jsonl"], "w", encoding="utf-8") as fh:
        fh.write(line * (20 * 1024 * 1024 // len(line)))
    return {p.stem: p for p in files.values()}


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    """Median wall-clock time of ``fn()`` over ``repeat`` runs, ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp))

        def floor(path: Path) -> None:
            with open(path, "rb") as fh:
                head = fh.read(64 * 1024)
            json.loads(json.dumps({"k": head.decode("latin-1")}))

        def run(path: Path) -> str:
            try:
                return detect(path).name
            except ImportFailed:
                return "(not recognised)"

        print(f"{'file':24}{'size MiB':>10}{'detected':>18}{'detect ms':>11}{'floor ms':>10}{'ratio':>8}")
        for name, path in files.items():
            size = path.stat().st_size / 1024 / 1024
            detected = run(path)
            t = median_ms(lambda p=path: run(p), args.repeat)
            f = median_ms(lambda p=path: floor(p), args.repeat)
            print(f"{name:24}{size:>10.1f}{detected:>18}{t:>11.1f}{f:>10.2f}{t / f:>8.0f}")


if __name__ == "__main__":
    main()
