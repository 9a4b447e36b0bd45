"""Tool definitions and system instructions recorded on an ancestor (agent) span are attached to the
chat calls below it that record none of their own, marked "inherited from <span>"
(ctxviewer.importers.common.inherit), in the OTel, OpenInference and Langfuse importers.

Inputs are the corpus agent traces: langfuse/microsoft-agent-2025-12-17 (an ``invoke_agent``
observation with ``gen_ai.system_instructions`` and ``gen_ai.tool.definitions`` above two chat
generations) and langfuse/openai-agents-2025-09-30 (OpenInference attributes: an ``AGENT`` span
above two ``LLM`` spans with ``llm.tools``). Each is imported as recorded and as an instrumentation
that records the agent's tools only on the agent span writes it (the chat calls' own tool
definitions left out, read from the corpus file at test time): the inherited tool items are the
same tools with the same counted tokens as the recorded ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.model.trace import Kind, RequestTrace
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "langfuse"
MS = CORPUS / "microsoft-agent-2025-12-17.trace.json"
OA = CORPUS / "openai-agents-2025-09-30.trace.json"
pytestmark = pytest.mark.skipif(not MS.exists(), reason="corpus not present")

AGENT = "AGENT invoke_agent 171105b7-59dd-49c0-9677-0b95395aa46a (4cd6caa32861956a)"
CHATS = ["2406e8343fd49c0e", "b0913e7cd82d72b8"]


def _obs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc.get("observations") or doc["trace"]["observations"]


def _attrs(o: dict[str, Any]) -> dict[str, Any]:
    md = o["metadata"] if isinstance(o["metadata"], dict) else json.loads(o["metadata"])
    return md["attributes"]


def _import(tmp: Path, name: str, doc: Any) -> dict[str, RequestTrace]:
    path = tmp / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    with TraceStore.create(tmp / f"{name}.db") as store:
        import_files([path], store)
        return {row.trace_id: store.load(row.trace_id) for row in store.list()}


def _tools(t: RequestTrace) -> list[tuple[str, int | None, str | None]]:
    return [(i.id, i.tokens, i.source.label() if i.source else None) for i in t.items if i.kind is Kind.TOOL]


def _without_chat_tools(doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for o in _obs(doc):
        if o["type"] == "GENERATION":
            md = o["metadata"] if isinstance(o["metadata"], dict) else json.loads(o["metadata"])
            md["attributes"].pop("gen_ai.tool.definitions")
            o["metadata"] = md
    return doc


def test_langfuse_generations_inherit_the_agent_observations_tools(tmp_path: Path) -> None:
    doc = json.loads(MS.read_text(encoding="utf-8"))
    recorded = _import(tmp_path, "recorded.json", doc)
    inherited = _import(tmp_path, "inherited.json", _without_chat_tools(doc))
    for chat in CHATS:
        own, got = recorded[chat], inherited[chat]
        assert _tools(own) == [("get_weather", 18, None)]  # the chat's own definition: nothing inherited
        assert "ctxviewer.tools_inherited_from" not in own.attributes
        assert _tools(got) == [("get_weather", 18, f"inherited from {AGENT}")]
        assert got.attributes["ctxviewer.tools_inherited_from"] == AGENT
        assert [i.content for i in got.items if i.kind is Kind.TOOL] == [i.content for i in own.items if i.kind is Kind.TOOL]
        [system] = [i for i in got.items if i.id == "system"]  # the instructions, inherited as before, now marked too
        assert (system.content, system.source and system.source.label()) == ("You are a helpful assistant.",
                                                                             f"inherited from {AGENT}")


def _as_spans(doc: dict[str, Any], keep: set[str]) -> list[dict[str, Any]]:
    """The observations as Phoenix/OTel span objects (context, parent_id, ISO times, the span
    attributes Langfuse kept), the input messages back in ``gen_ai.input.messages`` for GenAI spans;
    attribute keys not starting with one of ``keep`` left out of LLM spans."""
    spans = []
    trace_id = doc["trace"]["id"]
    for o in _obs(doc):
        a = dict(_attrs(o))
        if o["type"] == "GENERATION":
            if "gen_ai.operation.name" in a:
                a["gen_ai.input.messages"] = json.dumps(o["input"])
                a["gen_ai.output.messages"] = json.dumps(o["output"])
            a = {k: v for k, v in a.items() if not k.startswith(("gen_ai.tool.definitions", "llm.tools")) or
                 k.startswith(tuple(keep))}
        spans.append({"name": o["name"], "context": {"trace_id": trace_id, "span_id": o["id"]},
                      "parent_id": o.get("parentObservationId"), "start_time": o["startTime"],
                      "end_time": o["endTime"], "attributes": a})
    return spans


def test_otel_chat_spans_inherit_the_invoke_agent_spans_tools_and_instructions(tmp_path: Path) -> None:
    doc = json.loads(MS.read_text(encoding="utf-8"))
    recorded = _import(tmp_path, "recorded.json", _as_spans(doc, {"gen_ai.tool.definitions"}))
    inherited = _import(tmp_path, "inherited.json", _as_spans(doc, set()))
    span = "span invoke_agent 171105b7-59dd-49c0-9677-0b95395aa46a (4cd6caa32861956a)"
    for chat in CHATS:
        [own] = [t for tid, t in recorded.items() if tid.endswith(chat)]
        [got] = [t for tid, t in inherited.items() if tid.endswith(chat)]
        assert got.source_format == "otel"
        assert _tools(own) == [("get_weather", 18, None)]
        assert _tools(got) == [("get_weather", 18, f"inherited from {span}")]
        assert got.attributes["ctxviewer.tools_inherited_from"] == span
        assert got.attributes["ctxviewer.system_inherited_from"] == span
        assert [(i.id, i.tokens) for i in got.items if i.kind is Kind.POLICY] == [("system", 6)]


def test_an_explicitly_empty_tool_list_on_the_chat_span_is_not_replaced(tmp_path: Path) -> None:
    doc = json.loads(MS.read_text(encoding="utf-8"))
    spans = _as_spans(doc, set())
    for sp in spans:
        if sp["context"]["span_id"] == CHATS[0]:
            sp["attributes"]["gen_ai.tool.definitions"] = "[]"  # the call offered no tools
    traces = _import(tmp_path, "empty.json", spans)
    [first] = [t for tid, t in traces.items() if tid.endswith(CHATS[0])]
    assert _tools(first) == [] and "ctxviewer.tools_inherited_from" not in first.attributes


def test_openinference_llm_spans_inherit_the_agent_spans_llm_tools(tmp_path: Path) -> None:
    doc = json.loads(OA.read_text(encoding="utf-8"))
    recorded = _import(tmp_path, "recorded.json", _as_spans(doc, {"llm.tools"}))
    moved = _as_spans(doc, set())
    [llm] = [_attrs(o) for o in _obs(doc) if o["id"] == "98870087af69bf06"]
    for sp in moved:  # the tools recorded once, on the agent span
        if sp["name"] == "Hello world":
            sp["attributes"].update({k: v for k, v in llm.items() if k.startswith("llm.tools.")})
    inherited = _import(tmp_path, "inherited.json", moved)
    assert len(recorded) == len(inherited) == 2
    span = "span Hello world (d950b668796240b5)"
    for tid, got in inherited.items():
        own = recorded[tid]
        assert got.source_format == "openinference"
        assert _tools(own) == [("get_weather", 6, None)]
        assert _tools(got) == [("get_weather", 6, f"inherited from {span}")]
        assert got.attributes["ctxviewer.tools_inherited_from"] == span
