"""assessment.conclude: what an import stores, without the chart figure, numbers line and header
rows (issue 11, import speed). Every field equals the full assessment's, for every sample trace,
and the stored facts are the same as from the full assessment."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from ctxviewer.assess.assessment import assess, conclude
from ctxviewer.pipeline.stored_facts import fact_values, finding_rows, stored_facts
from ctxviewer.store import TraceStore

SAMPLES_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


ROOT = Path(__file__).resolve().parents[2]


def _generated(db: Path, n: int) -> None:
    spec = importlib.util.spec_from_file_location("gen_traces", ROOT / "benchmarks" / "gen_traces.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_traces", mod)  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    mod.write(db, n, seed=5)


@pytest.mark.parametrize("source", ["samples", "generated"])
def test_conclusion_equals_the_assessment_for_every_sample_trace(source: str, tmp_path: Path) -> None:
    db = SAMPLES_DB
    if source == "generated":  # sessions, document pools, injections: benchmarks/gen_traces.py
        db = tmp_path / "gen.db"
        _generated(db, 150)
    with TraceStore.open(db) as store:
        traces = [store.load(r.trace_id) for r in store.list(limit=-1)]
    assert len(traces) == (150 if source == "generated" else 9)
    states = set()
    for t in traces:
        c, a = conclude(t), assess(t)
        assert (c.trace_id, c.capacity, c.findings, c.state, c.verdict, c.omissions_recorded) == (
            a.trace_id, a.capacity, a.findings, a.state, a.verdict, a.omissions_recorded), t.trace_id
        assert c.worst == a.worst
        assert fact_values(c) == fact_values(a)
        assert finding_rows(t.trace_id, c) == finding_rows(t.trace_id, a)
        s = stored_facts(t)
        assert s.values == fact_values(a) and s.input_tokens == a.capacity.input_tokens
        states.add(a.state.value)
    assert states == {"ok", "warning", "failure"}  # each source exercises every state


def test_a_known_sample_concludes_with_its_exact_verdict() -> None:
    with TraceStore.open(SAMPLES_DB) as store:
        t = store.load("budget-8k-over")
    c = conclude(t)
    assert (c.capacity.fits, c.capacity.margin, c.state.value) == (True, 800, "ok")
    assert c.verdict == "fits, 800 tokens margin; before trimming: over by 700"
