"""Replay (ctxviewer.replay.run) of every sample and of corpus traces with tool calls against the fake
server: each request reaches it in a shape the provider accepts, the sent bytes are stored, and the
new trace is linked to the original."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from replay_fakes import FakeServer, request_problems

from ctxviewer.importers.registry import REGISTRY
from ctxviewer.model.trace import RequestTrace, SerializedRequest
from ctxviewer.replay.endpoints import EndpointConfig
from ctxviewer.replay.rebuild import plan_request
from ctxviewer.replay.run import diff_summary, replay, save
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
KINDS = ("openai-chat", "openai-compatible", "anthropic-messages", "openai-responses")


def _samples() -> list[RequestTrace]:
    with TraceStore.open(SAMPLES) as s:
        return [s.load(r.trace_id) for r in s.list()]


def _ep(srv: FakeServer, kind: str) -> EndpointConfig:
    return EndpointConfig("fake", kind, srv.base_url, None, None, timeout_s=10, source="test")


def _corpus(shared: Path, rel: str) -> RequestTrace:
    path = shared / "corpus" / rel
    traces = [getattr(r, "trace", r) for r in REGISTRY.load(REGISTRY.detect(path), path)]
    return next(t for t in traces if isinstance(t, RequestTrace))


@pytest.mark.parametrize("kind", KINDS)
def test_every_sample_reaches_the_server_in_the_providers_shape(kind: str) -> None:
    traces = _samples()
    assert len(traces) == 9
    with FakeServer() as srv:
        done = [replay(t, _ep(srv, kind)) for t in traces]
    assert srv.problems == [[]] * 9
    for r, req in zip(done, srv.requests):
        assert req["raw"] == r.plan.body  # what was sent is what is stored, byte for byte
        assert r.trace.request.content.encode("utf-8") == req["raw"]
        assert r.trace.request.sha256 == hashlib.sha256(req["raw"]).hexdigest()
        assert r.trace.replay_of == r.original.trace_id
        assert r.trace.response.text == "Yes: the answer."


def test_a_kept_body_of_the_endpoints_shape_is_sent_unchanged() -> None:
    t = next(t for t in _samples() if t.trace_id == "budget-8k")
    with FakeServer() as srv:
        r = replay(t, _ep(srv, "openai-chat"))
    assert r.plan.source == "stored body" and r.plan.changed == ()
    assert srv.requests[0]["raw"] == t.request.content.encode("utf-8")
    assert r.trace.request.exact_replay is True
    assert r.trace.endpoint.model == "gpt-4o-mini-2024-07-18"


def test_temperature_and_seed_as_recorded_unless_overridden() -> None:
    t = next(t for t in _samples() if t.trace_id == "evidence-in-middle")
    with FakeServer() as srv:
        same = replay(t, _ep(srv, "openai-chat"))
        other = replay(t, _ep(srv, "openai-chat"), overrides={"temperature": 0.9, "seed": 11})
    assert json.loads(srv.requests[0]["raw"])["temperature"] == 0.2
    sent = json.loads(srv.requests[1]["raw"])
    assert (sent["temperature"], sent["seed"]) == (0.9, 11)
    assert other.plan.changed == ("temperature", "seed")
    assert other.trace.attributes["ctxviewer.replay.changed"] == ("temperature", "seed")
    assert same.trace.attributes["gen_ai.request.temperature"] == 0.2


def test_a_redacted_trace_says_it_cannot_be_replayed_exactly_and_which_fields() -> None:
    t = next(t for t in _samples() if t.trace_id == "ticket-injection")
    plan = plan_request(t, EndpointConfig("x", "openai-chat", "http://127.0.0.1:9/v1", None, None))
    assert plan.inexact == ("cannot be replayed exactly: fields messages[1].content, user redacted in the record "
                            "(sent as the log kept them)")


def test_a_stored_body_the_provider_would_refuse_is_rebuilt() -> None:
    """history-16k's stored body has tool messages answering no tool call (OpenAI refuses that)."""
    t = next(t for t in _samples() if t.trace_id == "history-16k")
    plan = plan_request(t, EndpointConfig("x", "openai-chat", "http://127.0.0.1:9/v1", None, None))
    assert plan.source == "rebuilt from the items"
    assert plan.notes[0] == ("the stored body breaks the provider's tool-call pairing at messages[8], messages[21], "
                             "messages[25], messages[26], messages[40] (the provider refuses it); rebuilt from the items")


def test_a_trace_without_its_body_is_rebuilt_from_the_items() -> None:
    t = next(t for t in _samples() if t.trace_id == "policy-missing")
    plan = plan_request(t, EndpointConfig("x", "openai-chat", "http://127.0.0.1:9/v1", None, None))
    doc = plan.doc
    assert plan.source == "rebuilt from the items"
    assert [m["role"] for m in doc["messages"]] == ["user"] * 4  # both policies omitted: no system message
    assert [d["function"]["name"] for d in doc["tools"]] == ["lookup_order", "get_tracking", "issue_refund"]
    assert doc["max_tokens"] == 1200  # the reserved output B_out
    assert plan.inexact == "cannot be replayed exactly: the record says so (exact_replay false)"


def test_tool_calls_and_results_are_paired_for_each_provider(shared: Path) -> None:
    """The OpenInference fixture records an assistant tool call and a tool result; rebuilt, each
    provider's pairing rule holds (an Anthropic tool_use followed by its tool_result)."""
    t = _corpus(shared, "openinference/openinference-genai-fixture-llm-span-tool-calls.attrs.json")
    assert t.request.content is None
    with FakeServer() as srv:
        for kind in KINDS:
            replay(t, _ep(srv, kind))
    assert srv.problems == [[]] * 4
    chat = json.loads(srv.requests[0]["raw"])["messages"]
    assert [m["role"] for m in chat] == ["user", "assistant", "tool"]
    assert chat[1]["tool_calls"][0]["id"] == chat[2]["tool_call_id"] == "1234"
    msgs = json.loads(srv.requests[2]["raw"])["messages"]
    assert msgs[1]["content"][-1]["type"] == "tool_use" and msgs[2]["content"][0] == {
        "type": "tool_result", "tool_use_id": "1234", "content": "rainy, 57°F"}
    assert json.loads(srv.requests[0]["raw"])["temperature"] == 0.5  # llm.invocation_parameters


def test_an_anthropic_tool_result_kept_as_user_text_is_paired(shared: Path) -> None:
    t = _corpus(shared, "provider-api/anthropic/messages-tool-result-in-history.vcr.yaml")
    from ctxviewer.replay.conversation import conversation_of

    conv = conversation_of(t)
    assert [(x.role, x.call_id) for x in conv.turns] == [
        ("user", None), ("assistant", None), ("tool", "toolu_01KBqpqR73qWGsMaW3vBzEjz")]
    assert conv.turns[2].text == '{"weather": "sunny", "temperature": "75"}'
    assert conv.notes == ()  # its tool_result block marks the turn a result (role tool): no assumption to note


def test_corpus_tool_call_traces_with_their_bodies(shared: Path) -> None:
    cases = [("provider-api/anthropic/messages-tool-result-in-history.vcr.yaml", "anthropic-messages"),
             ("provider-api/openai/chat-completions-parallel-tool-calls.vcr.yaml", "openai-chat"),
             ("provider-api/openai/responses-api-function-call-roundtrip.vcr.yaml", "openai-responses")]
    with FakeServer() as srv:
        for rel, kind in cases:
            t = _corpus(shared, rel)
            r = replay(t, _ep(srv, kind))
            assert r.plan.source == "stored body", rel
        for rel, _kind in cases:  # and rebuilt from the items, for the other providers too
            for other in KINDS:
                replay(replace(_corpus(shared, rel), request=SerializedRequest()), _ep(srv, other))
    assert srv.problems == [[]] * (len(cases) + len(cases) * len(KINDS)), srv.problems


def test_the_replay_is_saved_beside_and_its_diff_says_what_changed(tmp_path: Path) -> None:
    t = next(t for t in _samples() if t.trace_id == "budget-8k")
    with FakeServer() as srv:
        r = replay(t, _ep(srv, "openai-chat"), trace_id="budget-8k~replay-1")
    assert save(tmp_path / "r.db", [r.trace], SAMPLES) == 1
    with TraceStore.open(tmp_path / "r.db") as s:
        back = s.load("budget-8k~replay-1")
    assert back.replay_of == "budget-8k" and back.request.content == r.trace.request.content
    with pytest.raises(ValueError, match="the source database is never written"):
        save(SAMPLES, [r.trace], SAMPLES)
    text = diff_summary(t, r.trace)
    assert text.startswith("A  budget-8k\nB  budget-8k~replay-1\n\nno change") or "response" in text


def test_request_problems_catches_an_unpaired_tool_use() -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "no result"}]}]}
    assert request_problems("/v1/messages", body) == [
        "messages[1]: tool_use ids ['t1'] without tool_result blocks immediately after"]


def test_a_what_if_is_replayed_as_re_trimmed() -> None:
    """"What would the model have answered with this budget?": the what-if's trace (no stored body:
    its items changed) is rebuilt from its items, so the items it drops are not sent."""
    from ctxviewer.builder.whatif import Scenario, run
    from ctxviewer.model.trace import Category

    t = next(t for t in _samples() if t.trace_id == "evidence-in-middle")
    outcome = run(t, Scenario(caps={Category.EVIDENCE: 1500}))
    w = outcome.trace
    dropped = [i for i in w.omitted if t.item(i.id).status.value == "retained"]
    assert dropped and w.request.content is None
    with FakeServer() as srv:
        r = replay(w, _ep(srv, "openai-chat"))
    assert srv.problems == [[]]
    sent = [m["content"] for m in json.loads(srv.requests[0]["raw"])["messages"]]
    assert all(i.content not in sent for i in dropped)
    assert sum(1 for i in w.retained if i.content in sent) == len([i for i in w.retained if i.kind.value != "tool"])
    assert r.trace.replay_of == w.trace_id and r.plan.source == "rebuilt from the items"
