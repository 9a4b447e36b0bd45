"""OTLP JSON Lines streamed (issue 6, Benchmark: "memory must not grow with file size"):
``read_span_groups`` reads a collector file a line at a time and hands over each trace once its
last line is read, so a trace whose spans sit on several lines is still whole (inherited system
instructions, session), while traces that end early never wait for the rest of the file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from otlp_factories import chat_span, otlp_request, otlp_span, s

from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.importers.common.spans.read import Span, read_span_groups, read_spans
from ctxviewer.model.trace import RequestTrace

POLICY = [{"type": "text", "content": "Answer from the manual only."}]


def _agent(trace_id: str, span_id: str, conversation: str) -> dict:
    return otlp_span(span_id, trace_id, name="invoke_agent helper", end="1700000002000000000",
                     **{"gen_ai.operation.name": s("invoke_agent"), "gen_ai.conversation.id": s(conversation),
                        "gen_ai.system_instructions": s(json.dumps(POLICY))})


def _chat(trace_id: str, span_id: str, parent: str) -> dict:
    span = chat_span(span_id, trace_id, end="1700000001250000000")
    span["parentSpanId"] = parent
    return span


def _jsonl(path: Path, docs: list[dict | str], *, encoding: str = "utf-8", gz: bool = False) -> Path:
    text = "\n".join(d if isinstance(d, str) else json.dumps(d) for d in docs) + "\n"
    data = text.encode(encoding)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


A, B = "a" * 32, "b" * 32


def test_a_trace_split_over_lines_is_handed_over_whole_when_its_last_line_is_read(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "c.jsonl", [
        otlp_request(_chat(A, "00000000000000a2", "00000000000000a1")),  # line 1: A's chat span
        otlp_request(_chat(B, "00000000000000b2", "00000000000000b1"), _agent(B, "00000000000000b1", "conv-b")),
        "",
        otlp_request(_agent(A, "00000000000000a1", "conv-a")),  # line 4: A's agent span, later
    ])
    groups = [[(r.trace_id, r.span_id) for r in g if isinstance(r, Span)] for g in read_span_groups(path)]
    assert groups == [[(B, "00000000000000b2"), (B, "00000000000000b1")],
                      [(A, "00000000000000a2"), (A, "00000000000000a1")]]
    traces = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert [(t.session_id, t.items[0].content, t.attributes["ctxviewer.system_inherited_from"]) for t in traces] == [
        ("conv-b", "Answer from the manual only.", "span invoke_agent helper (00000000000000b1)"),
        ("conv-a", "Answer from the manual only.", "span invoke_agent helper (00000000000000a1)")]
    assert traces[1].attributes["ctxviewer.duration_ms"] == 1250.0  # 1.25 s exactly, from integer ns


def test_one_group_per_trace_that_ends_on_its_line(tmp_path: Path) -> None:
    """A hundred one-line traces come as a hundred groups: nothing is held past its trace."""
    docs = [otlp_request(_chat(f"{n:032x}", f"{2 * n + 2:016x}", f"{2 * n + 1:016x}"),
                         _agent(f"{n:032x}", f"{2 * n + 1:016x}", f"conv-{n}")) for n in range(100)]
    groups = list(read_span_groups(_jsonl(tmp_path / "many.jsonl", docs)))
    assert [len(g) for g in groups] == [2] * 100
    assert [g[0].trace_id for g in groups] == [f"{n:032x}" for n in range(100)]  # type: ignore[union-attr]


def test_streamed_gzip_utf16_and_bad_lines_give_what_the_whole_file_reading_gives(tmp_path: Path) -> None:
    docs: list[dict | str] = [otlp_request(_chat(A, "00000000000000a2", "00000000000000a1")),
                              '{"resourceSpans": [',
                              otlp_request(_agent(A, "00000000000000a1", "conv-a"))]
    for name, kw in (("plain.jsonl", {}), ("ps.jsonl", {"encoding": "utf-16"}), ("z.jsonl.gz", {"gz": True})):
        path = _jsonl(tmp_path / name, docs, **kw)  # type: ignore[arg-type]
        streamed = [r for g in read_span_groups(path) for r in g]
        assert sorted(r.record for r in streamed) == sorted(r.record for r in read_spans(path))
        assert [r.record for r in streamed] == ["line 2", "line 1 resourceSpans[0].scopeSpans[0].spans[0]",
                                                "line 3 resourceSpans[0].scopeSpans[0].spans[0]"]
        assert streamed[0] == ImportProblem(str(path), "line 2", "not valid JSON: Expecting value (column 20)")
        out = list(get_importer("otel").load(path))
        assert [type(r).__name__ for r in out] == ["ImportProblem", "RequestTrace"]
        assert out[1].session_id == "conv-a"  # type: ignore[union-attr]


def test_logs_lines_attach_to_spans_on_earlier_lines(tmp_path: Path) -> None:
    log = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{
        "spanId": "00000000000000a2", "traceId": A, "timeUnixNano": "1700000000500000000",
        "eventName": "gen_ai.user.message", "body": {"kvlistValue": {"values": [
            {"key": "content", "value": {"stringValue": "What does error E42 mean?"}}]}}}]}]}]}
    span = otlp_span("00000000000000a2", A, end="1700000001000000000",
                     **{"gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("m-1")})
    path = _jsonl(tmp_path / "logs.jsonl", [otlp_request(span), log])
    traces = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert [(i.role, i.content) for i in traces[0].items] == [("user", "What does error E42 mean?")]
