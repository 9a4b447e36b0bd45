"""The native JSON Lines format: write, sniff, load, bad lines, and the documented example."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from factories import make_rich_trace, make_trace

from ctxviewer.importers import ImportFailed, ImportProblem, detect, get_importer
from ctxviewer.importers.formats.native import FORMAT_TAG, trace_line, write_jsonl
from ctxviewer.model.serialize import trace_from_dict
from ctxviewer.model.trace import ContextItem, Kind, Response, SerializedRequest

ROOT = Path(__file__).resolve().parents[2]
native = get_importer("native")


def test_registered_as_native() -> None:
    assert get_importer("native") is native
    assert native.name == "native"


def test_write_then_load_round_trips(tmp_path: Path) -> None:
    traces = [make_trace(), make_rich_trace()]
    path = tmp_path / "traces.jsonl"
    assert write_jsonl(traces, path) == 2
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["format"] == FORMAT_TAG
    assert detect(path) is native
    assert list(native.load(path)) == traces


def test_write_to_an_open_file() -> None:
    buf = io.StringIO()
    write_jsonl([make_trace()], buf)
    assert buf.getvalue() == trace_line(make_trace()) + "\n"


def test_line_separators_inside_strings_stay_in_one_line(tmp_path: Path) -> None:
    trace = make_trace(user_request="first\u2028second\u2029third 😀")
    path = tmp_path / "t.jsonl"
    write_jsonl([trace], path)
    assert list(native.load(path)) == [trace]


def test_bad_line_in_the_middle_is_a_problem_and_loading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    good = trace_line(make_trace(trace_id="a"))
    path.write_text(good + "\n" + '{"trace_id": "b", "items": [}\n' + "\n" + trace_line(make_trace(trace_id="c")) + "\n")
    records = list(native.load(path))
    assert [r.trace_id for r in records if not isinstance(r, ImportProblem)] == ["a", "c"]
    problems = [r for r in records if isinstance(r, ImportProblem)]
    assert problems == [ImportProblem(str(path), "line 2", "invalid JSON: Expecting value (column 29)")]


def test_a_position_two_items_share_is_refused_and_named(tmp_path: Path) -> None:
    """New-user finding F11: a repeated position loaded silently, so the final order shown was
    not the file's (1, 2, 1)."""
    d = json.loads(trace_line(make_trace()))
    retained = [n for n, it in enumerate(d["items"]) if it.get("position") is not None]
    d["items"][retained[2]]["position"] = d["items"][retained[0]]["position"]
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(d) + "\n" + trace_line(make_trace(trace_id="ok")) + "\n")
    records = list(native.load(path))
    assert [(r.record, r.message, r.dropped) for r in records if isinstance(r, ImportProblem)] == [
        ("line 1", f"items[{retained[2]}].position: {d['items'][retained[0]]['position']} is already "
                   f"items[{retained[0]}]'s", 1)]
    assert [r.trace_id for r in records if not isinstance(r, ImportProblem)] == ["ok"]


def test_invalid_record_names_the_field(tmp_path: Path) -> None:
    d = json.loads(trace_line(make_trace()))
    d["items"][2]["status"] = "kept"
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(d) + "\n" + json.dumps([1, 2]) + "\n" + json.dumps({**d, "format": "other/9"}) + "\n")
    problems = list(native.load(path))
    assert [(p.record, p.message) for p in problems] == [
        ("line 1", "items[2].status: 'kept' is not one of retained, omitted"),
        ("line 2", "expected a JSON object, got list"),
        ("line 3", "format: 'other/9' is not 'ctxviewer.trace/1'"),
    ]


def test_source_format_defaults_to_native(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write_jsonl([make_trace(source_format=None), make_trace(trace_id="o", source_format="otel")], path)
    assert [t.source_format for t in native.load(path)] == ["native", "otel"]


@pytest.mark.parametrize(
    "content, expected",
    [
        (b'{"format": "ctxviewer.trace/1", "trace_id": "x", "items": []}\n', 1.0),
        (b'\n\n{"trace_id": "x", "items": []}\n', 0.9),
        (b'\xef\xbb\xbf{"trace_id": "x", "items": []}\n', 0.9),
        (b'{"trace_id": "x", "user_request": "cut off her', 0.5),  # undecided: the registry reads on
        (b'{"trace_id": "x"}\n', 0.0),
        (b'{"resourceSpans": []}\n', 0.0),
        (b"[1, 2, 3]\n", 0.0),
        (b"not json at all", 0.0),
        (b"", 0.0),
        (b"\xff\xfe\x00garbage", 0.0),
    ],
)
def test_sniff(tmp_path: Path, content: bytes, expected: float) -> None:
    assert native.sniff(tmp_path / "f", content) == expected


def test_sniff_accepts_a_first_line_longer_than_the_head(tmp_path: Path) -> None:
    big = make_trace(user_request="x" * 100_000)
    path = tmp_path / "big.jsonl"
    write_jsonl([big], path)
    head = path.read_bytes()[: 64 * 1024]
    assert native.sniff(path, head) == 1.0  # the format tag comes first on every written line
    assert detect(path) is native


def test_unreadable_file_fails_wholesale(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="cannot read file"):
        list(native.load(tmp_path / "missing.jsonl"))


def test_a_byte_that_is_not_utf8_is_replaced_and_named_and_the_line_loads(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"trace_id": "caf\xe9", "created": null, "endpoint": {}, "policy": {}, "user_request": null}\n')
    trace, problem = list(native.load(path))
    assert trace.trace_id == "caf\ufffd"
    assert str(problem) == (f"{path}: line 1: trace_id: not valid UTF-8 (byte 17 of the line: invalid continuation "
                            "byte); the bytes were replaced with U+FFFD")


def _bad_bytes_line(path: Path, **texts: bytes) -> bytes:
    """A native line whose placeholders ``@KEY@`` (in ``request.content`` / ``response.text`` /
    items) are replaced by the raw bytes ``texts[KEY]``; written to ``path``, returned."""
    line = trace_line(make_trace(trace_id="u1", items=(), request=SerializedRequest(content="req @A@ end"),
                                 response=Response(text="resp @B@ end"))).encode()
    for key, raw in texts.items():
        line = line.replace(f"@{key}@".encode(), raw)
    path.write_bytes(line + b"\n")
    return line


def test_invalid_utf8_in_two_fields_names_each_field(tmp_path: Path) -> None:
    path = tmp_path / "two.jsonl"
    line = _bad_bytes_line(path, A=b"\xff", B=b"caf\xc3(")
    trace, *problems = list(native.load(path))
    assert trace.request.content == "req \ufffd end" and trace.response.text == "resp caf\ufffd( end"
    a, b = line.index(b"\xff"), line.index(b"\xc3(")
    assert (a, b) == (608, 644)
    assert [str(p) for p in problems] == [
        f"{path}: line 1: request.content: not valid UTF-8 (byte 608 of the line: invalid start byte); "
        "the bytes were replaced with U+FFFD",
        f"{path}: line 1: response.text: not valid UTF-8 (byte 644 of the line: invalid continuation byte); "
        "the bytes were replaced with U+FFFD",
    ]


def test_several_bad_runs_in_one_field_are_one_problem_counting_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    _bad_bytes_line(path, A=b"\xff x \xfe y \xff", B=b"ok")
    trace, problem = list(native.load(path))
    assert trace.request.content == "req \ufffd x \ufffd y \ufffd end"
    assert problem.message == ("request.content: not valid UTF-8 (byte 608 of the line: invalid start byte; "
                               "2 more run(s) in this field); the bytes were replaced with U+FFFD")


def test_bad_bytes_in_many_fields_name_five_and_count_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    items = tuple(ContextItem(kind=Kind.HISTORY, id=f"h{n}", content=f"@{n}@") for n in range(7))
    line = trace_line(make_trace(trace_id="m", items=items)).encode()
    for n in range(7):
        line = line.replace(f"@{n}@".encode(), b"\xe9")
    path.write_bytes(line + b"\n")
    trace, *problems = list(native.load(path))
    assert [it.content for it in trace.items] == ["\ufffd"] * 7
    assert [p.message.split(": not valid")[0] for p in problems[:5]] == [f"items[{n}].content" for n in range(5)]
    assert problems[5].message == "2 more field(s) not valid UTF-8; the bytes were replaced with U+FFFD"
    assert len(problems) == 6


def test_documented_example_parses_and_is_complete() -> None:
    doc = (ROOT / "docs" / "native-format.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)\n```", doc, re.S)
    assert block, "docs/native-format.md needs a ```json example"
    example = json.loads(block.group(1))
    assert example["format"] == FORMAT_TAG
    trace = trace_from_dict({k: v for k, v in example.items() if k != "format"})
    assert trace.trace_id and len(trace.items) >= 5
    # every top-level key of the example is described in the field table
    for key in example:
        assert f"`{key}`" in doc, f"field {key} not documented"
    assert "`items[].omission_reason`" in doc


def test_an_omitted_item_with_a_position_loses_it_with_a_warning(tmp_path: Path) -> None:
    """New-user finding N17: an omitted item carrying ``position: 3`` was listed at place 3 as if
    it had been sent."""
    d = json.loads(trace_line(make_trace()))
    omitted = next(n for n, it in enumerate(d["items"]) if it["status"] == "omitted")
    d["items"][omitted]["position"] = 3
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(d) + "\n")
    records = list(native.load(path))
    assert [(r.record, r.message, r.dropped) for r in records if isinstance(r, ImportProblem)] == [
        ("line 1", f"items[{omitted}].position: 3 on an omitted item; dropped (an omitted item was not sent, so it "
                   "has no place in the request)", 0)]
    (trace,) = [r for r in records if not isinstance(r, ImportProblem)]
    assert trace.items[omitted].position is None
