"""``tool_result.orphan`` knows server-held state and standalone tool spans
(:mod:`ctxviewer.assess.checks.tool_results`, :mod:`ctxviewer.assess.checks.server_state`), and
still fires on a real orphan in a self-contained request. The corpus cases are the real exports
it once failed: the OpenAI Responses call that continues ``previous_response_id``, a lone OTel
``execute_tool`` span, and the Microsoft Agent Framework trace whose second call names its
conversation by a Responses id."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace

from ctxviewer.assess.checks import run_checks
from ctxviewer.assess.checks.server_state import is_tool_span, server_held_state
from ctxviewer.assess.checks.tool_results import ToolResultCheck
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, SerializedRequest, Status
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceQuery, TraceStore

RESULT = ContextItem(kind=Kind.HISTORY, id="msg-0", content="The weather in San Francisco is sunny and 72°F",
                     role="tool", position=1)


def lone_result(**overrides: object) -> RequestTrace:
    """A request whose only message is a tool result (no call before it), the shape of a
    Responses API call that sends a ``function_call_output`` alone."""
    t = make_trace(session_id=None, source_format="cassette")
    return replace(t, items=(RESULT, *(i for i in t.items if i.kind is Kind.TOOL)), **overrides)


def orphans(trace: RequestTrace) -> list[tuple[str, Severity, str]]:
    return [(f.rule, f.severity, f.message) for f in ToolResultCheck().run(trace)]


REAL_ORPHAN = [("tool_result.orphan", Severity.FAILURE,
                "tool result msg-0 is sent but no turn carrying its call precedes it; the provider will reject the request")]


def test_a_self_contained_request_with_a_lone_result_is_an_orphan() -> None:
    assert orphans(lone_result()) == REAL_ORPHAN
    # an application's own conversation id holds nothing at the provider: still an orphan
    assert orphans(lone_result(session_id="sess-2f9c")) == REAL_ORPHAN
    assert orphans(lone_result(attributes={"gen_ai.conversation.id": "thread-7"})) == REAL_ORPHAN
    assert server_held_state(lone_result(session_id="sess-2f9c")) is None


@pytest.mark.parametrize("overrides,where", [
    ({"attributes": {"openai.previous_response_id": "resp_0b7f"}}, "previous_response_id resp_0b7f"),
    ({"request": SerializedRequest(content=json.dumps({"model": "gpt-4o-mini", "previous_response_id": "resp_9",
                                                       "input": []}))}, "previous_response_id resp_9"),
    ({"request": SerializedRequest(content=json.dumps({"conversation": {"id": "conv_68a"}, "input": []}))},
     "conversation conv_68a"),
    ({"session_id": "resp_0e32bda5b6259ecd"}, "conversation resp_0e32bda5b6259ecd"),
    ({"attributes": {"gen_ai.conversation.id": "conv_12"}}, "conversation conv_12"),
    ({"session_id": "thread_abc"}, "conversation thread_abc"),
])
def test_a_result_whose_call_the_provider_holds_is_no_orphan(overrides: dict[str, object], where: str) -> None:
    t = lone_result(**overrides)
    assert server_held_state(t) == where
    assert orphans(t) == []


def test_a_standalone_tool_span_is_no_request() -> None:
    t = lone_result(attributes={"gen_ai.operation.name": "execute_tool", "ctxviewer.span_kind": "execute_tool"})
    assert is_tool_span(t) and orphans(t) == []
    assert is_tool_span(lone_result(attributes={"ctxviewer.span_kind": "execute_tool"}))
    assert not is_tool_span(lone_result(attributes={"gen_ai.operation.name": "chat"}))


def test_a_trimmed_call_turn_is_still_an_orphan_without_server_state() -> None:
    call = ContextItem(kind=Kind.HISTORY, id="call", content="{}", role="assistant", status=Status.OMITTED)
    t = replace(lone_result(), items=(call, replace(RESULT, id="res")))
    assert [(f.rule, f.evidence.item_ids) for f in ToolResultCheck().run(t)] == [("tool_result.orphan", ("res", "call"))]


CORPUS = ("provider-api/openai/responses-api-function-call-roundtrip.vcr.yaml",
          "provider-api/openai/responses-api-function-call-roundtrip.extracted.json",
          "otel-genai/openinference-genai-fixture-otel-execute-tool-span.attrs.json",
          "langfuse/microsoft-agent-2025-12-17.trace.json")
RESPONSES_CALL = "resp_0b7fb495b8662b690069d6f97cd1648193bfded925efce1a9d"
TOOL_SPAN = "attrs-75e352a20c8d60a5"
AGENT_SECOND_CALL = "b0913e7cd82d72b8"


@pytest.fixture
def corpus_db(shared: Path, tmp_path: Path) -> Path:
    db = tmp_path / "corpus.db"
    with TraceStore.create(db) as store:
        import_files([shared / "corpus" / p for p in CORPUS], store)
    return db


def test_the_corpus_cases_are_no_failure(corpus_db: Path) -> None:
    with TraceStore.open(corpus_db) as store:
        stored = {r.trace_id: r for r in store.list(TraceQuery(), 0, -1)}
        for rule in ("tool_result.orphan", "required.trimmed"):
            assert store.list(TraceQuery(text=f"finding == {rule}"), 0, -1) == []
        shown = {tid: derive_for_display(store, store.load(tid)) for tid in stored}
    assert {RESPONSES_CALL, TOOL_SPAN, AGENT_SECOND_CALL} <= set(stored)
    for tid, trace in shown.items():
        rules = [(f.rule, f.severity) for f in run_checks(trace)]
        assert (tid, [r for r in rules if r[1] in (Severity.FAILURE, Severity.CRITICAL)]) == (tid, [])
        assert [i.id for i in trace.items if i.status is Status.OMITTED] == []
    assert server_held_state(shown[RESPONSES_CALL]) == (
        "previous_response_id resp_0b7fb495b8662b690069d6f97bb22c8193912f647d165d6ee2")
    assert server_held_state(shown[AGENT_SECOND_CALL]) == (
        "conversation resp_0e32bda5b6259ecd00694279e271348194a818447145cd1763")
    assert is_tool_span(shown[TOOL_SPAN])


def test_the_same_responses_call_without_its_server_state_is_an_orphan(corpus_db: Path) -> None:
    """Control: strip ``previous_response_id`` from the real call (attribute and body) and the same
    items are an orphan, as a provider would say of a self-contained request."""
    with TraceStore.open(corpus_db) as store:
        t = store.load(RESPONSES_CALL)
    body = json.loads(t.request.content or "{}")
    body.pop("previous_response_id")
    bare = replace(t, attributes={k: v for k, v in t.attributes.items() if k != "openai.previous_response_id"},
                   request=replace(t.request, content=json.dumps(body)))
    assert server_held_state(bare) is None
    # a self-contained request with a lone result is rejected: no answer recorded
    assert orphans(replace(bare, response=None, tool_calls=())) == REAL_ORPHAN
    # the answer the trace records says the provider did not reject it: the call is elsewhere
    assert orphans(bare) == ANSWERED_ORPHAN


ANSWERED_ORPHAN = [("tool_result.orphan", Severity.INFO,
                    "tool result msg-0 is sent but no turn carrying its call precedes it; yet the provider answered: "
                    "its call is held where the trace does not reach (provider-held state or a turn not captured)")]


def test_an_answered_lone_result_is_info_and_an_error_span_is_still_a_failure() -> None:
    from ctxviewer.model.trace import Response

    answered = lone_result(response=Response(text="It is sunny in San Francisco."))
    assert orphans(answered) == ANSWERED_ORPHAN
    assert orphans(replace(answered, attributes={"otel.status_code": "ERROR"})) == REAL_ORPHAN
    assert orphans(lone_result(response=Response(text=None, finish_reason="stop"))) == REAL_ORPHAN  # nothing answered


def test_the_chatml_oracle_imported_alone_is_answered_not_rejected(shared: Path, tmp_path: Path) -> None:
    """Reviewer 2026-12-07 item 1: Langfuse's expected ChatML of the Microsoft Agent Framework trace,
    imported on its own, holds the second call's tool result with no call before it and the
    answer ("Current conditions in Tokyo, Japan: stormy, ...") beside it: not a failure."""
    db = tmp_path / "chatml.db"
    with TraceStore.create(db) as store:
        import_files([shared / "corpus" / "langfuse" / "microsoft-agent-2025-12-17.expected-chatml.json"], store)
        t = store.load("b0913e7cd82d72b8")
        states = {r.trace_id: r.state for r in store.list(TraceQuery(), 0, -1)}
    assert states == {"2406e8343fd49c0e": "ok", "4cd6caa32861956a": "ok", "b0913e7cd82d72b8": "ok"}  # was a failure
    assert t.response is not None and (t.response.text or "").startswith("Current conditions in Tokyo, Japan")
    assert [(f.rule, f.severity) for f in ToolResultCheck().run(t)] == [("tool_result.orphan", Severity.INFO)]


def test_an_omitted_call_turn_or_a_what_if_stays_a_failure_though_an_answer_is_recorded() -> None:
    """Review 2026-12-07 item 1: the recorded answer downgraded every orphan, also one whose call
    turn the trace records as omitted (the cut itself) and a what-if's, which keeps the answer of
    the request it changed."""
    from ctxviewer.model.trace import Response

    call = ContextItem(kind=Kind.HISTORY, id="turn-9", content="calling get_weather", role="assistant",
                       status=Status.OMITTED)
    t = make_trace(session_id=None, source_format="cassette", response=Response(text="It is sunny."))
    cut = replace(t, items=(call, replace(RESULT, position=1), *(i for i in t.items if i.kind is Kind.TOOL)))
    [f] = ToolResultCheck().run(cut)
    assert (f.severity, f.message) == (Severity.FAILURE, "tool result msg-0 is sent but the turn before it (turn-9, which "
                                       "carried the call) was omitted; the provider will reject the request")
    whatif = lone_result(response=Response(text="It is sunny."), replay_of="trace-1",
                         attributes={"ctxviewer.whatif.changed": True})
    assert orphans(whatif) == REAL_ORPHAN
    as_recorded = lone_result(response=Response(text="It is sunny."), replay_of="trace-1",
                              attributes={"ctxviewer.whatif.changed": False})
    assert orphans(as_recorded) == ANSWERED_ORPHAN  # the recording's own request: concluded as recorded


def test_the_responses_gap_names_the_provider_state_and_carries_no_capture_repair(corpus_db: Path) -> None:
    """Review 2026-12-07 item 7: the request was captured whole; "capture the whole request" has
    no object when the gap is the turns the provider holds."""
    with TraceStore.open(corpus_db) as store:
        t = store.load(RESPONSES_CALL)
    [gap] = [f for f in run_checks(t) if f.rule == "accounting.reported_gap"]
    assert (gap.severity, gap.repair) == (Severity.INFO, None)
    assert gap.message == ("the provider reported 108 input tokens, counted 54 (o200k_base; 22 in the items + 32 of "
                           "message framing and tool-definition overhead): 54 tokens above the count "
                           "-- the request continues a conversation the provider holds (previous_response_id "
                           "resp_0b7fb495b8662b690069d6f97bb22c8193912f647d165d6ee2): the earlier turns count as input "
                           "but are not in this request")
