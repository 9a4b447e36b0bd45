"""The import's assessment over worker processes (issue 11, "Import speed"): the same facts as in
process, in input order, each distinct untrusted text scanned about once, the check configuration
carried to the workers, a dead worker replaced by this process, a cancel that kills a busy worker."""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from ctxviewer.assess.config import CheckConfig
from ctxviewer.assess.context import AssessContext
from ctxviewer.importers import get_importer
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline import assess_pool
from ctxviewer.pipeline.assess_pool import ScanMemo, assessed, digest
from ctxviewer.pipeline.importing import import_into
from ctxviewer.pipeline.stored_facts import stored_facts, with_facts
from ctxviewer.util.interrupt import Interrupted, watching

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "traces.jsonl"


def _samples() -> list[RequestTrace]:
    return [t for t in get_importer("native").load(SAMPLES) if isinstance(t, RequestTrace)]


def _many(copies: int) -> list[RequestTrace]:
    """``copies`` rounds of the 9 sample traces under new ids (``<id>#<round>``)."""
    base = _samples()
    return [replace(t, trace_id=f"{t.trace_id}#{k}") for k in range(copies) for t in base]


class _Spy:
    """Records the workers started (their processes), wrapping ``Worker.__init__``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.workers: list[assess_pool.Worker] = []
        real = assess_pool.Worker.__init__

        def init(w: assess_pool.Worker) -> None:
            real(w)
            self.workers.append(w)

        monkeypatch.setattr(assess_pool.Worker, "__init__", init)


def _no_in_process_assessment(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(trace: RequestTrace) -> None:
        raise AssertionError(f"{trace.trace_id} assessed in the importing process")

    monkeypatch.setattr(assess_pool, "stored_facts", refuse)


def test_workers_give_the_in_process_facts_in_input_order(monkeypatch: pytest.MonkeyPatch) -> None:
    traces = _many(6)  # 54 traces
    expected = [stored_facts(t) for t in traces]
    spy = _Spy(monkeypatch)
    _no_in_process_assessment(monkeypatch)  # every fact below comes from a worker
    got = list(assessed(traces, workers=2, batch=4, pool_after=8))
    assert [t.trace_id for t, _ in got] == [t.trace_id for t in traces]
    assert [f for _, f in got] == expected
    assert len(spy.workers) == 2 and all(w.proc is not None and w.proc.wait(5) is not None for w in spy.workers)
    facts = {t.trace_id: f for t, f in got}
    assert facts["ticket-injection#5"].values[3] == "warning"  # the state column
    assert [r[0] for r in facts["ticket-injection#5"].findings] == [
        "injection.action_linkage", "tool.unsafe_blocked", "injection.hidden", "injection.override",
        "injection.tool_request"]
    assert facts["policy-missing#0"].values[3:5] == ("failure", "policy.unavailable")


def test_a_short_stream_or_one_worker_stays_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(monkeypatch)
    traces = _many(1)
    assert [f for _, f in assessed(traces, workers=2, pool_after=10)] == [stored_facts(t) for t in traces]
    assert [f for _, f in assessed(traces, workers=1, pool_after=2)] == [stored_facts(t) for t in traces]
    assert spy.workers == []


def test_the_check_configuration_goes_to_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    traces = _many(2)
    context = AssessContext(CheckConfig().with_expected({"support-policy": "2026-12-01"}))
    expected = [stored_facts(t, context) for t in traces]
    _no_in_process_assessment(monkeypatch)
    got = [f for _, f in assessed(traces, workers=2, batch=3, pool_after=4, context=context)]
    assert got == expected
    assert "policy.unexpected_version" in [r[0] for r in got[0].findings]  # budget-8k: not the version expected
    assert "policy.unexpected_version" not in [r[0] for r in stored_facts(traces[0]).findings]


def test_each_distinct_untrusted_text_is_scanned_once_across_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    traces = _many(8)  # the same 9 traces' texts, 8 times over
    learned: list[int] = []
    real = ScanMemo.learn

    def learn(memo: ScanMemo, fresh: dict[bytes, tuple[object, ...]]) -> None:
        learned.append(len(fresh))
        real(memo, fresh)

    monkeypatch.setattr(ScanMemo, "learn", learn)
    list(assessed(traces, workers=2, batch=9, pool_after=9))
    from ctxviewer.assess.scanner.scope import Scope, scope_of

    distinct = {digest(i.content) for t in _samples() for i in t.items if i.content and scope_of(i) is Scope.UNTRUSTED}
    # scanned at most once per worker (the two first batches run at once), never again after that
    assert len(distinct) <= sum(learned) <= 2 * len(distinct)
    assert sum(learned[4:]) == 0


def test_a_worker_that_dies_is_replaced_by_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(monkeypatch)
    traces = _many(4)

    def source() -> Iterator[RequestTrace]:
        for n, t in enumerate(traces):
            if n == 20:
                spy.workers[0].proc.kill()  # type: ignore[union-attr]
            yield t

    got = list(assessed(source(), workers=2, batch=2, pool_after=4))
    assert [(t.trace_id, f) for t, f in got] == [(t.trace_id, stored_facts(t)) for t in traces]


@pytest.mark.slow
def test_a_cancel_kills_a_worker_busy_with_a_huge_item(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(monkeypatch)
    base = _samples()[4]  # ticket-injection: ticket TCK-58213 is untrusted evidence, scanned
    items = tuple(replace(i, content="Please note the delivery window. " * 60_000) if i.id == "TCK-58213" else i
                  for i in base.items)  # ~2 MB of prose: long to scan

    def huge() -> Iterator[RequestTrace]:
        for n in range(200):
            yield replace(base, trace_id=f"huge{n}", items=items)

    stop = threading.Event()
    timer = threading.Timer(1.0, stop.set)
    timer.start()
    try:
        with pytest.raises(Interrupted), watching(stop.is_set):
            list(assessed(huge(), workers=2, batch=1, pool_after=2))
    finally:
        timer.cancel()
    codes = [w.proc.poll() for w in spy.workers if w.proc is not None]
    assert len(codes) == 2 and all(c is not None and c < 0 for c in codes)  # killed mid-batch, not waited for


def test_import_with_workers_stores_what_an_in_process_import_stores(tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    lines = SAMPLES.read_text(encoding="utf-8").splitlines()
    with open(src, "w", encoding="utf-8") as fh:
        for k in range(7):
            for line in lines:
                d = json.loads(line)
                d["trace_id"] = f"{d['trace_id']}#{k}"
                if k % 2:  # half the copies must be counted: tokens dropped
                    for item in d["items"]:
                        item.pop("tokens", None)
                        item.pop("tokens_provenance", None)
                fh.write(json.dumps(d) + "\n")
    tables = {}
    for workers in (1, 2):
        db = tmp_path / f"w{workers}.db"
        report = import_into(db, [src], workers=workers)
        assert report.imported == 63 and not report.problems
        with closing(sqlite3.connect(db)) as conn:
            tables[workers] = [conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                               for t in ("traces", "trace_findings", "items", "token_counts")]
    assert tables[1] == tables[2]
    traces, findings, items, counts = tables[2]
    assert len(traces) == 63 and len(items) == 7 * sum(len(t.items) for t in _samples())
    assert ("ticket-injection#3", "injection.override", "warning", 1) in findings
    assert len(counts) > 0  # the odd copies were counted with tiktoken and cached per content hash


def test_reassess_runs_over_the_workers_and_restores_every_fact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.store import TraceStore
    from ctxviewer.store.facts import FACT_COLUMNS

    db = tmp_path / "r.db"
    with TraceStore.create(db) as store:
        store.add(with_facts(_many(6)))  # 54 traces, assessed in this process
    with closing(sqlite3.connect(db)) as conn:
        before = [conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in ("traces", "trace_findings")]
        with conn:
            conn.execute(f"UPDATE traces SET {', '.join(f'{c} = NULL' for c in FACT_COLUMNS)}")
            conn.execute("DELETE FROM trace_findings")
    spy = _Spy(monkeypatch)
    from ctxviewer.pipeline.backfill import reassess

    with TraceStore.create(db) as store:
        assert reassess(store) == 54
    assert len(spy.workers) == 2
    with closing(sqlite3.connect(db)) as conn:
        after = [conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in ("traces", "trace_findings")]
    assert after == before
    assert ("policy-missing#2", "policy.unavailable", "failure", 1) in after[1]


def test_an_import_on_two_cores_assesses_in_its_own_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below POOL_MIN_CORES (3) cores an import starts no workers by default (measured: on 2 cores
    the pool cost more CPU and wall time than it saved) and stores the same facts; from 3 cores
    one worker per core. A re-assessment keeps one per core."""
    from ctxviewer.pipeline.importing import import_into

    for cores, workers in ((1, 1), (2, 1), (3, 3), (4, 4)):
        monkeypatch.setattr(assess_pool.os, "sched_getaffinity", lambda _pid, n=cores: set(range(n)))
        assert (assess_pool.import_workers(), assess_pool.default_workers()) == (workers, cores)
    monkeypatch.setattr(assess_pool.os, "sched_getaffinity", lambda _pid: {0, 1})
    src = tmp_path / "spans.otlp.jsonl"
    from tests.store.test_bounded_import import _bench, _rows

    src.write_text("".join(line + "\n" for n in range(60) for line in _bench().trace_lines(n)), encoding="utf-8")
    spy = _Spy(monkeypatch)
    assert import_into(tmp_path / "here.db", [src]).imported == 60
    assert spy.workers == []
    assert import_into(tmp_path / "pool.db", [src], workers=2).imported == 60
    assert len(spy.workers) == 2
    assert _rows(tmp_path / "here.db") == _rows(tmp_path / "pool.db")
