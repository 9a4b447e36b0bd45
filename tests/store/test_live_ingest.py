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
