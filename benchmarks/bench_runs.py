"""Benchmark: the run tree of a 30,000-step run, and ``stats`` over a generated database (issue 22).

* **run tree** -- a synthetic run of ``--steps`` steps (an agent with sub-agents, each calling
  tools and models, the model calls stored as traces) written with :meth:`TraceStore.add`'s
  ``runs``; then what the Run tab does: *open* = :meth:`~ctxviewer.store.TraceStore.step_path`
  of a call deep in the run plus the children along that branch (the rows shown), *expand all* =
  the children of every step (one index range each), *read whole* = :meth:`run_steps` (every
  step in one query, the floor: what a non-lazy view would read before showing anything). Prints
  ms and ratios; the open must not grow with the run (lazy).
* **stats** (``--db``: a ``gen_traces.py`` database) -- :meth:`TraceStore.aggregate` by model,
  session and day (every group as Python objects: what ``ctxviewer stats`` prints), over a filter,
  and :meth:`TraceStore.aggregate_top` (the statistics window: the total and the 200 groups it
  shows); the floor is one column summed over the whole table.

    python benchmarks/bench_runs.py --steps 30000
    python benchmarks/gen_traces.py --traces 100000 --db /tmp/gen-100k.db
    python benchmarks/bench_runs.py --db /tmp/gen-100k.db

Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ctxviewer.model.run import RunSpan  # noqa: E402
from ctxviewer.pipeline.stored_facts import with_facts  # noqa: E402
from ctxviewer.store import TraceQuery, TraceStore  # noqa: E402

RUN = "run-30k"


def _time(fn: Callable[[], Any], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def synthetic_run(steps: int) -> tuple[list[RunSpan], list[str]]:
    """A run of ``steps`` steps: one root agent, sub-agents of 50 steps each (a model call, a tool,
    a retriever, in turn), and the ids of the model calls."""
    t0 = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
    spans = [RunSpan(RUN, "root", None, "agent", "planner", t0, t0 + timedelta(seconds=steps))]
    calls: list[str] = []
    n = 1
    agent = 0
    while n < steps:
        aid = f"agent-{agent}"
        spans.append(RunSpan(RUN, aid, "root", "agent", f"worker {agent}", t0 + timedelta(seconds=n),
                             t0 + timedelta(seconds=n + 49)))
        n += 1
        for k in range(min(49, steps - n)):
            kind = ("llm", "tool", "retriever")[k % 3]
            sid = f"{aid}-{k}"
            trace = f"call-{sid}" if kind == "llm" else None
            if trace:
                calls.append(trace)
            spans.append(RunSpan(RUN, sid, aid, kind, f"{kind} {k}", t0 + timedelta(seconds=n), t0 + timedelta(seconds=n, milliseconds=800),
                                 "ok", None, trace, {"index": k}))
            n += 1
        agent += 1
    return spans, calls


def bench_tree(steps: int) -> None:
    from dataclasses import replace

    sys.path.insert(0, str(ROOT / "tests"))
    from factories import make_trace

    spans, calls = synthetic_run(steps)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.db"
        base = make_trace()
        t0 = time.perf_counter()
        with TraceStore.create(db) as store:
            store.add(with_facts([replace(base, trace_id=c) for c in calls[:200]]), runs=spans)
        write_s = time.perf_counter() - t0
        with TraceStore.open(db) as store:
            target = calls[len(calls) // 2]

            def open_branch() -> None:
                found = store.step_path(target)
                assert found is not None
                run, path = found
                store.children(run, None)
                for sid in path[:-1]:
                    store.children(run, sid)

            def expand_all() -> None:
                for s in store.run_steps(RUN):
                    store.children(RUN, s.span.span_id)

            floor = _time(lambda: store.run_steps(RUN))
            opened = _time(open_branch)
            expanded = _time(expand_all, repeat=1)
        print(f"run tree, {len(spans):,} steps ({len(calls):,} model calls; written in {write_s:.2f} s)")
        print(f"  read whole (floor)   {floor:8.1f} ms")
        print(f"  open to a call       {opened:8.1f} ms   {opened / floor:6.3f} x floor")
        print(f"  expand all           {expanded:8.1f} ms   {expanded / floor:6.1f} x floor")
        bench_panel(db, target, floor)


def bench_panel(db: Path, target: str, floor: float) -> None:
    """The Run tab itself (offscreen): show the run of ``target``, expand every row (each read on
    expand), scroll to the end and back, painting each time."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from ctxviewer.gui.run_panel import RunPanel

    _app = QApplication.instance() or QApplication([])  # kept alive while the panel exists
    panel = RunPanel()
    panel.resize(900, 500)
    panel.show()
    panel.set_database(db)
    t0 = time.perf_counter()
    panel.show_trace(target)
    panel.wait()  # the run is read off the GUI thread (gui/run_reads.py): shown when it arrives
    shown = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    rows = -1
    while rows != (rows := sum(1 for _ in _walk(panel.tree))):  # each level's children arrive, then expand
        panel.tree.expandAll()
        panel.wait()
    expanded = (time.perf_counter() - t0) * 1000
    bar = panel.tree.verticalScrollBar()
    t0 = time.perf_counter()
    for value in (bar.maximum(), 0, bar.maximum() // 2):
        bar.setValue(value)
        panel.tree.viewport().repaint()
    scrolled = (time.perf_counter() - t0) * 1000 / 3
    print(f"  Run tab: show        {shown:8.1f} ms   {shown / floor:6.3f} x floor")
    print(f"  Run tab: expand all  {expanded:8.1f} ms   {expanded / floor:6.1f} x floor ({rows:,} rows)")
    print(f"  Run tab: scroll+paint{scrolled:8.1f} ms per jump")
    panel.stop()  # waits for the read threads (close_store alone left one running at exit)


def _walk(tree: Any) -> Any:
    stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(item.child(i) for i in range(item.childCount()))


def bench_stats(db: Path) -> None:
    with TraceStore.open(db) as store:
        n = store.count()
        conn = store._conn
        floor = _time(lambda: conn.execute("SELECT sum(retained_count) FROM traces NOT INDEXED").fetchone(), repeat=3)
        print(f"stats over {n:,} traces; floor: one column summed over the table {floor:.1f} ms")
        for label, query, by in (("total", None, None), ("by model", None, "model"), ("by day", None, "day"),
                                 ("by session", None, "session"),
                                 ("filter omitted > 2, by model", TraceQuery(text="omitted > 2"), "model"),
                                 ('filter model ~ "gpt-4o", by day', TraceQuery(text='model ~ "gpt-4o"'), "day")):
            ms = _time(lambda q=query, b=by: store.aggregate(q, b), repeat=3)
            print(f"  {label:36} {ms:9.1f} ms   {ms / floor:8.1f} x floor")
        for by in ("model", "day", "session"):  # what Trace > Statistics... asks: the total and the 200 shown
            ms = _time(lambda b=by: store.aggregate_top(None, b, 200), repeat=3)
            print(f"  {'window: by ' + by + ', top 200 + total':36} {ms:9.1f} ms   {ms / floor:8.1f} x floor")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30_000)
    ap.add_argument("--db", type=Path, help="a gen_traces.py database: time stats over it")
    args = ap.parse_args()
    if args.db is not None:
        bench_stats(args.db)
    else:
        bench_tree(args.steps)


if __name__ == "__main__":
    main()
