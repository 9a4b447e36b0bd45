"""The live receiver's writer (:mod:`ctxviewer.pipeline.live_writer`) does each trace's work once
per wake-up and leaves the database a slower writer leaves: every table, row for row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.pipeline.live_writer import LiveWriter
from ctxviewer.store import writes
from tests.store.test_bounded_import import _bench, _rows

TRACES = 24
"""OTel traces sent: an agent span and its chat span each, every fourth agent span two requests
after its chat span (bench_import's shape: a chat span regrouped when its parent comes)."""


def _docs() -> list[dict[str, Any]]:
    return [json.loads(line) for n in range(TRACES) for line in _bench().trace_lines(n) if line]


def _live(db: Path, docs: list[dict[str, Any]]) -> LiveWriter:
    writer = LiveWriter(db)
    writer.start()
    try:
        for doc in docs:  # one request at a time, each committed before the next (the SDK's exporter)
            batch = writer.offer("traces", doc)
            assert batch is not None and batch.done.wait(60) and batch.error is None
    finally:
        writer.stop()
    return writer


def test_the_live_writer_converts_each_trace_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record checked on the way in is the one written (no second ``trace_to_dict``), and the
    database is the one a writer converting every trace again leaves."""
    from ctxviewer.model import serialize
    from ctxviewer.pipeline.warm_up import first_trace

    first_trace()  # its own conversion, once per process, is not the writer's
    docs = _docs()
    monkeypatch.setattr(writes.TraceWrites, "_write",
                        lambda self, t, stored, known=None, real=writes.TraceWrites._write: real(self, t, stored))
    again = _live(tmp_path / "again.db", docs)
    monkeypatch.undo()

    calls: list[str] = []
    real_to_dict = serialize.trace_to_dict
    monkeypatch.setattr(serialize, "trace_to_dict", lambda t: calls.append(t.trace_id) or real_to_dict(t))
    once = _live(tmp_path / "once.db", docs)
    monkeypatch.undo()
    assert calls == []  # (the check's own conversion is bound in sanitize, not counted here)
    assert (once.counts.spans, once.counts.new_trace_ids) == (again.counts.spans, again.counts.new_trace_ids) == (
        2 * TRACES, TRACES)
    assert _rows(tmp_path / "once.db") == _rows(tmp_path / "again.db")


def _chat_request(first: int, n: int) -> dict[str, Any]:
    """One request of ``n`` chat spans, each its own OTel trace (trace ids from ``first``)."""
    from otlp_factories import i, otlp_request, otlp_span, s

    return otlp_request(*(otlp_span(f"{k + 1:016x}", f"{k + 1:032x}", start=str(1_764_000_000_000_000_000 + k),
                                    end=str(1_764_000_001_000_000_000 + k), **{
                                        "gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("gpt-4o"),
                                        "gen_ai.input.messages": s(json.dumps([{"role": "user", "parts": [
                                            {"type": "text", "content": f"Question {k}?"}]}])),
                                        "gen_ai.usage.input_tokens": i(9)})
                          for k in range(first, first + n)))


def test_a_backlog_is_written_in_commits_of_bounded_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten requests of 30 spans queued while the writer was busy: each wake-up takes whole
    requests until it holds :data:`WAKE_RECORDS` spans (here 100: four requests, 120 spans), so
    the backlog is three commits of 4, 4 and 2 requests, and every span is written."""
    from ctxviewer.pipeline import live_writer
    from ctxviewer.pipeline.live_writer import Batch, records_in

    monkeypatch.setattr(live_writer, "WAKE_RECORDS", 100)
    commits: list[tuple[int, int]] = []
    writer = LiveWriter(tmp_path / "live.db", on_written=lambda c: commits.append((c.written, c.spans)))
    batches = [writer.offer("traces", _chat_request(30 * n, 30)) for n in range(10)]  # before it wakes
    writer.start()
    try:
        assert all(b is not None and b.done.wait(60) and b.error is None for b in batches)
    finally:
        writer.stop()
    assert commits == [(4, 120), (8, 240), (10, 300)]
    assert writer.counts.new_trace_ids == 300
    assert records_in(Batch("traces", _chat_request(0, 7))) == 7
    assert records_in(Batch("logs", {"resourceLogs": [{"scopeLogs": [{"logRecords": [{}, {}]}, {}]}, 3]})) == 2
    assert records_in(Batch("traces", {"resourceSpans": "no"})) == 0


def test_the_warm_up_loads_the_price_data_before_the_first_span() -> None:
    """:func:`ctxviewer.pipeline.live_writer.warm_up` (the writer thread's first step) imports the
    model catalogue's price data, which the first span's assessment would otherwise wait for."""
    import subprocess
    import sys

    code = ("import sys; from ctxviewer.pipeline.live_writer import warm_up; before = 'genai_prices' in sys.modules; "
            "warm_up(); print(before, 'genai_prices' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
