"""Issue 12, "nothing lost": each bad record is one warning naming file, record and field, and the
rest of the file and of the run imports (no traceback, no empty database left behind)."""

from __future__ import annotations

import codecs
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from factories import make_trace
from otlp_factories import chat_span, i, otlp_request, s

from ctxviewer.assess.checks import run_checks
from ctxviewer.importers.common.containers import MAX_DEPTH
from ctxviewer.importers.common.peek import MAX_DEPTH as PEEK_DEPTH
from ctxviewer.importers.formats.native import trace_line
from ctxviewer.pipeline.importing import ImportReport, import_into
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore

GOOD = "00000000000000a1"
TID = "0af7651916cd43dd8448eb211c80319c"


def _run(tmp_path: Path, *paths: Path) -> tuple[ImportReport, list[str]]:
    db = tmp_path / "out.db"
    report = import_into(db, list(paths))
    return report, [str(p) for p in report.problems]


def _ids(tmp_path: Path) -> list[str]:
    with TraceStore.open(tmp_path / "out.db") as store:
        return sorted(r.trace_id for r in store.list(limit=-1))


def _otlp_file(tmp_path: Path, name: str, *spans: dict[str, Any]) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(otlp_request(*spans)))
    return p


def test_a_cut_euro_sign_in_one_span_becomes_ufffd_and_the_file_loads(tmp_path: Path) -> None:
    bad = chat_span("00000000000000a2", **{"gen_ai.request.model": s("EURO")})
    p = tmp_path / "cut.otlp.json"
    raw = json.dumps(otlp_request(chat_span(GOOD), bad)).encode()
    cut = raw.replace(b"EURO", b"gpt\xe2\x82-4")  # a euro sign cut after two of its three bytes
    p.write_bytes(cut)
    report, problems = _run(tmp_path, p)
    assert report.imported == 2
    at = cut.index(b"\xe2\x82")
    field = "resourceSpans[0].scopeSpans[0].spans[1].attributes[gen_ai.request.model].value.stringValue"
    assert problems == [f"{p}: line 1: {field}: byte {at}: 2 byte(s) not valid utf-8 (invalid continuation byte); "
                        f"replaced with U+FFFD in {cut[at - 24:at + 26].decode('utf-8', 'replace')!r}"]
    assert '"stringValue": "gpt\ufffd-4"' in problems[0]
    with TraceStore.open(tmp_path / "out.db") as store:
        assert store.load(f"{TID}:00000000000000a2").endpoint.model == "gpt\ufffd-4"


def test_a_bad_byte_in_input_messages_of_a_json_lines_otlp_file_is_named_by_json_path(tmp_path: Path) -> None:
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "price in EURO please"}]}])
    spans = [chat_span(GOOD), chat_span("00000000000000a2"),
             chat_span("00000000000000a3", **{"gen_ai.input.messages": s(messages)})]
    p = tmp_path / "cut.otlp.jsonl"
    lines = [json.dumps(otlp_request(*spans[:2])), json.dumps(otlp_request(spans[2]))]
    raw = ("\n".join(lines) + "\n").encode().replace(b"EURO", b"\xe2\x82")  # cut after two of three bytes
    p.write_bytes(raw)
    report, problems = _run(tmp_path, p)
    assert report.imported == 3
    at = raw.index(b"\xe2\x82")
    assert len(problems) == 1
    assert problems[0].startswith(
        f"{p}: line 2: resourceSpans[0].scopeSpans[0].spans[0].attributes[gen_ai.input.messages].value.stringValue: "
        f"byte {at}: 2 byte(s) not valid utf-8 (invalid continuation byte); replaced with U+FFFD")


def test_a_cut_euro_sign_in_one_native_line_names_line_and_field(tmp_path: Path) -> None:
    p = tmp_path / "cut.jsonl"
    lines = trace_line(make_trace(trace_id="n1")) + "\n" + trace_line(make_trace(trace_id="n2", service="EURO")) + "\n"
    p.write_bytes(lines.encode().replace(b"EURO", b"shop\xe2\x82"))
    report, problems = _run(tmp_path, p)
    assert report.imported == 2 and _ids(tmp_path) == ["n1", "n2"]
    assert len(problems) == 1 and problems[0].startswith(f"{p}: line 2: service: not valid UTF-8 (byte ")
    assert problems[0].endswith("invalid continuation byte); the bytes were replaced with U+FFFD")


def test_a_lone_surrogate_in_one_message_keeps_every_file_of_a_directory(tmp_path: Path) -> None:
    d = tmp_path / "in"
    d.mkdir()
    line = trace_line(make_trace(trace_id="s2", user_request="X")).replace('"user_request":"X"', '"user_request":"a\\ud800b"')
    (d / "a.jsonl").write_text(trace_line(make_trace(trace_id="s1")) + "\n" + line + "\n")
    (d / "b.jsonl").write_text(trace_line(make_trace(trace_id="s3")) + "\n")
    report, problems = _run(tmp_path, d)
    assert report.imported == 3 and _ids(tmp_path) == ["s1", "s2", "s3"]
    assert problems == [f"{d / 'a.jsonl'}: trace s2: user_request: 1 lone surrogate(s) (not Unicode text) replaced with U+FFFD"]
    with TraceStore.open(tmp_path / "out.db") as store:
        assert store.load("s2").user_request == "a\ufffdb"


def test_utf16_with_a_bom_is_read_for_native_and_otlp(tmp_path: Path) -> None:
    native = tmp_path / "n.jsonl"
    native.write_bytes(codecs.BOM_UTF16_LE + (trace_line(make_trace(trace_id="u1")) + "\r\n").encode("utf-16-le"))
    otlp = tmp_path / "o.json"
    otlp.write_bytes(codecs.BOM_UTF16_BE + json.dumps(otlp_request(chat_span(GOOD))).encode("utf-16-be"))
    report, problems = _run(tmp_path, native, otlp)
    assert (report.imported, problems) == (2, [])
    assert _ids(tmp_path) == [f"{TID}:{GOOD}", "u1"]


def test_a_value_nested_10000_deep_in_input_messages_is_cut_with_a_warning(tmp_path: Path) -> None:
    deep = chat_span("00000000000000a3", **{"gen_ai.input.messages": s("[" * 10000 + "]" * 10000)})
    p = _otlp_file(tmp_path, "deep.json", chat_span(GOOD), deep)
    report, problems = _run(tmp_path, p)
    assert report.imported == 2
    assert problems == [f"{p}: resourceSpans[0].scopeSpans[0].spans[1] span 00000000000000a3: gen_ai.input.messages: "
                        f"[0][0][0][0][0][0][0][0][0][0][0][0][0][\u2026][0][0][0][0][0][0][0][0][0][0][0][0][0]: "
                        f"JSON nested deeper than {MAX_DEPTH} levels; 1 deeper value(s) left out"]


def test_a_document_nested_10000_deep_keeps_its_other_spans(tmp_path: Path) -> None:
    value = '{"arrayValue": {"values": [' * 10000 + '{"stringValue": "x"}' + "]}}" * 10000
    deep = chat_span("00000000000000a4", **{"gen_ai.input.messages": s("DEEP")})
    p = tmp_path / "deep.json"
    p.write_text(json.dumps(otlp_request(chat_span(GOOD), deep)).replace('{"stringValue": "DEEP"}', value))
    report, problems = _run(tmp_path, p)
    assert report.imported == 2
    assert problems[0].startswith(f"{p}: document: resourceSpans[0].scopeSpans[0].spans[1].")
    assert problems[0].endswith(f"JSON nested deeper than {MAX_DEPTH} levels; 1 deeper value(s) left out")
    assert problems[1].startswith(f"{p}: resourceSpans[0].scopeSpans[0].spans[1] span 00000000000000a4: "
                                  "attributes[2] (gen_ai.input.messages)[0]\u2026[0].arrayValue: expected an object")


def test_a_small_file_nested_100000_deep_is_refused_at_detection_with_one_warning(tmp_path: Path) -> None:
    # newuser s3 finding 1: 200 KB of '[' took 286 s and 10.5 GB in format detection
    p = tmp_path / "nested.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    report, problems = _run(tmp_path, p)
    assert problems == [f"{p}: whole file: not a recognised trace file: its JSON is nested more than "
                        f"{PEEK_DEPTH} levels deep (no trace format nests like this)"]
    assert report.imported == 0 and report.removed_database
    assert not (tmp_path / "out.db").exists()


def test_integers_of_2_63_and_more_are_not_recorded_with_a_warning(tmp_path: Path) -> None:
    wrapped = chat_span("00000000000000a5", **{"gen_ai.usage.input_tokens": i("18446744073709551615")})
    huge = chat_span("00000000000000a6", **{"gen_ai.request.max_tokens": {"doubleValue": 1e300}})
    p = _otlp_file(tmp_path, "ints.json", chat_span(GOOD), wrapped, huge)
    native = tmp_path / "n.jsonl"
    d = json.loads(trace_line(make_trace(trace_id="h1")))
    d["items"][0]["tokens"] = 2**64 - 1
    native.write_text(json.dumps(d) + "\n")
    report, problems = _run(tmp_path, p, native)
    assert report.imported == 4
    assert problems == [
        f"{p}: trace {TID}:00000000000000a5: usage.input_tokens: 18446744073709551615 does not fit in 64 bits; "
        "stored as not recorded",
        f"{p}: trace {TID}:00000000000000a6: reserved_output_tokens: 1.000e+300 does not fit in 64 bits; "
        "stored as not recorded",
        f"{native}: trace h1: items[0].tokens: 18446744073709551615 does not fit in 64 bits; stored as not recorded",
    ]
    with TraceStore.open(tmp_path / "out.db") as store:
        assert store.load(f"{TID}:00000000000000a5").usage.input_tokens is None
        assert store.load(f"{TID}:00000000000000a6").reserved_output_tokens is None
        item = store.load("h1").items[0]
        assert item.tokens == store.token_count(item.content or "", "cl100k_base")  # counted instead


def test_an_unknown_anyvalue_drops_only_that_attribute_and_a_null_string_is_not_recorded(tmp_path: Path) -> None:
    odd = chat_span("00000000000000a7", **{"some.other": {"weirdValue": 3}, "gen_ai.request.model": {"stringValue": None}})
    p = _otlp_file(tmp_path, "odd.json", odd)
    report, problems = _run(tmp_path, p)
    assert report.imported == 1
    assert problems == [f"{p}: resourceSpans[0].scopeSpans[0].spans[0] span 00000000000000a7: attributes[3] "
                        "(some.other): unknown AnyValue ['weirdValue']; attribute left out"]
    with TraceStore.open(tmp_path / "out.db") as store:
        trace = store.load(f"{TID}:00000000000000a7")
    assert trace.endpoint.model is None and trace.items[0].content == "hi"


def test_implausible_values_import_with_a_warning_and_show_as_suspect(tmp_path: Path) -> None:
    zero_cap = json.loads(trace_line(make_trace(trace_id="c0")))
    zero_cap["endpoint"]["capacity"] = 0
    huge = json.loads(trace_line(make_trace(trace_id="t62")))
    huge["items"][0].update(content="x", tokens=2**62)
    none = json.loads(trace_line(make_trace(trace_id="t0")))
    none["items"][0]["tokens"] = 0
    p = tmp_path / "odd.jsonl"
    p.write_text("\n".join(json.dumps(d) for d in (zero_cap, huge, none)) + "\n")
    report, problems = _run(tmp_path, p)
    assert report.imported == 3
    assert problems == [
        f"{p}: trace c0: endpoint.capacity: a context window of 0 tokens cannot hold any request; kept, shown as suspect",
        f"{p}: trace t62: items[0].tokens: 4611686018427387904 tokens on 1 byte(s) of content cannot be a count of it "
        "(item policy); kept, shown as suspect",
        f"{p}: trace t0: items[0].tokens: 0 tokens on non-empty content (item policy); kept, shown as suspect",
    ]
    with TraceStore.open(tmp_path / "out.db") as store:
        assert store.load("c0").endpoint.capacity == 0  # kept as recorded
        suspect = [f for f in run_checks(store.load("t62")) if f.rule == "input.implausible"]
    assert [(f.severity.value, f.evidence.fields, f.evidence.item_ids) for f in suspect] == [
        ("warning", ("items[0].tokens",), ("policy",))]


def test_no_run_leaves_a_traceback_or_an_empty_database(tmp_path: Path) -> None:
    p = tmp_path / "junk.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    report, problems = _run(tmp_path, p)
    assert report.imported == 0 and report.removed_database
    assert not (tmp_path / "out.db").exists()


def test_duplicates_are_reported_and_the_count_is_what_the_database_holds(tmp_path: Path) -> None:
    p = _otlp_file(tmp_path, "twice.json", chat_span(GOOD), chat_span("00000000000000b1"), chat_span(GOOD))
    n = tmp_path / "twice.jsonl"
    n.write_text("".join(trace_line(make_trace(trace_id=t)) + "\n" for t in ("d1", "d2", "d1")))
    report, problems = _run(tmp_path, p, n)
    assert report.imported == 4 and len(_ids(tmp_path)) == 4
    assert report.summary() == f"imported 4 trace(s) from 2 file(s) into {tmp_path / 'out.db'}"
    assert problems == [  # the span exported twice, the same both times, is one span: a note (nu2 #10)
        f"{n}: trace d1: trace id already imported in this run; this record replaces the earlier one",
    ]
    assert [x.message for x in report.notes] == [
        f"span {GOOD} of trace {TID} is exported again here, the same as at "
        "resourceSpans[0].scopeSpans[0].spans[0]: imported once"]
    with sqlite3.connect(tmp_path / "out.db") as conn:
        assert conn.execute("SELECT count(*) FROM traces").fetchone()[0] == 4


def test_output_in_a_read_only_folder_is_one_error_not_a_traceback(tmp_path: Path, monkeypatch: Any) -> None:
    """``-o`` on a read-only file system: SQLite's "unable to open database file" used to surface as a
    traceback (removing the never-created file failed too). Root passes permission checks, so the
    read-only folder is simulated where the store asks (os.access)."""
    import os

    from click.testing import CliRunner

    from ctxviewer.cli import cli
    from ctxviewer.pipeline.importing import remove_database

    src = tmp_path / "t.jsonl"
    src.write_text(trace_line(make_trace()) + "\n")
    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == ro and mode == os.W_OK else real(p, mode))
    res = CliRunner().invoke(cli, ["import", str(src), "-o", str(ro / "x.db")])
    assert res.exit_code == 1
    assert res.output.strip() == f"Error: {ro / 'x.db'}: cannot create: folder {ro} is not writable (read-only file system or no permission)"
    assert list(ro.iterdir()) == []
    monkeypatch.setattr(os, "remove", lambda p: (_ for _ in ()).throw(OSError(30, "Read-only file system")))
    remove_database(ro / "x.db")  # never raises: a read-only file system where nothing was created


def test_a_trace_database_given_to_import_is_named_as_one(tmp_path: Path) -> None:
    # newuser s3 #13: 'import s2.db -o s3.db' said "not a recognised trace file ... use --format"
    src = tmp_path / "s2.db"
    with TraceStore.create(src) as store:
        store.add(with_facts([make_trace()]))
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    report, problems = _run(tmp_path, src, other)
    assert problems == [
        f"{src}: whole file: is already a ctxviewer trace database; import reads trace files and does not merge "
        f"databases: open it (ctxviewer {src}), or copy an older one to this version with "
        f"'ctxviewer upgrade {src} -o NEW.db'",
        f"{other}: whole file: is an SQLite database, not a trace file"]
    assert report.imported == 0 and not (tmp_path / "out.db").exists()


def test_an_impossible_recorded_capacity_stays_a_finding(tmp_path: Path) -> None:
    """A new user's finding: endpoint.capacity 1e30 was stored as not recorded and the trace then
    read "ok ... capacity assumed" with no trace of the bogus value; a capacity of 0 was a finding."""
    import json as _json

    from click.testing import CliRunner

    from ctxviewer.cli import cli

    root = Path(__file__).resolve().parents[2]
    rec = _json.loads((root / "sample_traces" / "traces.jsonl").read_text().splitlines()[1])
    rec["trace_id"] = "huge-cap"
    rec["endpoint"]["capacity"] = 10**30
    src = tmp_path / "nums.jsonl"
    src.write_text(_json.dumps(rec) + "\n")
    db = tmp_path / "n.db"
    res = CliRunner().invoke(cli, ["import", str(src), "-o", str(db)])
    assert res.exit_code == 0
    assert res.stderr.count("does not fit in 64 bits") == 1  # warned once
    shown = _json.loads(CliRunner().invoke(cli, ["show", str(db), "huge-cap", "--json"]).stdout)
    (f,) = [f for f in shown["findings"] if f["rule"] == "input.implausible"]
    assert "endpoint.capacity: 1.000e+30 does not fit in 64 bits; stored as not recorded, shown as suspect" in f["message"]
    assert shown["state"] != "ok"


def test_a_page_that_quotes_a_formats_keys_is_not_taken_for_that_format(tmp_path: Path) -> None:
    """New user (wt-nu): the corpus's FORMATS.md (Markdown naming "mlflow.spanType") was detected as
    mlflow at 0.95 and then failed with "not JSON or JSON Lines", naming no format; so would a page
    naming promptfoo's, Phoenix's or ctxviewer's export keys."""
    from ctxviewer.importers import REGISTRY, ImportFailed

    page = tmp_path / "FORMATS.md"
    page.write_text('# Formats\n\nMLflow spans carry `"mlflow.spanType"` and `"mlflow.trace_schema.version"`;\n'
                    'promptfoo has `"evalId"` and `"results"`; Phoenix `"data"`, `"annotator_kind"`, `"span_id"`;\n'
                    'ctxviewer exports `"resourceSpans"` with `"ctxviewer.trace_id"`.\n')
    with pytest.raises(ImportFailed) as err:
        REGISTRY.detect(page)
    assert str(err.value).startswith(f"{page}: not a recognised trace file (known formats: native, ")
    assert [i.name for i in REGISTRY.importers() if i.sniff(page, page.read_bytes()) > 0] == []
