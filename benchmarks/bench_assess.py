"""Benchmark: what the per-trace assessment costs at import and at selection (issue 5).

For every sample trace (``sample_traces/samples.db``), repeated ``--repeat`` times, prints wall-clock
medians in ms of:

* load -- ``TraceStore.load`` (the floor: what selecting a trace cost before the assessment);
* assess -- :func:`ctxviewer.assess.assessment.assess` on a fresh trace object (all checks, eq. 3.1 once,
  figure, header), i.e. what storing a trace with its facts adds per trace and what a selection adds;
* add -- ``TraceStore.add`` of all samples into a new database, per trace (includes assess);
* add w/o facts -- the same with the facts stubbed out (the old cost), per trace;

and the ratios assess/load and add/add-w/o-facts. The machine is shared: compare ratios within a run.

Example:
    .venv/bin/python benchmarks/bench_assess.py --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from ctxviewer.assess import budget
from ctxviewer.assess.assessment import assess
from ctxviewer.pipeline.stored_facts import facts_of, with_facts
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces" / "samples.db"


def _ms(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with TraceStore.open(SAMPLES) as store:
        ids = [r.trace_id for r in store.list(None, 0, -1)]
        traces = [store.load(i) for i in ids]
        load = _ms(lambda: [store.load(i) for i in ids], args.repeat) / len(ids)

    def fresh_assess() -> None:
        budget.capacity.cache_clear()
        for t in traces:
            assess(replace(t))

    assess_ms = _ms(fresh_assess, args.repeat) / len(traces)

    def add(stub: bool) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            a = assess(traces[0])
            with TraceStore.create(Path(tmp) / "b.db") as st:  # stubbed: one trace's facts, renamed
                st.add(((t, replace(facts_of(a), trace_id=t.trace_id)) for t in traces) if stub else with_facts(traces))

    add_ms = _ms(lambda: add(False), args.repeat) / len(traces)
    plain_ms = _ms(lambda: add(True), args.repeat) / len(traces)
    print(f"{len(traces)} sample traces, median of {args.repeat} runs, ms per trace")
    print(f"load            {load:8.2f}")
    print(f"assess          {assess_ms:8.2f}   assess/load {assess_ms / load:5.1f}x")
    print(f"add             {add_ms:8.2f}")
    print(f"add w/o facts   {plain_ms:8.2f}   add/add-w/o-facts {add_ms / plain_ms:5.1f}x")


if __name__ == "__main__":
    main()
