"""Benchmark: the live OTLP receiver (``ctxviewer serve``) under a steady stream from the real SDK.

Issue 23's "Done when": spans sent by the real SDK shown within 1 s of their end, and the receiver
responsive at 1,000 spans/s. One run:

* ``ctxviewer serve -o DB --port 0`` as a process; in this process the OpenTelemetry SDK with its
  ``BatchSpanProcessor`` and the OTLP/HTTP protobuf exporter (what an application runs) ends
  ``--rate`` GenAI chat spans a second for ``--seconds`` seconds (each its own trace, a short user
  message and usage), recording each span's end time;
* a reader (``sqlite3``, read-only, as ``list`` reads) polls the database every 50 ms and notes
  when each trace's row is first visible: latency = first visible - span end (p50, p95, max; the
  budget is 1 s), and its own query time while the writer writes (readers never blocked);
* the floor: the same spans imported from an OTLP JSON file with ``ctxviewer import`` (the same
  mapping, one transaction), as spans per second; the row reports live spans/s against it (the
  live path pays a transaction per wake-up and the HTTP round trips).

Not a test: figures depend on the machine (read the ratios, not the seconds).

    python benchmarks/bench_serve.py --rate 1000 --seconds 10
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
import threading
import time
from pathlib import Path
from typing import Any


def _chat_attrs(n: int) -> dict[str, Any]:
    msgs = [{"role": "user", "parts": [{"type": "text", "content": f"Question number {n}: what is {n} + {n}?"}]}]
    return {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
            "gen_ai.input.messages": json.dumps(msgs), "gen_ai.usage.input_tokens": 12,
            "gen_ai.usage.output_tokens": 3}


def _poll(db: Path, seen: dict[str, float], stop: threading.Event, query_s: list[float]) -> None:
    while not db.exists() and not stop.is_set():
        time.sleep(0.01)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            rows = conn.execute("SELECT trace_id FROM traces").fetchall()
        except sqlite3.OperationalError:
            rows = []
        now = time.time()
        query_s.append(time.perf_counter() - t0)
        for (tid,) in rows:
            seen.setdefault(tid, now)
        time.sleep(0.05)
    conn.close()


def main() -> None:
    """Run the benchmark and print its table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--rate", type=int, default=1000, help="chat spans ended per second")
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()

    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter, SpanExportResult

    class Keep(SpanExporter):
        def __init__(self) -> None:
            self.spans: list[Any] = []

        def export(self, spans: Any) -> SpanExportResult:
            self.spans.extend(spans)
            return SpanExportResult.SUCCESS

    tmp = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    db = tmp / "live.db"
    proc = subprocess.Popen([sys.executable, "-m", "ctxviewer", "serve", "-o", str(db), "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stderr is not None
    url = proc.stderr.readline().split()[2]
    seen: dict[str, float] = {}
    query_s: list[float] = []
    stop = threading.Event()
    reader = threading.Thread(target=_poll, args=(db, seen, stop, query_s))
    reader.start()

    keep = Keep()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{url}/v1/traces"),
                                                   schedule_delay_millis=200, max_export_batch_size=512,
                                                   max_queue_size=20000))
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("bench")
    ended: dict[str, float] = {}
    total = int(args.rate * args.seconds)
    t_start = time.time()
    for n in range(total):
        due = t_start + n / args.rate
        delay = due - time.time()
        if delay > 0:
            time.sleep(delay)
        with tracer.start_as_current_span("chat gpt-4o", attributes=_chat_attrs(n)) as span:
            ctx = span.get_span_context()
        ended[f"{ctx.trace_id:032x}:{ctx.span_id:016x}"] = time.time()
    sent_s = time.time() - t_start
    provider.force_flush()
    deadline = time.time() + 60
    while len([t for t in ended if t in seen]) < total and time.time() < deadline:
        time.sleep(0.1)
    live_s = max(seen.get(t, 0) for t in ended) - t_start
    stop.set()
    reader.join()
    proc.terminate()
    _, err = proc.communicate(timeout=120)
    provider.shutdown()

    lat = sorted(seen[t] - e for t, e in ended.items() if t in seen)
    doc = tmp / "spans.otlp.json"
    doc.write_text(json.dumps(MessageToDict(encode_spans(keep.spans))))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ctxviewer", "import", str(doc), "-o", str(tmp / "file.db")],
                   check=True, capture_output=True)
    file_s = time.perf_counter() - t0

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

    print(f"spans ended: {total:,} at {args.rate:,}/s target ({total / sent_s:,.0f}/s achieved by the sender)")
    print(f"visible: {len(lat):,} of {total:,}; latency end -> visible p50 {pct(0.5) * 1000:.0f} ms, "
          f"p95 {pct(0.95) * 1000:.0f} ms, max {lat[-1] * 1000 if lat else float('nan'):.0f} ms (budget 1000 ms)")
    print(f"reader query while writing: p50 {statistics.median(query_s) * 1000:.1f} ms, "
          f"max {max(query_s) * 1000:.1f} ms over {len(query_s)} polls")
    print(f"live ingest: {total / live_s:,.0f} spans/s; file import of the same spans: {total / file_s:,.0f} spans/s "
          f"(process included); live / file = {(total / live_s) / (total / file_s):.2f}")
    print("receiver: " + err.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
