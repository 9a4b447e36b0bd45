"""The same trace exported with ``ensure_ascii`` and as UTF-8, with tool definitions in another
JSON key order, imported into two databases: the diff reports no change (issue 8)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from factories import make_trace

from ctxviewer.diff import Change, diff_traces
from ctxviewer.diff.identity import normalise_content
from ctxviewer.importers.formats.native import FORMAT_TAG
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.model.trace import ContextItem, Kind, Status
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

TOOL = {"name": "lookup_order", "description": "Suche eine Bestellung – Status 📦",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}


def _trace(tool_json: str):
    base = make_trace()
    items = list(base.items)
    items[1] = replace(items[1], content="Grüße aus Köln 👋 — ich habe eine Frage.")
    items[5] = ContextItem(Kind.TOOL, "tool-lookup_order", tool_json, tokens=40, position=5, priority=10)
    return replace(base, items=tuple(items))


def _export(path: Path, trace, ensure_ascii: bool) -> Path:
    line = json.dumps({"format": FORMAT_TAG, **trace_to_dict(trace)}, ensure_ascii=ensure_ascii)
    path.write_text(line + "\n", encoding="utf-8")
    return path


def _import(tmp_path: Path, name: str, src: Path):
    db = tmp_path / f"{name}.db"
    with TraceStore.create(db) as store:
        assert import_files([src], store).imported == 1
    with TraceStore.open(db) as store:
        return store.load("trace-4471-delivery")


def test_ensure_ascii_and_key_order_are_no_change(tmp_path: Path) -> None:
    ascii_tool = json.dumps(TOOL, ensure_ascii=True, sort_keys=True)
    utf8_tool = json.dumps({k: TOOL[k] for k in reversed(list(TOOL))}, ensure_ascii=False, indent=2)
    assert ascii_tool != utf8_tool
    a_file = _export(tmp_path / "a.jsonl", _trace(ascii_tool), ensure_ascii=True)
    b_file = _export(tmp_path / "b.jsonl", _trace(utf8_tool), ensure_ascii=False)
    assert "\\u00fc" in a_file.read_text() and "ü" in b_file.read_text()
    a, b = _import(tmp_path, "a", a_file), _import(tmp_path, "b", b_file)  # two databases
    assert a.items[5].content != b.items[5].content
    d = diff_traces(a, b)
    assert d.no_change, [(x.id, x.changes) for x in d.changed_items]
    assert {x.change for x in d.items} == {Change.UNCHANGED} and d.first_divergence is None


def test_normalise_content() -> None:
    assert normalise_content('{"b": 1, "a": "\\u00e9"}') == normalise_content('{"a":"é","b":1}') == '{"a":"é","b":1}'
    assert normalise_content("not json {") == "not json {"
    assert normalise_content(None) is None
    assert Status.RETAINED.value == "retained"
