"""Binary OTLP protobuf files (ctxviewer.importers.common.spans.protobuf): a string field that is not
UTF-8 is read with U+FFFD and named once (file, span, field, byte) while the rest of the file loads;
other damage still refuses the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from otlp_factories import TRACE_ID, chat_span, otlp_protobuf, otlp_request, s
from shared_data import CORPUS, needs_corpus

from ctxviewer.importers import REGISTRY, ImportFailed, ImportProblem, detect, load_records
from ctxviewer.importers.common.spans.protobuf import repair_strings
from ctxviewer.model.trace import RequestTrace


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(load_records(detect(path), path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def _two_calls() -> bytes:
    return otlp_protobuf(otlp_request(chat_span("00000000000000b1", end="1700000001000000000"),
                                      chat_span("00000000000000b2", end="1700000001000000000",
                                                **{"gen_ai.request.model": s("gpt-MARK-mini")})))


def test_one_bad_byte_is_replaced_and_named_and_both_calls_load(tmp_path: Path) -> None:
    """New user: one cut character in one attribute of a collector's .pb refused the whole file
    ("String field had bad UTF-8")."""
    data = _two_calls()
    at = data.index(b"MARK") + 2
    path = tmp_path / "t.pb"
    path.write_bytes(data[:at] + b"\xff" + data[at + 1:])  # MA\xffK: same length
    traces, problems = _load(path)
    assert [t.endpoint.model for t in traces] == ["m-1", "gpt-MA\ufffdK-mini"]
    assert [(p.record, p.message, p.dropped) for p in problems] == [
        ("resourceSpans[0].scopeSpans[0].spans[1] span 00000000000000b2",
         f"attributes[1].value.stringValue (attribute gen_ai.request.model) of trace {TRACE_ID}: "
         f"invalid UTF-8 at byte {at}; replaced with U+FFFD", 0)]


def test_a_bad_string_outside_any_span_and_many_bad_strings(tmp_path: Path) -> None:
    doc = otlp_request(*(chat_span(f"00000000000000c{n}", end="1700000001000000000",
                                   **{"gen_ai.request.model": s(f"MARK{n}")}) for n in range(7)),
                       resource={"service.name": "MARKshop"})
    data = otlp_protobuf(doc).replace(b"MARK", b"M\xc3RK")  # a lead byte without its continuation
    path = tmp_path / "t.binpb"
    path.write_bytes(data)
    traces, problems = _load(path)
    assert [t.endpoint.model for t in traces] == [f"M\ufffdRK{n}" for n in range(7)]
    assert traces[0].service == "M\ufffdRKshop"
    assert [(p.record, p.message.split(":")[0]) for p in problems] == [
        ("whole file", "resourceSpans[0].resource.attributes[0].value.stringValue (attribute service.name)")] + [
        (f"resourceSpans[0].scopeSpans[0].spans[{n}] span 00000000000000c{n}",
         f"attributes[1].value.stringValue (attribute gen_ai.request.model) of trace {TRACE_ID}") for n in range(4)] + [
        ("whole file", "3 more string(s) with invalid UTF-8; replaced with U+FFFD")]


def test_damage_that_is_not_utf8_still_refuses_the_file(tmp_path: Path) -> None:
    data = _two_calls()
    path = tmp_path / "t.pb"
    path.write_bytes(data[:-7])  # cut short inside the last span
    with pytest.raises(ImportFailed, match="not an OTLP protobuf ExportTraceServiceRequest"):
        _load(path)
    at = data.index(b"MARK")
    path.write_bytes(data[:at] + b"\xff" + data[at + 1:-7])  # bad UTF-8 and cut short: the cut wins
    with pytest.raises(ImportFailed, match="not an OTLP protobuf ExportTraceServiceRequest"):
        _load(path)


@settings(max_examples=60, deadline=None)
@given(before=st.text(max_size=20), after=st.text(max_size=20),
       bad=st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x80\x80"]))
def test_the_repaired_string_is_the_text_around_the_bad_bytes(before: str, after: str, bad: bytes) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    value = before.encode() + bad + after.encode()
    placeholder = "Q" * len(value)  # serialized with a string of the same byte length, then swapped
    good = otlp_protobuf(otlp_request(chat_span(**{"gen_ai.request.model": s(placeholder)})))
    at = good.rindex(placeholder.encode())  # not index: the length byte before it may read "Q" too
    data = good[:at] + value + good[at + len(value):]
    fixed, found = repair_strings(data, ExportTraceServiceRequest.DESCRIPTOR)
    span = ExportTraceServiceRequest.FromString(fixed).resource_spans[0].scope_spans[0].spans[0]
    assert {a.key: a.value.string_value for a in span.attributes}["gen_ai.request.model"] == value.decode("utf-8", "replace")
    assert [(f.field, f.key, f.offset) for f in found] == [
        ("attributes[1].value.stringValue", "gen_ai.request.model", at + len(before.encode()))]
    assert repair_strings(good, ExportTraceServiceRequest.DESCRIPTOR) == (good, [])  # valid: unchanged


@needs_corpus
def test_a_real_capture_as_protobuf_with_one_bad_byte_gives_the_same_calls(tmp_path: Path) -> None:
    doc = json.loads((CORPUS / "otel-genai" / "interlingua-raw-openai-v2.otlp.json").read_text())
    data = otlp_protobuf(doc)
    clean = tmp_path / "clean.pb"
    clean.write_bytes(data)
    at = data.index(b"support agent") + 1  # inside the system instructions (gen_ai.input.messages)
    bad = tmp_path / "bad.pb"
    bad.write_bytes(data[:at] + b"\xfe" + data[at + 1:])
    (want,), no_problems = _load(clean)
    (got,), problems = _load(bad)
    assert no_problems == []
    assert len(problems) == 1 and problems[0].message.endswith(f"invalid UTF-8 at byte {at}; replaced with U+FFFD")
    assert problems[0].message.startswith("attributes[")
    assert [i.content for i in got.items] == [i.content.replace("support agent", "s\ufffdpport agent") for i in want.items]
    assert (got.usage, got.endpoint, got.trace_id) == (want.usage, want.endpoint, want.trace_id)
    assert REGISTRY.detect(bad).name == "otel"
