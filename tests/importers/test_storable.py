"""Every importer yields only traces the store can read back (finding 1 of the new-user run): a
tool call without a name is left out with a problem naming the file, the trace and the field, a
duplicate item id is avoided where importers name items, and whatever the store still could not
read back (``trace_from_dict(trace_to_dict(t))`` refuses it) is left out with a problem instead of
being stored and breaking ``show``, ``check``, ``export`` and ``report`` later."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from factories import make_trace
from hypothesis import given, settings
from hypothesis import strategies as st
from otlp_factories import chat_span, otlp_request, s

from ctxviewer.cli import cli
from ctxviewer.importers import ImportProblem, Record, Registry
from ctxviewer.model.serialize import TraceFormatError, trace_from_dict, trace_to_dict
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, SourceRef, Status, ToolCall, Trust
from ctxviewer.pipeline.importing import import_files, import_into
from ctxviewer.pipeline.sanitize import repair, unreadable
from ctxviewer.store import TraceStore

CORPUS = Path("/work/shared/corpus/provider-api/openai/chat-completions-parallel-tool-calls.extracted.json")
OPENAI_ID = "chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda"
OTEL_ID = "0af7651916cd43dd8448eb211c80319c:00000000000000a1"
LEFT_OUT = "tool_calls[0]: no tool name; the tool call was left out"


def _openai_file(tmp_path: Path, edit: Any) -> Path:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} not available")
    doc = json.loads(CORPUS.read_text(encoding="utf-8"))
    edit(doc["interactions"][0])
    path = tmp_path / "tn.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def _no_name(interaction: dict[str, Any]) -> None:
    interaction["response"]["body"]["choices"][0]["message"]["tool_calls"][0]["function"] = {"arguments": "{}"}


def test_openai_tool_call_without_a_name_is_left_out_and_show_opens_the_trace(tmp_path: Path) -> None:
    path = _openai_file(tmp_path, _no_name)
    db = tmp_path / "tn.db"
    report = import_into(db, [path])
    assert report.imported == 1
    assert report.problems == [ImportProblem(str(path), f"trace {OPENAI_ID}", LEFT_OUT)]
    with TraceStore.open(db) as store:
        back = store.load(OPENAI_ID)
    assert back.tool_calls == (ToolCall(name="get_population", arguments='{"city": "San Francisco"}',
                                        id="call_ZfEORmbRGEJZ4b7dAuVSPnaf"),)
    shown = CliRunner().invoke(cli, ["show", str(db), OPENAI_ID])
    assert shown.exit_code == 0, shown.output
    assert "get_population" in shown.output and "damaged" not in shown.output
    checked = CliRunner().invoke(cli, ["check", str(db)])
    assert checked.exit_code == 0 and "1 trace(s) checked" in checked.output, checked.output
    out = tmp_path / "out.jsonl"
    exported = CliRunner().invoke(cli, ["export", str(db), "-o", str(out), "--format", "native"])
    assert exported.exit_code == 0, exported.output
    assert [json.loads(line)["trace_id"] for line in out.read_text(encoding="utf-8").splitlines()] == [OPENAI_ID]


def test_openai_tool_definition_named_like_a_message_gets_its_own_item_id(tmp_path: Path) -> None:
    def rename(interaction: dict[str, Any]) -> None:
        interaction["request"]["body"]["tools"][0]["function"]["name"] = "msg-0"

    path = _openai_file(tmp_path, rename)
    db = tmp_path / "t.db"
    report = import_into(db, [path])
    assert (report.imported, report.problems) == (1, [])
    with TraceStore.open(db) as store:
        ids = [it.id for it in store.load(OPENAI_ID).items]
    assert ids == ["msg-0", "msg-1", "msg-2", "msg-3", "msg-4", "msg-0#2", "get_population"]


def _otel_file(tmp_path: Path, *spans: dict[str, Any]) -> Path:
    path = tmp_path / "t.otlp.json"
    path.write_text(json.dumps(otlp_request(*spans)), encoding="utf-8")
    return path


def _output(*parts: dict[str, Any]) -> dict[str, str]:
    return s(json.dumps([{"role": "assistant", "parts": list(parts), "finish_reason": "tool_call"}]))


@pytest.mark.parametrize("nameless", [
    {"type": "tool_call", "id": "c1", "arguments": {"q": 1}},
    {"type": "tool_call", "id": "c1", "name": "", "arguments": {"q": 1}},
], ids=["no name", "empty name"])
def test_otel_tool_call_part_without_a_name_is_left_out_and_the_trace_loads(
        tmp_path: Path, nameless: dict[str, Any]) -> None:
    named = {"type": "tool_call", "id": "c2", "name": "lookup", "arguments": {"q": 2}}
    path = _otel_file(tmp_path, chat_span(**{"gen_ai.output.messages": _output(nameless, named)}))
    with TraceStore.create(tmp_path / "x.db") as store:
        report = import_files([path], store)
        assert report.imported == 1
        assert report.problems == [ImportProblem(str(path), f"trace {OTEL_ID}", LEFT_OUT)]
        back = store.load(OTEL_ID)
    assert back.tool_calls == (ToolCall(name="lookup", arguments='{"q":2}', id="c2"),)
    assert back.user_request == "hi"


def test_otel_tool_definition_named_system_does_not_clash_with_the_policy_item(tmp_path: Path) -> None:
    span = chat_span(**{"gen_ai.system_instructions": s(json.dumps([{"type": "text", "content": "Be brief."}])),
                        "gen_ai.tool.definitions": s(json.dumps([{"type": "function", "name": "system"}]))})
    path = _otel_file(tmp_path, span)
    with TraceStore.create(tmp_path / "x.db") as store:
        report = import_files([path], store)
        assert (report.imported, report.problems) == (1, [])
        back = store.load(OTEL_ID)
    assert [(it.id, it.kind) for it in back.items] == [("system", Kind.POLICY), ("msg-0", Kind.USER),
                                                       ("system#2", Kind.TOOL)]


# ---------------------------------------------------------------- the last gate, for any importer


class Yielding:
    """A plug-in importer that yields the given records for any file."""

    name = "yielding"
    description = "test importer"
    records_omissions = True

    def __init__(self, *records: Record) -> None:
        self.records = records

    def sniff(self, path: Path, head: bytes) -> float:
        return 1.0

    def load(self, path: Path) -> Iterator[Record]:
        return iter(self.records)


def _item(item_id: str, **kw: Any) -> ContextItem:
    return ContextItem(kind=Kind.HISTORY, id=item_id, content=f"text of {item_id}", **kw)


def test_a_trace_the_store_could_not_read_back_is_left_out_and_the_rest_imports(tmp_path: Path) -> None:
    bad = [
        make_trace(trace_id="dup", items=(_item("a"), _item("a"))),
        make_trace(trace_id="neg", items=(_item("a", tokens=-1),)),
        make_trace(trace_id="", items=()),
        make_trace(trace_id="tool", tool_calls=(ToolCall(name="", arguments=None),
                                                ToolCall(name="ok", arguments="{}"))),
    ]
    good = make_trace(trace_id="good")
    path = tmp_path / "any.txt"
    path.write_text("x")
    reg = Registry(builtin=(), group=None)
    reg.register(Yielding(*bad, good))
    with TraceStore.create(tmp_path / "x.db") as store:
        report = import_files([path], store, registry=reg)
        assert report.imported == 2 and report.files_imported == 1
        assert report.problems == [
            ImportProblem(str(path), "trace dup", "items[1].id: duplicate item id 'a'; the trace was left out"),
            ImportProblem(str(path), "trace neg",
                          "items[0].tokens: token counts cannot be negative (-1); the trace was left out"),
            ImportProblem(str(path), "trace without an id",
                          "trace_id: is required (a non-empty string); the trace was left out"),
            ImportProblem(str(path), "trace tool", LEFT_OUT),
        ]
        assert sorted(r.trace_id for r in store.list()) == ["good", "tool"]
        assert store.load("good") == good
        assert store.load("tool").tool_calls == (ToolCall(name="ok", arguments="{}"),)


def test_repair_leaves_out_each_nameless_call_naming_its_index_in_the_record() -> None:
    calls = (ToolCall(name="a", arguments=None), ToolCall(name="", arguments=None),
             ToolCall(name="b", arguments=None), ToolCall(name="", arguments="{}"))
    trace = make_trace(tool_calls=calls)
    fixed, messages = repair(trace)
    assert messages == ["tool_calls[1]: no tool name; the tool call was left out",
                        "tool_calls[3]: no tool name; the tool call was left out"]
    assert [c.name for c in fixed.tool_calls] == ["a", "b"]
    assert repair(fixed) == (fixed, [])


def _refused(trace: RequestTrace) -> str | None:
    try:
        trace_from_dict(trace_to_dict(trace))
    except TraceFormatError as exc:
        return str(exc)
    return None


ITEMS = st.builds(  # mostly readable values, now and then one the store refuses
    ContextItem,
    kind=st.sampled_from(list(Kind)),
    id=st.sampled_from(["a", "b", "c", "d", "e", "f", ""]),
    content=st.sampled_from([None, "x", "", "\ufffd"]),
    status=st.sampled_from(list(Status)),
    tokens=st.sampled_from([None, 0, 1, 7, 120, None, 3, -1, True]),
    position=st.sampled_from([None, 1, 2, 3, 4, 5, -1]),
    priority=st.sampled_from([None, 0.5, 1, 2.0, -3, None, 0.25, True, "high"]),
    trust=st.sampled_from(list(Trust)),
    source=st.sampled_from([None, SourceRef(store="kb"), SourceRef(turn=2), SourceRef(), None, SourceRef(turn=-1)]),
    role=st.sampled_from([None, "user", "assistant", "system", None, "tool", 3]),
)
READABLE_ITEMS = st.lists(st.builds(
    ContextItem, kind=st.sampled_from(list(Kind)), id=st.text(min_size=1, max_size=3), content=st.none() | st.text(),
    status=st.sampled_from(list(Status)), tokens=st.none() | st.integers(0, 10**6),
    position=st.none() | st.integers(0, 50), priority=st.none() | st.floats(allow_nan=False) | st.integers(-5, 5),
    source=st.none() | st.builds(SourceRef, store=st.none() | st.text(max_size=3), turn=st.none() | st.integers(0, 9)),
    role=st.none() | st.text(max_size=5)), max_size=5, unique_by=lambda it: it.id)
"""Items the store always reads back (non-empty unique ids, counts not negative, exact types)."""


@settings(max_examples=300, deadline=None)
@given(st.lists(ITEMS, max_size=4) | READABLE_ITEMS,
       st.lists(st.builds(ToolCall, name=st.sampled_from(["", "f"]), arguments=st.none()), max_size=2))
@pytest.mark.slow
def test_unreadable_names_exactly_what_the_round_trip_refuses(items: list[ContextItem],
                                                              calls: list[ToolCall]) -> None:
    trace = replace(make_trace(), items=tuple(items), tool_calls=tuple(calls))
    assert unreadable(trace) == _refused(trace)  # the fast item check agrees with the round trip
    fixed, messages = repair(trace)
    assert [c.name for c in fixed.tool_calls] == [c.name for c in calls if c.name]
    assert len(messages) == sum(1 for c in calls if not c.name)
    refused = _refused(fixed)
    assert refused is None or not refused.startswith("tool_calls")


def test_a_corpus_copy_of_every_format_stays_readable(tmp_path: Path) -> None:
    corpus = Path("/work/shared/corpus")
    if not corpus.exists():
        pytest.skip("corpus not available")
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and not p.name.endswith(".md"))
    for p in files:
        shutil.copy(p, tmp_path / f"{p.parent.name}--{p.name}")
    with TraceStore.create(tmp_path / "all.db") as store:
        report = import_files([tmp_path], store, workers=1)
        assert report.imported > 50
        assert not [p for p in report.problems if p.message.endswith("the trace was left out")]
        for row in store.list():
            assert store.load(row.trace_id).trace_id == row.trace_id
