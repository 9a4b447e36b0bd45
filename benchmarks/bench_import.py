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
* import: ``ctxviewer.pipeline.importing.import_into`` of the file into a new database (what ``ctxviewer
  import FILE -o DB`` runs: also counts missing tokens and stores each trace with its assessment).

Prints per size: MB/s, traces/s, wall seconds, peak resident memory (MiB, the child's
``ru_maxrss``), the import's time and memory as ratios against the floor measured in the same run,
and finally the import's peak memory at the largest size over the smallest (memory must not grow
with file size: near 1.0 is bounded). Not a test: figures depend on the machine.

``--realistic N`` (issue 11, "Import speed") measures instead a native JSON Lines file of N traces
written by ``benchmarks/gen_traces.py`` (shared policies and tool sets, sessions whose history
grows, evidence drawn from a document pool: content repeats as in real traces) and exported with
``ctxviewer export --format native``, with every recorded token count removed so that the import
counts them all. Modes, each in a fresh child process, with the load average (``uptime``) beside
each figure:

* ``floor``: ``json.loads`` of every line;
* ``tok-floor``: tiktoken's own ``encode_ordinary_batch`` over the distinct item texts of the file
  (2 threads per core): the token-counting floor, in Mtok/s;
* ``tokens``: ``TraceStore.token_counts`` over every item text of the file, in file order, batch
  by batch as the import calls it, on a new database (content-hash cache, each distinct text
  counted once, over the cores), in Mtok/s of distinct text;
* ``import1`` and ``import``: the whole import with one process and with one worker per core
  (:mod:`ctxviewer.pipeline.assess_pool`), in item rows/s and traces/s, with CPU seconds (this process
  and its workers) beside the wall time.

    python benchmarks/bench_import.py --sizes 50,200 --dir /tmp/bench-import
    python benchmarks/bench_import.py --sizes 20,200 --modes read   # the importer alone
    python benchmarks/bench_import.py --realistic 3000 --modes tok-floor,tokens,import1,import
"""

from __future__ import annotations

import argparse
import json
import os
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
extra = {}
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
    from ctxviewer.model.trace import RequestTrace
    count = sum(isinstance(r, RequestTrace) for r in get_importer("otel").load(path))
elif mode in ("tok-floor", "tokens"):
    import os
    texts = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                texts.extend(i["content"] for i in json.loads(line)["items"] if i.get("content") is not None)
    from ctxviewer.tokens.counting import get_encoding
    enc = get_encoding("cl100k_base")
    distinct = list(dict.fromkeys(texts))
    extra["tokens"] = sum(map(len, enc.encode_ordinary_batch(distinct, num_threads=2 * (os.cpu_count() or 1))))
    extra["texts"], extra["distinct"] = len(texts), len(distinct)
    if mode == "tok-floor":
        t0, cpu0 = time.perf_counter(), time.process_time()
        enc.encode_ordinary_batch(distinct, num_threads=2 * (os.cpu_count() or 1))
        t_end = time.perf_counter()
    else:
        from ctxviewer.store import TraceStore
        with TraceStore.create(db) as store:  # (creating the database is not timed)
            t0, cpu0 = time.perf_counter(), time.process_time()
            for i in range(0, len(texts), 768):  # about what one import batch of 64 traces holds
                store.token_counts(texts[i:i + 768], "cl100k_base")
            t_end = time.perf_counter()  # (writing the cache at close is not timed)
    count = len(distinct)
    cpu_end = time.process_time()
else:
    import inspect
    from ctxviewer.pipeline.importing import import_into
    kw = {"workers": 1} if mode == "import1" and "workers" in inspect.signature(import_into).parameters else {}
    report = import_into(db, [path], **kw)  # (code before the worker pool: both modes are in-process)
    assert not report.problems, report.problems[:3]
    count = report.imported
    extra["items"] = sum(report.items_by_trace.values())
secs = globals().get("t_end", time.perf_counter()) - t0
ru, ch = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime + ch.ru_utime + ch.ru_stime
if mode in ("tok-floor", "tokens"):
    cpu = cpu_end - cpu0  # the counting alone (all threads of this process)
print(json.dumps({"secs": secs, "count": count, "rss_mib": ru.ru_maxrss / 1024, "cpu": cpu, **extra}))
"""


def measure(mode: str, path: Path, db: Path) -> dict[str, float]:
    """Run ``mode`` (``floor`` or ``import``) on ``path`` in a fresh interpreter."""
    if db.exists():
        db.unlink()
    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(path), str(db)], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def load() -> str:
    """The 1-minute load average now (``uptime``'s first figure)."""
    return f"{os.getloadavg()[0]:.2f}"


def realistic(traces: int, work: Path) -> Path:
    """The native JSON Lines file of ``traces`` generated traces, token counts removed (cached)."""
    path = work / f"gen-{traces}.notokens.jsonl"
    if path.exists():
        return path
    db, native = work / f"gen-{traces}.db", work / f"gen-{traces}.native.jsonl"
    for f in (db, native):
        f.unlink(missing_ok=True)
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_traces.py"), "--traces", str(traces),
                    "--db", str(db)], check=True, cwd=ROOT)
    subprocess.run([sys.executable, "-m", "ctxviewer", "export", str(db), "-o", str(native), "--format", "native"],
                   check=True, cwd=ROOT, capture_output=True)
    with open(native, encoding="utf-8") as fh, open(path, "w", encoding="utf-8") as out:
        for line in fh:
            d = json.loads(line)
            for item in d.get("items", []):
                item.pop("tokens", None)
                item.pop("tokens_provenance", None)
            out.write(json.dumps(d, ensure_ascii=False) + "\n")
    native.unlink()
    return path


def main_realistic(traces: int, modes: list[str], work: Path) -> None:
    """``--realistic``: see the module docstring."""
    path = realistic(traces, work)
    size_mb = path.stat().st_size / 1e6
    print(f"{path}: {size_mb:.1f} MB, {traces} traces, load {load()}", flush=True)
    floor = measure("floor", path, work / "unused.db")
    print(f"floor json.loads        {floor['secs']:8.2f} s  {size_mb / floor['secs']:7.1f} MB/s  "
          f"{traces / floor['secs']:8.0f} traces/s   load {load()}", flush=True)
    tok_floor = None
    for mode in modes:
        got = measure(mode, path, work / f"{mode}-real.db")
        if mode in ("tok-floor", "tokens"):
            mtok = got["tokens"] / got["secs"] / 1e6
            tok_floor = mtok if mode == "tok-floor" else tok_floor
            ratio = f"  x{mtok / tok_floor:.2f} of tiktoken's batch" if tok_floor and mode == "tokens" else ""
            print(f"{mode:10s}              {got['secs']:8.2f} s  {mtok:7.2f} Mtok/s  "
                  f"{got['tokens'] / max(got['cpu'], 1e-9) / 1e6:5.2f} Mtok per cpu-s  ({int(got['tokens']):,} tokens in "
                  f"{int(got['distinct']):,} distinct of {int(got['texts']):,} texts){ratio}   load {load()}", flush=True)
        else:
            items = got["items"]
            print(f"{mode:10s}              {got['secs']:8.2f} s  {items / got['secs']:8.0f} item rows/s  "
                  f"{got['count'] / got['secs']:6.0f} traces/s  cpu {got['cpu']:6.1f} s  peak {got['rss_mib']:6.1f} MiB  "
                  f"time x{got['secs'] / floor['secs']:.1f} floor  ({int(items):,} item rows)   load {load()}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="50,200", help="File sizes in MB, comma-separated (default 50,200).")
    ap.add_argument("--modes", default="read,import", help="What to measure besides the floor (read, import).")
    ap.add_argument("--dir", default="/tmp/bench-import", help="Where the generated files and databases go.")
    ap.add_argument("--realistic", type=int, metavar="N",
                    help="Measure a generated native file of N traces instead (see the module docstring).")
    args = ap.parse_args()
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    if args.realistic:
        modes = args.modes.split(",") if args.modes != "read,import" else ["tok-floor", "tokens", "import1", "import"]
        main_realistic(args.realistic, modes, work)
        return
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
