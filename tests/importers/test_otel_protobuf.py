"""Binary OTLP protobuf files (ctxviewer.importers.common.spans.protobuf): a string field that is not
UTF-8 is read with U+FFFD and named once (file, span, field, byte) while the rest of the file loads;
other damage still refuses the file. gzip (ctxviewer.importers.common.compressed): a gzipped .pb is
detected by its decompressed head, and a file that expands past the cap is refused by name."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from otlp_factories import TRACE_ID, chat_span, otlp_protobuf, otlp_request, s
from shared_data import CORPUS, needs_corpus

from ctxviewer.importers import REGISTRY, ImportFailed, ImportProblem, detect, load_records
from ctxviewer.importers.common import compressed
from ctxviewer.importers.common.spans import protobuf
from ctxviewer.importers.common.spans.protobuf import repair_strings
from ctxviewer.model.trace import RequestTrace
from ctxviewer.util.file_kind import binary_kind


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


# ---------------------------------------------------------------- gzip: .pb.gz, bombs


def _real_pb() -> bytes:
    return otlp_protobuf(json.loads((CORPUS / "otel-genai" / "interlingua-raw-openai-v2.otlp.json").read_text()))


@needs_corpus
@pytest.mark.parametrize("name", ["capture.pb.gz", "capture.gz", "capture"])
def test_gzipped_protobuf_is_detected_by_its_decompressed_head(tmp_path: Path, name: str) -> None:
    """New user: a collector's gzipped .pb was 'not a recognised trace file'."""
    plain = tmp_path / "plain.pb"
    plain.write_bytes(_real_pb())
    path = tmp_path / name
    path.write_bytes(gzip.compress(_real_pb()))
    assert detect(path).name == "otel"
    (want,), _ = _load(plain)
    (got,), problems = _load(path)
    assert problems == []
    assert (got.trace_id, got.items, got.usage, got.endpoint) == (want.trace_id, want.items, want.usage, want.endpoint)
    assert got.usage.input_tokens == 412


@needs_corpus
def test_gzipped_otlp_json_of_a_real_capture_gives_the_same_call(tmp_path: Path) -> None:
    src = CORPUS / "otel-genai" / "interlingua-raw-openai-v2.otlp.json"
    path = tmp_path / "spans.json.gz"
    path.write_bytes(gzip.compress(src.read_bytes()))
    (want,), _ = _load(src)
    (got,), _ = _load(path)
    assert (got.trace_id, got.items, got.usage) == (want.trace_id, want.items, want.usage)


@pytest.mark.parametrize("name, body", [
    ("bomb.json.gz", b"{\"resourceSpans\": [" + b" " * 3_000_000),  # read whole
    ("bomb.jsonl.gz", json.dumps(otlp_request(chat_span())).encode() + b"\n" + b"\n" * 3_000_000),  # streamed
    ("bomb.pb.gz", b"\x0a\x00" * 1_500_000),  # protobuf, read whole
])
def test_a_gzip_file_that_expands_past_the_cap_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  name: str, body: bytes) -> None:
    monkeypatch.setattr(compressed, "MAX_GUNZIPPED_BYTES", 1024 * 1024)  # 1 MiB: the same rule as 1 GiB
    path = tmp_path / name
    path.write_bytes(gzip.compress(body))
    assert path.stat().st_size < 20_000
    with pytest.raises(ImportFailed) as err:
        _load(path)
    assert str(err.value) == (f"{path}: gzip data that decompresses to more than 1,048,576 bytes (1 MiB), the most "
                              "ctxviewer reads from a gzipped file (a decompression bomb?); gunzip it and import the plain file")


def test_gzip_up_to_the_cap_and_in_several_members_reads_whole() -> None:
    data = gzip.compress(b"a" * 1000) + gzip.compress(b"b" * 24)
    assert compressed.gunzip(data, "x", limit=1024) == b"a" * 1000 + b"b" * 24
    with pytest.raises(ImportFailed):
        compressed.gunzip(data, "x", limit=1023)
    with pytest.raises(EOFError):
        compressed.gunzip(data[:-30], "x")


def test_gzip_that_is_no_trace_keeps_its_hint(tmp_path: Path) -> None:
    path = tmp_path / "notes.gz"
    path.write_bytes(gzip.compress(b"just some text\n"))
    with pytest.raises(ImportFailed, match=r"not a recognised trace file once gunzipped \(known formats: native, "):
        detect(path)
    assert binary_kind(path.read_bytes()) == "gzip-compressed data (`ctxviewer import` reads a gzipped trace file)"


@given(doc=st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                        lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3)),
       lead=st.sampled_from(["", "\n", "\n\n", "  "]))
def test_json_text_is_never_taken_for_protobuf(doc: object, lead: str) -> None:
    assert protobuf.sniff((lead + json.dumps({"resourceSpans": [doc]})).encode()) == 0.0


@given(cut=st.integers(8, 400))
def test_any_head_of_a_protobuf_request_is_taken_for_one(cut: int) -> None:
    assert protobuf.sniff(_two_calls()[:cut]) == 0.9


def test_a_sniffed_gzip_head_expands_no_further_than_its_cap() -> None:
    bomb = gzip.compress(b"\0" * 40_000_000)  # 40 MB of zeros in about 40 KB
    assert len(bomb) < 65536
    assert len(compressed.head_bytes(bomb)) == compressed.HEAD_GUNZIPPED_BYTES == 16 * 1024 * 1024


def test_detection_walks_a_bounded_start_of_a_gzipped_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Review 2026-12-07: 16 KB of gzip expanding to 16 MiB of empty messages was walked field by
    field (34 s) just to tell whether it is protobuf."""
    import gzip

    from ctxviewer.importers.common.spans import protobuf, read

    seen: list[int] = []
    real = protobuf.sniff
    monkeypatch.setattr(protobuf, "sniff", lambda head: seen.append(len(head)) or real(head))
    path = tmp_path / "capture"
    path.write_bytes(gzip.compress(b"\x0a\x00" * (8 * 1024 * 1024), 9))
    assert read.is_protobuf(path) is True
    assert seen == [read.SNIFF_BYTES] == [65_536]


def test_a_served_body_that_expands_past_the_bound_is_413_not_memory() -> None:
    """Review 2026-12-07: ``ctxviewer serve`` gunzipped a request body without a bound (64 MiB of
    gzip can hold about 64 GiB)."""
    import gzip

    import pytest

    from ctxviewer.importers.common.spans import wire

    small = gzip.compress(b"{}")
    assert wire.decompressed(small, "gzip") == b"{}"
    bomb = gzip.compress(b"\0" * (wire.MAX_DECOMPRESSED_BYTES + 1), 9)
    with pytest.raises(wire.TooLarge, match="body decompresses to more than 268,435,456 bytes"):
        wire.decompressed(bomb, "gzip")
    with pytest.raises(wire.BadRequest, match="body is not valid gzip"):
        wire.decompressed(small[:-6], "gzip")


def test_gunzip_steps_keep_a_refused_bomb_within_the_limit_plus_one_step(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compressed, "GUNZIP_STEP", 100)
    data = gzip.compress(b"z" * 10_000)
    sizes: list[int] = []
    real = compressed.zlib.decompressobj

    class Counting:
        def __init__(self, *a: object) -> None:
            self.d = real(*a)  # type: ignore[call-overload]

        def decompress(self, buf: bytes, n: int) -> bytes:
            out = self.d.decompress(buf, n)
            sizes.append(len(out))
            return out

        def __getattr__(self, name: str) -> object:
            return getattr(self.d, name)

    monkeypatch.setattr(compressed.zlib, "decompressobj", Counting)
    assert compressed.gunzip(data, "x", limit=10_000) == b"z" * 10_000  # exactly the limit: read whole
    assert max(sizes) == 100 and sum(sizes) == 10_000
    sizes.clear()
    with pytest.raises(ImportFailed, match="more than 5,000 bytes"):
        compressed.gunzip(data, "x", limit=5_000)
    assert sum(sizes) == 5_001  # stopped one byte past the limit, never the whole 10,000
