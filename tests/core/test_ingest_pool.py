"""A big OTel JSON Lines import read over worker processes in chunks (issue 25 item 3): the same
database, byte for byte, and the same problems as the serial read; a bad record inside a worker's
chunk named as the serial read names it, the rest loaded; a cancel that stops the workers."""

from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.pipeline import ingest_pool
from ctxviewer.pipeline.importing import import_into
from tests.otlp_factories import chat_span, otlp_chat_span, otlp_request, otlp_span, s, three_call_spans

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from db_same import dump  # noqa: E402  (the benchmark's canonical dump of every table)


def _trace_id(n: int) -> str:
    return f"{n:032x}"


def _lines(bad_at: int | None = None) -> list[str]:
    """40 one-call traces (each on one line, every 7th split over two lines: its chat span, then
    its parent agent span), two three-call agent loops (derived omissions), a lone tool
    execution at the end; line ``bad_at`` (1-based) replaced by broken JSON."""
    out: list[str] = []
    for n in range(1, 41):
        tid = _trace_id(n)
        chat = otlp_chat_span(tid, f"{n:016x}", 1_764_000_000_000_000_000 + n * 10**9,
                              [("system", "You are the Northwind support assistant."), ("user", f"Where is order {n}?")],
                              answer=f"Order {n} ships tomorrow.")
        if n % 7 == 0:
            chat["parentSpanId"] = f"{n + 1000:016x}"
            out.append(json.dumps(otlp_request(chat, resource={"service.name": "shop"})))
            out.append(json.dumps(otlp_request(otlp_span(f"{n + 1000:016x}", tid, name="invoke_agent shop",
                                                         **{"gen_ai.operation.name": s("invoke_agent")}))))
        else:
            out.append(json.dumps(otlp_request(chat, resource={"service.name": "shop"})))
    for k in (1, 2):
        out.append(json.dumps(otlp_request(*three_call_spans(f"{k:02x}" * 16), resource={"service.name": "agent"})))
    out.append(json.dumps(otlp_request(otlp_span("00000000000000f1", "f1" * 16, name="execute_tool lookup",
                                                 **{"gen_ai.operation.name": s("execute_tool"),
                                                    "gen_ai.tool.name": s("lookup")}))))
    if bad_at is not None:
        out[bad_at - 1] = '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab'  # cut short
    return out


def _write(tmp_path: Path, lines: list[str], name: str = "spans.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class _Started:
    """Counts the workers the ingest pool starts."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.workers: list[Any] = []
        real = ingest_pool.Worker

        def start(module: str) -> Any:
            w = real(module)
            self.workers.append(w)
            return w

        monkeypatch.setattr(ingest_pool, "Worker", start)


def _import(tmp_path: Path, path: Path, name: str, pool: bool, **kw: Any) -> Any:
    return import_into(tmp_path / name, [path], workers=2, pool=pool, **kw)


def _problems(report: Any) -> list[tuple[str, str, str, int]]:
    return [(p.file, p.record, p.message, p.dropped) for p in report.problems]


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ingest_pool, "CHUNK_LINES", 4)  # ~12 chunks over the two workers


def test_pool_writes_the_same_database_as_the_serial_read(tmp_path: Path, small_chunks: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, _lines())
    serial = _import(tmp_path, path, "serial.db", pool=False)
    started = _Started(monkeypatch)
    pooled = _import(tmp_path, path, "pool.db", pool=True)
    assert len(started.workers) == 2
    assert all(w.proc is not None and w.proc.poll() is not None for w in started.workers)  # stopped at the end
    assert pooled.imported == serial.imported == 40 + 6 + 1
    assert _problems(pooled) == _problems(serial)
    assert [(p.record, p.message) for p in pooled.problems] == [
        ("line 48 resourceSpans[0].scopeSpans[0].spans[0]", "execute_tool span fed no chat span in this file; imported on its own (its call and result)")]
    a, b = dump(tmp_path / "serial.db"), dump(tmp_path / "pool.db")
    assert a == b
    with closing(sqlite3.connect(tmp_path / "pool.db")) as conn:  # written in file order
        assert [r[0] for r in conn.execute("SELECT trace_id FROM traces ORDER BY rowid LIMIT 2")] == [
            f"{_trace_id(1)}:{1:016x}", f"{_trace_id(2)}:{2:016x}"]
        assert conn.execute("SELECT retained_count FROM traces WHERE trace_id = ?",
                            (f"{'01' * 16}:00000000000000c3",)).fetchone() == (4,)


def test_small_file_is_read_serially_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ingest_pool.ENV, raising=False)
    path = _write(tmp_path, _lines())
    assert path.stat().st_size < ingest_pool.POOL_MIN_BYTES
    started = _Started(monkeypatch)
    report = import_into(tmp_path / "t.db", [path], workers=2)
    assert report.imported == 47 and started.workers == []
    monkeypatch.setenv(ingest_pool.ENV, "pool")
    report = import_into(tmp_path / "u.db", [path], workers=2)
    assert report.imported == 47 and len(started.workers) == 2


def test_bad_record_in_a_workers_chunk_is_named_as_serially_and_the_rest_loads(tmp_path: Path, small_chunks: None) -> None:
    path = _write(tmp_path, _lines(bad_at=10))  # line 10: trace 9 (in the third chunk)
    serial = _import(tmp_path, path, "serial.db", pool=False)
    pooled = _import(tmp_path, path, "pool.db", pool=True)
    assert _problems(pooled) == _problems(serial)
    file, record, message, dropped = _problems(pooled)[0]
    assert (file, record, dropped) == (str(path), "line 10", 1)
    assert message.startswith("not valid JSON: Unterminated string")
    # a line was rejected before it: the lone tool execution is not kept (as serially)
    assert [p.record for p in pooled.problems] == ["line 10"]
    assert pooled.imported == serial.imported == 40 - 1 + 6
    assert dump(tmp_path / "serial.db") == dump(tmp_path / "pool.db")


def test_cancel_stops_the_workers_and_writes_nothing(tmp_path: Path, small_chunks: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, _lines())
    started = _Started(monkeypatch)
    seen: list[int] = []
    report = _import(tmp_path, path, "c.db", pool=True, read=seen.append, cancelled=lambda: len(seen) >= 10)
    assert report.cancelled and report.imported == 0
    assert seen[-1] == 10  # stopped at the first record read after the cancel
    assert report.removed_database and not (tmp_path / "c.db").exists()
    assert len(started.workers) == 2
    assert all(w.proc is not None and w.proc.poll() is not None for w in started.workers)


def test_chunks_hold_whole_traces(tmp_path: Path) -> None:
    from ctxviewer.importers.formats.otel.chunks import index, line_chunks

    lines = _lines()
    lines.insert(3, json.dumps(otlp_request(chat_span("00000000000000e1", _trace_id(1)))))  # trace 1 again, line 4
    path = _write(tmp_path, lines)
    found = index(path)
    assert found is not None
    chunks = [[n for n, _line in part] for part, _last in line_chunks(path, *found, 2, 10**9)]
    assert chunks[0] == [1, 2, 3, 4]  # trace 1 runs from line 1 to line 4: no cut inside it
    assert chunks[1] == [5, 6]
    assert [n for part in chunks for n in part] == list(range(1, len(lines) + 1))
