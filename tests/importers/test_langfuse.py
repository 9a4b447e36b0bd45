"""Langfuse trace downloads (ctxviewer.importers.formats.langfuse) and Langfuse ChatML
(ctxviewer.importers.formats.langfuse_chatml): every ``../shared/corpus/langfuse`` file with its real
values -- model, messages in order with roles, tool definitions, tool calls, usage, status."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxviewer.importers import ImportProblem, detect
from ctxviewer.importers.formats.langfuse.api_page import page_note
from ctxviewer.model.trace import RequestTrace
from tests.shared_data import CORPUS, needs_corpus

LF = "corpus/langfuse"
WEATHER_Q = "What's the weather in Tokyo?"


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def _roles(t: RequestTrace) -> list[tuple[str, str | None]]:
    return [(i.kind.value, i.role) for i in t.items]


def _calls(t: RequestTrace) -> list[tuple[str, str | None, str | None]]:
    return [(c.name, c.arguments, c.id) for c in t.tool_calls]


def _usage(t: RequestTrace) -> tuple[int | None, ...]:
    u = t.usage
    return (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_creation_input_tokens, u.reasoning_tokens)


EXPECTED: dict[str, list[dict[str, Any]]] = {
    "koog-2025-08-26.trace.json": [
        dict(id="042f9350c3729147", model=("openai", "gpt-4o"), roles=[("policy", "system"), ("user", "user")],
             tools=[], calls=[("HelloTool", '{"name": "Bob"}', "call_n2HaWg9KFP0BZDqXv6G4b3nJ"),
                             ("ByeTool", '{"name": "Bob"}', "call_dOeEHJDI0liHrCdFWTpkTsuO")],  # one message each
             usage=(47, 106, None, None, None), text=None),
        dict(id="e44e72cf2d221781", model=("openai", "gpt-4o"),
             # the tool calls Koog writes with role tool are the model's: assistant, then each result
             roles=[("policy", "system"), ("user", "user")] + [("history", "assistant"), ("history", "tool")] * 2,
             tools=[], calls=[],
             usage=(168, 19, None, None, None), text="Hello my darling Bob! And, bye my dear Bob!")],
    "langgraph-python-2025-08-22.trace.json": [
        dict(id="4f6535aaebcda355", model=("openai", "gpt-4o-2024-08-06"),
             roles=[("history", "user"), ("user", "user"), ("tool", None)], tools=["Web-Search"],  # N5
             calls=[("Web-Search", '{"query":"example"}', "call_1oGK863sxQHlPreFhDdEs3yl")],
             usage=(60, 15, 0, None, 0), text=None),
        dict(id="5ba09605e0929d78", model=("openai", "gpt-4o-2024-08-06"),
             roles=[("history", "user"), ("user", "user"), ("history", "assistant"), ("history", "tool"),
                    ("tool", None)], tools=["Web-Search"], calls=[], usage=(108, 51, 0, None, 0),
             text=None)],
    "microsoft-agent-2025-12-17.trace.json": [
        dict(id="2406e8343fd49c0e", model=("openai", "gpt-5-mini"), roles=[("policy", "system"), ("user", "user"),
                                                                          ("tool", None)],
             tools=["get_weather"], calls=[("get_weather", '{"location":"Tokyo, Japan"}', "call_CwaJHuXTm9dmHFQPlVbqyzJ0")],
             usage=(77, 86, None, None, None), text=None),
        dict(id="b0913e7cd82d72b8", model=("openai", "gpt-5-mini"),
             roles=[("policy", "system"), ("history", "tool"), ("tool", None)], tools=["get_weather"], calls=[],
             usage=(216, 20, None, None, None), text="Current conditions in Tokyo, Japan: stormy, high around 23°C.")],
    "openai-agents-2025-09-30.trace.json": [
        dict(id="98870087af69bf06", model=("openai", "gpt-4.1-2025-04-14"),
             roles=[("policy", "system"), ("user", "user"), ("tool", None)], tools=["get_weather"],
             calls=[("get_weather", '{"city":"Tokyo"}', "call_Kud0j0DxWSmLzv9W5m6qVqXn")], usage=(55, 15, 0, None, 0),
             text=None),
        dict(id="90d94774e8e3724d", model=("openai", "gpt-4.1-2025-04-14"),
             roles=[("policy", "system"), ("user", "user"), ("history", "assistant"), ("history", "tool"), ("tool", None)],
             tools=["get_weather"], calls=[], usage=(85, 29, 0, None, 0),
             text="The weather in Tokyo is currently sunny. If you need more details like temperature or forecast "
                  "for the upcoming days, just let me know!")],
    "openai-assistants-2024-05-29.seeder.json": [
        dict(id="0d8f5427-c91a-44c8-86c5-e12d806edd57", model=(None, "gpt-4"),
             roles=[("history", "assistant"), ("user", "user")], tools=[], calls=[], usage=(49, 40, None, None, None),
             text="Sure, first subtract 11 from both sides to get `3x = 3`, then divide both sides by 3 to solve for "
                  "`x`. The solution is `x = 1`.")],
    "pydantic-ai-tools-2025-06-06.trace.json": [
        dict(id="5cb389a3bdd21a6e", model=("openai", "gpt-4o"), roles=[("policy", "system"), ("user", "user")],
             tools=[], calls=[], usage=(31, 96, None, None, None), text=None)],
    "vercel-aisdk-2025-11-17.trace.json": [
        dict(id="91a17a2274bfd23f", model=("openai.responses", "gpt-5"), roles=[("user", "user"), ("tool", None)],
             tools=["getWeather"], calls=[("getWeather", '{"location":"San Francisco"}', "call_DgKARp7a7IhJPDczfifMp6Ra")],
             usage=(62, 85, None, None, None), text=None)],
}


def test_every_langfuse_download(shared: Path) -> None:
    for name, expected in EXPECTED.items():
        path = shared / LF / name
        assert detect(path).name == "langfuse", name
        traces, problems = _load(path)
        assert problems == [], name
        assert len(traces) == len(expected), name
        for t, e in zip(traces, expected):
            assert t.trace_id == e["id"], name
            assert (t.endpoint.provider, t.endpoint.model) == e["model"], name
            assert _roles(t) == e["roles"], name
            assert [i.id for i in t.items if i.kind.value == "tool"] == e["tools"], name
            assert _calls(t) == e["calls"], name
            assert _usage(t) == e["usage"], name
            if e["text"] is not None:
                assert t.response is not None and t.response.text == e["text"], name
            if name.startswith("openai-assistants"):  # endTime null in this export: not a made-up success
                assert "otel.status_code" not in t.attributes
                assert t.attributes["ctxviewer.completeness"] == "end not recorded"
            else:
                assert t.attributes["otel.status_code"] == "ok" and t.attributes["ctxviewer.completeness"] == "ended"


def test_message_texts_and_sessions(shared: Path) -> None:
    koog = _load(shared / LF / "koog-2025-08-26.trace.json")[0]
    assert koog[0].items[0].content == "You are a nice and polite assistant."
    assert koog[1].items[3].content == "Hello my darling Bob!"
    assert {t.session_id for t in koog} == {"6f8d2449-33ed-4c7c-82e7-5410e34ee4e6"}  # gen_ai.conversation.id
    assert _load(shared / LF / "pydantic-ai-tools-2025-06-06.trace.json")[0][0].session_id == "session_abc"
    assert _load(shared / LF / "langgraph-python-2025-08-22.trace.json")[0][0].session_id == "demo-thread-1"
    pyd = _load(shared / LF / "pydantic-ai-tools-2025-06-06.trace.json")[0][0]
    assert pyd.items[1].content == "What is Langfuse?"
    assert pyd.response is not None and pyd.response.text.startswith("Langfuse is a tool designed for observability")


def test_system_instructions_inherited_from_the_agent(shared: Path) -> None:
    first, second = _load(shared / LF / "microsoft-agent-2025-12-17.trace.json")[0]
    for t in (first, second):
        assert (t.items[0].id, t.items[0].content) == ("system", "You are a helpful assistant.")
        assert t.attributes["ctxviewer.system_inherited_from"] == (
            "AGENT invoke_agent 171105b7-59dd-49c0-9677-0b95395aa46a (4cd6caa32861956a)")
    assert first.items[1].content == WEATHER_Q
    assert second.attributes["ctxviewer.fed_by"] == ("tool get_weather (a2de97aac476c036)",)


def test_expected_chatml_oracle(shared: Path) -> None:
    path = shared / LF / "microsoft-agent-2025-12-17.expected-chatml.json"
    assert detect(path).name == "langfuse-chatml"
    traces, problems = _load(path)
    assert [t.trace_id for t in traces] == ["4cd6caa32861956a", "2406e8343fd49c0e", "b0913e7cd82d72b8"]
    assert [p.record for p in problems] == ["a2de97aac476c036"]  # the TOOL observation: not normalised
    assert [(i.role, i.content) for i in traces[0].items] == [("system", "You are a helpful assistant."),
                                                             ("user", WEATHER_Q)]
    assert _calls(traces[1]) == [("get_weather", '{"location":"Tokyo, Japan"}', "call_CwaJHuXTm9dmHFQPlVbqyzJ0")]
    assert traces[2].response is not None and traces[2].response.text == \
        "Current conditions in Tokyo, Japan: stormy, high around 23°C."


def test_error_level_and_usage_details_with_cache(tmp_path: Path) -> None:
    doc = {"trace": {"id": "T", "sessionId": "S"}, "observations": [
        {"id": "g1", "type": "GENERATION", "model": "claude-x", "startTime": "2025-01-01T00:00:00Z",
         "endTime": "2025-01-01T00:00:01.250Z", "level": "ERROR", "statusMessage": "overloaded",
         "input": json.dumps([{"role": "user", "content": "hi"}]), "output": None,
         "usageDetails": {"input": 10, "input_cache_read": 300, "input_cache_creation": 40, "output": 0}}]}
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    t = _load(p)[0][0]
    assert (t.attributes["otel.status_code"], t.attributes["otel.status_message"]) == ("error", "overloaded")
    assert _usage(t)[:4] == (350, 0, 300, 40)
    assert t.attributes["ctxviewer.duration_ms"] == 1250.0
    assert t.session_id == "S"


def _generations_changed(tmp_path: Path, change: Any) -> Path:
    """The corpus's LangGraph export with ``change(observation)`` applied to every GENERATION."""
    doc = json.loads((CORPUS / "langfuse" / "langgraph-python-2025-08-22.trace.json").read_text())
    for o in doc["observations"]:
        if o.get("type") == "GENERATION":
            change(o)
    out = tmp_path / "lf.json"
    out.write_text(json.dumps(doc))
    return out


@needs_corpus
def test_a_number_as_start_time_is_not_recorded_with_a_warning(tmp_path: Path) -> None:
    """New-user finding N7: ``startTime: 12345`` was read as nanoseconds: created 1970-01-01 and a
    55-year span, in silence."""
    path = _generations_changed(tmp_path, lambda o: o.__setitem__("startTime", 12345))
    traces, problems = _load(path)
    assert len(traces) == 2 and all(t.created is None for t in traces)
    assert [p.message for p in problems if "startTime" in p.message] == [
        "startTime: 12345 is not an ISO-8601 time; the time is imported as not recorded, the observation is kept"] * 2


@needs_corpus
def test_a_generation_that_is_its_own_parent_is_imported_and_named(tmp_path: Path) -> None:
    """New-user finding N13: GENERATIONs naming themselves as parent were taken for parents of
    other generations: "no GENERATION observations", nothing imported."""
    path = _generations_changed(tmp_path, lambda o: o.__setitem__("parentObservationId", o["id"]))
    traces, problems = _load(path)
    assert sorted(t.trace_id for t in traces) == ["4f6535aaebcda355", "5ba09605e0929d78"]
    assert sorted(p.message for p in problems if "cycle" in p.message) == [
        f"observation {i} (GENERATION ChatOpenAI) names itself as its parent (a cycle); imported as a root"
        for i in ("4f6535aaebcda355", "5ba09605e0929d78")]


@needs_corpus
def test_usage_that_is_no_token_count_is_said(tmp_path: Path) -> None:
    """New-user finding N11: ``usageDetails {"input": "many", "output": -4}`` became "not recorded"
    in silence."""
    path = _generations_changed(tmp_path, lambda o: o.__setitem__("usageDetails", {"input": "many", "output": -4}))
    traces, problems = _load(path)
    assert all((t.usage.input_tokens, t.usage.output_tokens) == (None, None) for t in traces)
    assert sorted({p.message for p in problems if "token count" in p.message}) == [
        "usageDetails.input: 'many' is not a token count; shown as not recorded",
        "usageDetails.output: -4 is not a token count; shown as not recorded"]


@needs_corpus
def test_a_tool_listed_among_the_input_messages_is_a_definition(tmp_path: Path) -> None:
    """New-user finding N5: LangChain's callback lists the offered tool as a ``role: tool`` input
    entry holding the function definition; it was imported as a tool result, so the proposed
    Web-Search call read "the trace records no tool definitions"."""
    traces, _ = _load(CORPUS / "langfuse" / "langgraph-python-2025-08-22.trace.json")
    first = next(t for t in traces if t.trace_id == "4f6535aaebcda355")
    assert [(i.kind.value, i.id, i.role) for i in first.items] == [
        ("history", "msg-0", "user"), ("user", "msg-1", "user"), ("tool", "Web-Search", None)]
    assert json.loads(first.items[2].content or "")["function"]["parameters"]["properties"] == {"query": {"type": "string"}}
    assert first.items[2].is_tool_definition


@needs_corpus
def test_the_usage_objects_unit_is_no_count(tmp_path: Path) -> None:
    """Review S1: Langfuse's ``usage: {unit: "TOKENS", input, output, total}`` (older exports) was
    warned as "usage.unit: 'TOKENS' is not a token count"."""
    def older(o: dict) -> None:
        o.pop("usageDetails", None)
        o["usage"] = {"unit": "TOKENS", "input": 60, "output": 15, "total": 75}

    traces, problems = _load(_generations_changed(tmp_path, older))
    assert [p.message for p in problems if "token count" in p.message] == []
    assert [(t.usage.input_tokens, t.usage.output_tokens) for t in traces] == [(60, 15), (60, 15)]


GOLDEN = Path(__file__).resolve().parent / "golden" / "langfuse"


def test_a_saved_api_observations_page_is_read_per_trace_and_says_it_is_one_page_of_three() -> None:
    """New user: GET /api/public/observations saved to a file was 'not a recognised trace file'."""
    path = GOLDEN / "api-observations-page.json"
    assert detect(path).name == "langfuse"
    traces, problems = _load(path)
    assert [(t.trace_id, t.attributes["langfuse.trace_id"], t.attributes.get("ctxviewer.system_inherited_from"))
            for t in traces] == [("obs-a2", "tr-a", None), ("obs-b1", "tr-b", None)]
    assert [[i.content for i in t.items] for t in traces] == [["You track orders.", "Is order 88 shipped?"], ["Thanks!"]]
    assert [(p.record, p.message, p.dropped) for p in problems] == [
        ("whole file", "page 1 of 3: 3 of 7 observations in this file (a page of the Langfuse public API; "
                       "the other pages are not)", 0)]


def test_a_saved_api_traces_page_reads_embedded_observations_and_names_traces_of_ids_only() -> None:
    traces, problems = _load(GOLDEN / "api-traces-page.json")
    (t,) = traces
    assert (t.trace_id, t.session_id, t.user_id, _usage(t)[:2]) == ("obs-c1", "sess-c", "u-5", (11, 6))
    assert [p.message for p in problems] == [
        "page 1 of 3: 2 of 6 traces in this file (a page of the Langfuse public API; the other pages are not)",
        "1 trace(s) list their observations by id only (tr-d), as GET /api/public/traces returns them: their "
        "model calls are not in this file; save GET /api/public/traces/{id} per trace, or the "
        "GET /api/public/observations pages, and import those"]


def test_one_page_holding_the_whole_listing_says_nothing_about_pages(tmp_path: Path) -> None:
    doc = json.loads((GOLDEN / "api-observations-page.json").read_text())
    doc["meta"] = {"page": 1, "limit": 50, "totalItems": 3, "totalPages": 1}
    path = tmp_path / "page.json"
    path.write_text(json.dumps(doc))
    traces, problems = _load(path)
    assert (len(traces), problems) == (2, [])


@needs_corpus
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_real_download_as_an_api_page_gives_the_same_calls(tmp_path: Path, name: str) -> None:
    src = CORPUS / "langfuse" / name
    doc = json.loads(src.read_text())
    observations = list(doc["trace"].get("observations") or []) + list(doc.get("observations") or [])
    as_traces = {"data": [dict(doc["trace"], observations=observations)],
                 "meta": {"page": 1, "limit": 50, "totalItems": 140, "totalPages": 3}}
    as_observations = {"data": [dict(o, traceId=doc["trace"]["id"]) for o in observations],
                       "meta": {"page": 2, "limit": 50, "totalItems": 120, "totalPages": 3}}
    want, _ = _load(src)
    assert want
    for page, note in ((as_traces, "page 1 of 3: 1 of 140 traces in this file"),
                       (as_observations, f"page 2 of 3: {len(observations)} of 120 observations in this file")):
        path = tmp_path / "page.json"
        path.write_text(json.dumps(page))
        got, problems = _load(path)
        assert [(t.trace_id, t.items, t.usage, t.tool_calls) for t in got] == [
            (t.trace_id, t.items, t.usage, t.tool_calls) for t in want]
        assert [p.message.split(" (a page")[0] for p in problems if p.record == "whole file"] == [note]


@given(page=st.integers(1, 9), pages=st.integers(0, 9), total=st.integers(0, 500), held=st.integers(0, 60))
def test_the_page_note_is_said_only_when_the_listing_has_more(page: int, pages: int, total: int, held: int) -> None:
    notes = page_note("f.json", {"page": page, "limit": 50, "totalItems": total, "totalPages": pages}, held, "traces")
    more = pages > 1 or total > held
    assert [n.message.split(" (a page")[0] for n in notes] == (
        [f"page {page} of {pages}: {held} of {total} traces in this file"] if more else [])
    assert all(n.dropped == 0 for n in notes)


def test_the_page_note_counts_only_the_objects_and_reads_no_boolean_page() -> None:
    """Review 2026-12-07: ``meta.page: true`` printed "page True of 2", and two non-objects in
    ``data`` counted as traces ("6 of 99 traces" where 4 were)."""
    from ctxviewer.importers.formats.langfuse.api_page import page_note

    [note] = page_note("p.json", {"page": True, "totalPages": 2, "totalItems": 99}, 4, "traces")
    assert note.message == ("page ? of 2: 4 of 99 traces in this file (a page of the Langfuse public API; "
                            "the other pages are not)")
