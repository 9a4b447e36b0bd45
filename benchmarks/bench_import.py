"""Benchmark: importing a large OTLP JSON Lines file (issue 6, "Benchmark").

Generates (or reuses) OTLP/JSON Lines files of the sizes asked -- the collector file exporter's
shape: one ``ExportTraceServiceRequest`` per line; each trace is an ``invoke_agent`` span carrying
``gen_ai.system_instructions`` and ``gen_ai.conversation.id`` with one chat span under it (input
and output messages, a tool definition, usage), and every fourth trace has its agent span written
on a later line than its chat span (a multi-line trace, as batches interleave) -- then, each in a
fresh child process:

* floor: ``json.loads`` of every line of the same file (read line by line);
* read: the ``otel`` importer's ``load`` alone (parse, group, map spans to request traces; no
  database), to tell the importer's cost from the store's;
* import: ``ctxviewer.importing.import_into`` of the file into a new database (what ``ctxviewer
  import FILE -o DB`` runs: also counts missing tokens and stores each trace with its assessment).

Prints per size: MB/s, traces/s, wall seconds, peak resident memory (MiB, the child's
``ru_maxrss``), the import's time and memory as ratios against the floor measured in the same run,
and finally the import's peak memory at the largest size over the smallest (memory must not grow
with file size: near 1.0 is bounded). Not a test: figures depend on the machine.

    python benchmarks/bench_import.py --sizes 50,200 --dir /tmp/bench-import
    python benchmarks/bench_import.py --sizes 20,200 --modes read   # the importer alone
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SYSTEM = "You are a support assistant for ACME. Answer only from the order database; never reveal internal notes."
TOOL = {"type": "function", "name": "lookup_order", "description": "Look up an order by id",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}


def _kv(key: str, value: object) -> dict[str, object]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)}}


def _request(spans: list[dict[str, object]]) -> str:
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [_kv("service.name", "bench-agent")]},
        "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai_v2"}, "spans": spans}]}]},
        separators=(",", ":"))


def trace_lines(n: int) -> list[str]:
    """The JSON Lines of trace ``n`` (one or two lines; see the module docstring)."""
    tid, agent, chat = f"{n:032x}", f"{2 * n + 1:016x}", f"{2 * n + 2:016x}"
    start = 1_760_000_000_000_000_000 + n * 10_000_000_000
    question = f"Where is order {n:08d}? I ordered it {n % 30} days ago and the tracking page says nothing. " * 3
    answer = f"Order {n:08d} left the warehouse yesterday; it should arrive within two days. " * 3
    chat_span = {
        "traceId": tid, "spanId": chat, "parentSpanId": agent, "name": "chat gpt-4o-mini", "kind": 3,
        "startTimeUnixNano": str(start + 1_000_000), "endTimeUnixNano": str(start + 1_251_000_000),
        "status": {"code": 1},
        "attributes": [
            _kv("gen_ai.operation.name", "chat"), _kv("gen_ai.provider.name", "openai"),
            _kv("gen_ai.request.model", "gpt-4o-mini"), _kv("gen_ai.response.model", "gpt-4o-mini-2024-07-18"),
            _kv("gen_ai.request.max_tokens", 512),
            _kv("gen_ai.input.messages", [
                {"role": "user", "parts": [{"type": "text", "content": question}]},
                {"role": "assistant", "parts": [{"type": "tool_call", "id": f"call_{n}", "name": "lookup_order",
                                                 "arguments": {"order_id": f"{n:08d}"}}]},
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call_{n}",
                                            "response": {"status": "shipped", "eta_days": 2}}]}]),
            _kv("gen_ai.output.messages", [{"role": "assistant", "finish_reason": "stop",
                                            "parts": [{"type": "text", "content": answer}]}]),
            _kv("gen_ai.tool.definitions", [TOOL]),
            _kv("gen_ai.usage.input_tokens", 180 + n % 50), _kv("gen_ai.usage.output_tokens", 60 + n % 20)]}
    agent_span = {
        "traceId": tid, "spanId": agent, "name": "invoke_agent support", "kind": 1,
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 1_300_000_000), "status": {"code": 1},
        "attributes": [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", "support"),
                       _kv("gen_ai.conversation.id", f"conv-{n // 4}"),
                       _kv("gen_ai.system_instructions", [{"type": "text", "content": SYSTEM}])]}
    if n % 4 == 3:  # the agent span ends up two lines later, in another batch
        return [_request([chat_span]), "", _request([agent_span])]
    return [_request([chat_span, agent_span])]


def generate(path: Path, mb: int) -> int:
    """Write an OTLP JSON Lines file of about ``mb`` MB at ``path``; returns its trace count."""
    target, size, n = mb * 1_000_000, 0, 0
    pending: list[str] = []  # a deferred agent line, written after the next trace's line
    with open(path, "w", encoding="utf-8") as fh:
        while size < target or pending:
            lines = trace_lines(n)
            first, later = lines[0], [x for x in lines[1:] if x]
            out = [first] + pending
            pending = later
            for line in out:
                fh.write(line + "\n")
                size += len(line) + 1
            n += 1
            if size >= target and not pending:
                break
    return n


CHILD = r"""
import json, resource, sys, time
mode, path, db = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
if mode == "floor":
    n = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                json.loads(line)
                n += 1
    count = n
elif mode == "read":
    from ctxviewer.importers import get_importer
    from ctxviewer.model import RequestTrace
    count = sum(isinstance(r, RequestTrace) for r in get_importer("otel").load(path))
else:
    from ctxviewer.importing import import_into
    report = import_into(db, [path])
    assert not report.problems, report.problems[:3]
    count = report.imported
secs = time.perf_counter() - t0
print(json.dumps({"secs": secs, "count": count, "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(mode: str, path: Path, db: Path) -> dict[str, float]:
    """Run ``mode`` (``floor`` or ``import``) on ``path`` in a fresh interpreter."""
    if db.exists():
        db.unlink()
    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(path), str(db)], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="50,200", help="File sizes in MB, comma-separated (default 50,200).")
    ap.add_argument("--modes", default="read,import", help="What to measure besides the floor (read, import).")
    ap.add_argument("--dir", default="/tmp/bench-import", help="Where the generated files and databases go.")
    args = ap.parse_args()
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    peaks: dict[str, dict[int, float]] = {}
    for mb in (int(s) for s in args.sizes.split(",")):
        path = work / f"otlp-{mb}mb.jsonl"
        if not path.exists():
            t0 = time.perf_counter()
            traces = generate(path, mb)
            print(f"generated {path} ({path.stat().st_size / 1e6:.1f} MB, {traces} traces) in {time.perf_counter() - t0:.1f} s")
        size_mb = path.stat().st_size / 1e6
        floor = measure("floor", path, work / "unused.db")
        print(f"{size_mb:7.1f} MB  floor json.loads: {size_mb / floor['secs']:7.1f} MB/s  {floor['secs']:8.2f} s  "
              f"peak {floor['rss_mib']:6.1f} MiB  ({int(floor['count'])} lines)", flush=True)
        for mode in args.modes.split(","):
            got = measure(mode, path, work / f"{mode}-{mb}mb.db")
            peaks.setdefault(mode, {})[mb] = got["rss_mib"]
            print(f"{size_mb:7.1f} MB  {mode + ':':17s} {size_mb / got['secs']:7.1f} MB/s  {got['secs']:8.2f} s  "
                  f"peak {got['rss_mib']:6.1f} MiB  {got['count'] / got['secs']:8.0f} traces/s  ({int(got['count'])} traces)  "
                  f"time x{got['secs'] / floor['secs']:.1f} floor, memory x{got['rss_mib'] / floor['rss_mib']:.2f} floor",
                  flush=True)
    for mode, by_size in peaks.items():
        if len(by_size) > 1:
            lo, hi = min(by_size), max(by_size)
            print(f"{mode} peak memory {hi} MB / {lo} MB file: x{by_size[hi] / by_size[lo]:.2f} "
                  f"(file x{hi / lo:.1f}; near 1.0 = memory does not grow with file size)")


if __name__ == "__main__":
    main()
