"""Span container normalisation (ctxviewer.importers.formats.otel: read, containers, values): every container shape of
FORMATS.md section 0, AnyValue decoding, ids, times, and bad lines/spans as problems."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from otlp_factories import otlp_request, otlp_span

from ctxviewer.importers import ImportFailed, ImportProblem
from ctxviewer.importers.common.spans.read import Span, container_of, read_spans
from ctxviewer.importers.common.values import decode_any_value, normalise_id, parse_time, span_kind, span_status


def _otlp(*spans: dict, resource: dict | None = None) -> dict:
    return otlp_request(*spans, resource=resource or {}, scope={"name": "t"})


def _span(span_id: str = "03491beea3cb073d", **attrs: dict) -> dict:
    return otlp_span(span_id, "053074667b1113278073667614bb3e19", name="chat m", kind=3, start="1788792074027616000",
                     end=1788792074047335000, status={"code": 1}, **attrs)


def _spans(path: Path) -> tuple[list[Span], list[ImportProblem]]:
    recs = list(read_spans(path))
    return [r for r in recs if isinstance(r, Span)], [r for r in recs if isinstance(r, ImportProblem)]


def test_any_value_decoding() -> None:
    assert decode_any_value({"stringValue": "x"}) == "x"
    assert decode_any_value({"intValue": "412"}) == 412
    assert decode_any_value({"intValue": 412}) == 412
    assert decode_any_value({"doubleValue": 0.7}) == 0.7
    assert decode_any_value({"doubleValue": "0.5"}) == 0.5
    assert decode_any_value({"boolValue": False}) is False
    assert decode_any_value({"bytesValue": "AAE="}) == "AAE="
    assert decode_any_value({}) is None
    assert decode_any_value({"arrayValue": {"values": [{"stringValue": "stop"}, {"intValue": "2"}]}}) == ["stop", 2]
    kv = {"kvlistValue": {"values": [{"key": "role", "value": {"stringValue": "user"}},
                                     {"key": "n", "value": {"intValue": 3}}]}}
    assert decode_any_value(kv) == {"role": "user", "n": 3}
    with pytest.raises(ValueError, match="intValue 'abc'"):
        decode_any_value({"intValue": "abc"})


def test_ids_hex_0x_base64() -> None:
    hex_trace = "053074667b1113278073667614bb3e19"
    b64_trace = base64.b64encode(bytes.fromhex(hex_trace)).decode()
    assert normalise_id(hex_trace.upper(), 16) == hex_trace
    assert normalise_id(b64_trace, 16) == hex_trace
    assert normalise_id(base64.b64encode(bytes.fromhex("03491beea3cb073d")).decode(), 8) == "03491beea3cb073d"
    assert normalise_id("0x03491beea3cb073d", 8) == "03491beea3cb073d"
    assert normalise_id("", 8) is None
    assert normalise_id("redacted", 8) == "redacted"
    # base64 that happens to start with "0x" (protobuf ids through MessageToDict, about 1 in 2,000
    # random ids): read as base64, not as "0x" hex padded with zeros
    assert normalise_id("0XL12ARxh8YokeQKivHvpA==", 16) == "d172f5d8047187c62891e40a8af1efa4"
    assert normalise_id(base64.b64encode(bytes.fromhex("d31505f5d80471a7")).decode(), 8) == "d31505f5d80471a7"


@given(st.binary(min_size=8, max_size=8) | st.binary(min_size=16, max_size=16))
def test_every_base64_id_is_read_as_its_bytes(raw: bytes) -> None:
    assert normalise_id(base64.b64encode(raw).decode(), len(raw)) == raw.hex()


def test_times_and_enums() -> None:
    expected = datetime(2026, 9, 7, 14, 41, 14, 27616, tzinfo=timezone.utc)
    assert parse_time("1788792074027616000") == expected
    assert parse_time(1788792074027616000) == expected
    assert parse_time([1788792074, 27616000]) == expected
    assert parse_time("2026-09-07T14:41:14.027616Z") == expected
    assert parse_time("0") is None
    assert span_kind(3) == span_kind("SPAN_KIND_CLIENT") == span_kind("SpanKind.CLIENT") == "client"
    assert span_status({"code": "STATUS_CODE_OK"}) == ("ok", None)
    assert span_status({"code": 2, "message": "boom"}) == ("error", "boom")
    assert span_status({}) == ("unset", None)  # OTLP JSON leaves the default code (UNSET) out
    assert span_status(None) == (None, None)


def test_otlp_object(tmp_path: Path) -> None:
    p = tmp_path / "one.json"
    p.write_text(json.dumps(_otlp(_span(**{"gen_ai.usage.input_tokens": {"intValue": 412}}),
                                  resource={"service.name": "svc"})))
    spans, problems = _spans(p)
    assert problems == []
    (s,) = spans
    assert (s.trace_id, s.span_id, s.parent_id, s.name) == ("053074667b1113278073667614bb3e19", "03491beea3cb073d", None, "chat m")
    assert s.start == datetime(2026, 9, 7, 14, 41, 14, 27616, tzinfo=timezone.utc)
    assert s.end == datetime(2026, 9, 7, 14, 41, 14, 47335, tzinfo=timezone.utc)
    assert s.attributes == {"gen_ai.usage.input_tokens": 412}
    assert s.resource == {"service.name": "svc"}
    assert (s.kind, s.status, s.scope) == ("client", "ok", {"name": "t"})
    assert s.record == "resourceSpans[0].scopeSpans[0].spans[0]"


def test_jsonl_with_corrupt_line(tmp_path: Path) -> None:
    p = tmp_path / "export.jsonl"
    lines = [json.dumps(_otlp(_span("1111111111111111"))), '{"resourceSpans": [', "",
             json.dumps(_otlp(_span("2222222222222222"), _span("3333333333333333")))]
    p.write_text("\n".join(lines) + "\n")
    spans, problems = _spans(p)
    assert [s.span_id for s in spans] == ["1111111111111111", "2222222222222222", "3333333333333333"]
    assert [s.record for s in spans] == [
        "line 1 resourceSpans[0].scopeSpans[0].spans[0]",
        "line 4 resourceSpans[0].scopeSpans[0].spans[0]",
        "line 4 resourceSpans[0].scopeSpans[0].spans[1]",
    ]
    assert len(problems) == 1 and problems[0].record == "line 2"
    assert "not valid JSON" in problems[0].message and str(p) in str(problems[0])


def test_bad_span_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    bad = _span("4444444444444444", **{"gen_ai.usage.input_tokens": {"intValue": "lots"}})
    p.write_text(json.dumps(_otlp(_span(), bad, "not a span")))
    spans, problems = _spans(p)
    # the bad attribute is left out; the span is kept (issue 12)
    assert [s.span_id for s in spans] == ["03491beea3cb073d", "4444444444444444"]
    assert "gen_ai.usage.input_tokens" not in spans[1].attributes
    assert [pr.record for pr in problems] == ["resourceSpans[0].scopeSpans[0].spans[1] span 4444444444444444",
                                              "resourceSpans[0].scopeSpans[0].spans[2]"]
    assert "gen_ai.usage.input_tokens" in problems[0].message


def test_unreadable_files_fail(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text("this is not json")
    with pytest.raises(ImportFailed, match="x.json"):
        list(read_spans(p))
    p.write_text('{"hello": 1}')
    with pytest.raises(ImportFailed, match="not a span container"):
        list(read_spans(p))
    with pytest.raises(ImportFailed, match="missing.json"):
        list(read_spans(tmp_path / "missing.json"))


def test_container_of() -> None:
    assert container_of({"resourceSpans": []}) == "otlp"
    assert container_of({"gen_ai.operation.name": "chat"}) == "attributes"
    assert container_of([{"spanContext": {"traceId": "a"}}]) == "span-list"
    assert container_of({"context": {"trace_id": "0x1"}, "attributes": {}}) == "span"
    assert container_of({"hello": 1}) is None


def test_console_span_object(tmp_path: Path) -> None:
    p = tmp_path / "console.json"
    p.write_text(json.dumps({"name": "chat m", "context": {"trace_id": "0x053074667b1113278073667614bb3e19",
                             "span_id": "0x03491beea3cb073d"}, "kind": "SpanKind.CLIENT", "parent_id": None,
                             "start_time": "2026-09-07T14:41:14.027616Z", "end_time": None,
                             "attributes": {"a.b": 1}, "resource": {"attributes": {"service.name": "s"}}}))
    (s,), _ = _spans(p)
    assert (s.trace_id, s.span_id, s.kind, s.end, s.resource) == (
        "053074667b1113278073667614bb3e19", "03491beea3cb073d", "client", None, {"service.name": "s"})


def test_corpus_readable_span_list(shared: Path) -> None:
    spans, problems = _spans(shared / "corpus/otel-genai/vercel-ai-sdk-v6-generateText-doGenerate.readablespan.json")
    assert problems == []
    assert [(s.trace_id, s.span_id, s.record) for s in spans] == [
        ("b3e700af9eab81e19f72f964d62a35af", "39d6e9b3ddec9996", "[0]"),
        ("edff2fc5854be6170e8cccccec0c82cf", "6c0201026326855d", "[1]"),
    ]
    assert spans[0].start == datetime(2026, 2, 3, 15, 19, 52, 242000, tzinfo=timezone.utc)
    assert spans[0].attributes["gen_ai.usage.input_tokens"] == 14


def test_corpus_flat_attribute_map(shared: Path) -> None:
    (s,), problems = _spans(shared / "corpus/otel-genai/openinference-genai-fixture-otel-execute-tool-span.attrs.json")
    assert problems == [] and s.record == "attributes" and s.trace_id is None
    assert s.attributes["gen_ai.operation.name"] == "execute_tool"


def test_corpus_otlp_enum_names_and_parents(shared: Path) -> None:
    spans, problems = _spans(shared / "corpus/otel-genai/interlingua-litellm-otel-callback.otlp.json")
    assert problems == []
    assert [(s.name, s.kind, s.status, s.parent_id) for s in spans] == [
        ("litellm_request", "internal", "ok", None),
        ("raw_gen_ai_request", "internal", "ok", "a5f632a15409374f"),
    ]
    assert spans[0].resource["service.name"] == "capture"
    assert spans[0].attributes["gen_ai.usage.input_tokens"] == 412
