""":mod:`ctxviewer.assess.scanner.json_strings` yields every non-blank string value of any JSON
document, once, in document order, with the line its token starts on (hypothesis over random
JSON, compact and pretty-printed), repeated keys kept."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.assess.scanner import json_strings

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | _TEXT,
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_TEXT, kids, max_size=4), max_leaves=25)


def _values(v: Any) -> list[str]:
    if isinstance(v, str):
        return [v] if v.strip() and not _holds_json(v) else [s for s in _inner(v)]
    if isinstance(v, dict):
        return [s for x in v.values() for s in _values(x)]
    if isinstance(v, list):
        return [s for x in v for s in _values(x)]
    return []


def _holds_json(v: str) -> bool:
    if v.lstrip()[:1] not in ("{", "["):
        return False
    try:
        return isinstance(json.loads(v), (dict, list))
    except ValueError:
        return False


def _inner(v: str) -> list[str]:
    return _values(json.loads(v)) if _holds_json(v) else ([v] if v.strip() else [])


@settings(max_examples=300, deadline=None)
@given(doc=st.lists(JSON, max_size=4) | st.dictionaries(_TEXT, JSON, max_size=4), indent=st.sampled_from([None, 2]))
def test_every_string_once_in_order_on_its_line(doc: Any, indent: int | None) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=bool(indent))
    found = json_strings.read(text)
    assert found is not None and found.bad_lines == []
    [(line, value, whole)] = found.documents
    got = list(json_strings.strings(value, whole, line))
    assert [s for _path, s, _line in got] == _values(doc)
    lines = text.split("\n")
    for _path, s, at in got:
        if "<json>" not in _path:
            assert json.dumps(s, ensure_ascii=bool(indent)) in lines[at - 1]


def test_a_repeated_key_keeps_both_values_and_paths_name_them() -> None:
    found = json_strings.read('{"t": "first", "t": "second", "odd key": {"x": ["a", " ", "{\\"y\\": \\"z\\"}"]}}')
    assert found is not None
    [(line, value, whole)] = found.documents
    assert list(json_strings.strings(value, whole, line)) == [
        ("$.t", "first", 1), ("$.t", "second", 1), ('$["odd key"].x[0]', "a", 1), ('$["odd key"].x[2]<json>.y', "z", 1)]


def test_json_lines_keep_their_lines_and_name_the_bad_ones() -> None:
    text = '{"a": "x"}\n\n[1, "y"]\nnot json\n"a bare string"\n'
    assert json_strings.read(text) is None  # not named .jsonl: a text whose lines are not all JSON is text
    found = json_strings.read(text, json_lines=True)
    assert found is not None
    assert [(n, text) for n, _v, text in found.documents] == [(1, '{"a": "x"}'), (3, '[1, "y"]')]
    assert [(n, why) for n, _t, why in found.bad_lines] == [(4, "Expecting value: column 1"),
                                                           (5, "not an object or array")]
    assert json_strings.read("[INFO] a log line\n", json_lines=True) is None  # its first line is no JSON record
    assert json_strings.read("plain text") is None
    # review 2026-12-07: JSON allows U+2028 raw inside a string; a line is split at line feeds only
    sep = json_strings.read('{"a": "x\u2028y"}\r\n{"b": "z"}\n')
    assert sep is not None and [(n, text) for n, _v, text in sep.documents] == [(1, '{"a": "x\u2028y"}'), (2, '{"b": "z"}')]
