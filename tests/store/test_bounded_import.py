"""An import holds a fixed amount for its transaction, whatever the file's size
(:data:`ctxviewer.store.writes.FLUSH_TRACES`): the run steps read so far and the new token counts
are written every few traces, and the database it leaves is the one a single write at the end
leaves -- every table, row for row."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path
from types import ModuleType

import pytest

from ctxviewer.pipeline.importing import import_into
from ctxviewer.pipeline.missing_counts import COUNT_BATCH_TRACES
from ctxviewer.store import writes
from ctxviewer.store.runs import TraceRuns

ROOT = Path(__file__).resolve().parents[2]
TRACES = 200
"""OTel traces in the file: two spans each (an agent and its chat call), every fourth agent span
two lines after its chat span (bench_import's shape)."""


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_import", ROOT / "benchmarks" / "bench_import.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    c = sqlite3.connect(db)
    names = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                     "AND name NOT LIKE 'sqlite_%' AND name != '_sqlite_migrations'")]
    return {t: sorted(c.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in names}


def test_flushing_every_few_traces_stores_the_same_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "spans.otlp.jsonl"
    src.write_text("".join(line + "\n" for n in range(TRACES) for line in _bench().trace_lines(n)), encoding="utf-8")
    whole = import_into(tmp_path / "whole.db", [src], workers=1)
    assert (whole.imported, whole.problems) == (TRACES, [])

    held: list[int] = []  # run steps in memory at each write of them
    real = TraceRuns.write_runs

    def counting(self: TraceRuns, spans: list[object]) -> int:
        held.append(len(spans))
        return real(self, spans)  # type: ignore[arg-type]

    monkeypatch.setattr(writes, "FLUSH_TRACES", 16)
    monkeypatch.setattr(TraceRuns, "write_runs", counting)
    flushed = import_into(tmp_path / "flushed.db", [src], workers=1)
    assert flushed.imported == TRACES
    assert len(held) > 2  # written as they come (a write when the reader has read more), then the rest
    # at most the steps of the traces read ahead (one counting batch) and of one flush: never all 400
    assert max(held) <= 2 * (COUNT_BATCH_TRACES + 16) < 2 * TRACES
    assert sum(held) == 2 * TRACES
    assert _rows(tmp_path / "flushed.db") == _rows(tmp_path / "whole.db")
    assert len(_rows(tmp_path / "whole.db")["run_spans"]) == 2 * TRACES


def test_each_trace_is_converted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record the import checked (:func:`ctxviewer.pipeline.sanitize.checked`) is the one
    written: the writer converts no trace again, and the database is the same as when it does."""
    from dataclasses import replace

    from ctxviewer.model import serialize
    from ctxviewer.pipeline.sanitize import CheckedForms, checked

    src = tmp_path / "spans.otlp.jsonl"
    src.write_text("".join(line + "\n" for n in range(12) for line in _bench().trace_lines(n)), encoding="utf-8")
    again = import_into(tmp_path / "again.db", [src], workers=1)  # the writer converting as before
    monkeypatch.setattr(writes.TraceWrites, "_write",
                        lambda self, t, stored, known=None, real=writes.TraceWrites._write: real(self, t, stored))
    assert import_into(tmp_path / "again.db", [src], workers=1).imported == again.imported == 12
    monkeypatch.undo()

    calls: list[str] = []
    real_to_dict = serialize.trace_to_dict
    monkeypatch.setattr(serialize, "trace_to_dict", lambda t: calls.append(t.trace_id) or real_to_dict(t))
    assert import_into(tmp_path / "once.db", [src], workers=1).imported == 12
    assert calls == []  # (the check's own conversion is bound in sanitize, not counted here)
    monkeypatch.undo()
    assert _rows(tmp_path / "once.db") == _rows(tmp_path / "again.db")

    # a form is given only for the trace it was made of, items aside
    from ctxviewer.store import TraceStore

    with TraceStore.open(tmp_path / "once.db") as store:
        trace = store.load(store.list()[0].trace_id)
    forms = CheckedForms()
    why, form = checked(trace)
    assert why is None and form is not None and form["items"] == []  # items live in their own table
    forms.keep(trace, form)
    assert forms.take(replace(trace, items=trace.items[:1])) is form  # counting replaces only the items
    forms.keep(trace, form)
    assert forms.take(replace(trace, session_id="other")) is None
    forms.keep(trace, form)
    counted = replace(trace, endpoint=replace(trace.endpoint, encoding="cl100k_base"))  # the encoding recorded
    assert forms.take(counted)["endpoint"]["encoding"] == "cl100k_base"  # type: ignore[index]
    forms.keep(trace, checked(trace)[1])
    assert forms.take(replace(trace, endpoint=replace(trace.endpoint, model="other"))) is None
    assert forms.take(trace) is None  # taken once
