"""OpenInference spans (ctxviewer.importers.formats.openinference): every ``../shared/corpus/openinference``
file with its real values, and the rules of issue 6 (span kind decides; RETRIEVER documents are
evidence of the LLM call they fed; Phoenix span JSON; token counts with cache and reasoning)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.importers import ImportProblem, detect
from ctxviewer.model.trace import RequestTrace

SYSTEM = "You are a support agent. Use the tools you are given."


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def _usage(t: RequestTrace) -> tuple[int | None, ...]:
    u = t.usage
    return (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cache_creation_input_tokens, u.reasoning_tokens)


def test_otlp_interlingua(shared: Path) -> None:
    path = shared / "corpus/openinference/interlingua-openinference-openai.otlp.json"
    assert detect(path).name == "openinference"
    traces, problems = _load(path)
    assert problems == [] and len(traces) == 1
    t = traces[0]
    assert t.trace_id == "9ed94f9bdc36b397e11c51f77d49e01a:e9856d6fe698c4f2"
    assert (t.endpoint.provider, t.endpoint.model) == ("openai", "gpt-4o-mini")
    assert [(i.kind.value, i.role, i.content) for i in t.items][:2] == [
        ("policy", "system", SYSTEM), ("user", "user", "Where is order A-1187?")]
    assert [i.id for i in t.items if i.kind.value == "tool"] == ["lookup_order"]
    assert _usage(t) == (412, 27, 256, None, 8)
    assert [(c.name, c.arguments, c.id) for c in t.tool_calls] == [
        ("lookup_order", '{"order_id": "A-1187"}', "call_9RtYbK2mXqLp")]
    assert t.response is not None and (t.response.finish_reason, t.response.model, t.response.id) == (
        "tool_calls", "gpt-4o-mini-2024-07-18", "chatcmpl-CD8yqQ2y3kZs1o0Wm7bT")
    assert t.reserved_output_tokens == 1024
    assert t.attributes["otel.status_code"] == "ok"
    assert t.created == datetime(2026, 9, 7, 13, 25, 18, 970589, tzinfo=timezone.utc)


def test_attribute_map_fixture(shared: Path) -> None:
    t = _load(shared / "corpus/openinference/openinference-genai-fixture-llm-span-tool-calls.attrs.json")[0][0]
    assert [(i.kind.value, i.role) for i in t.items] == [("user", "user"), ("history", "assistant"), ("history", "tool")]
    assert t.items[1].content == ('Absolutely! Let me check the weather for you.\n'
                                  '{"type":"tool_call","id":"1234","name":"get_weather","arguments":{"location":"Paris"}}')
    assert t.items[2].content == "rainy, 57°F"
    assert _usage(t) == (97, 52, None, None, None)
    assert t.response is not None and (t.response.text, t.response.finish_reason) == (
        "The weather in Paris is currently rainy with a temperature of 57°F.", "stop")
    assert (t.endpoint.model, t.response.model) == ("gpt-4", "gpt-4-0613")
    assert t.attributes["ctxviewer.completeness"] == "times not recorded"


def test_spec_examples_phoenix_json(shared: Path) -> None:
    traces, problems = _load(shared / "corpus/openinference/spec-examples/llm-spans-md-examples.json")
    assert [t.endpoint.model for t in traces] == ["gpt-3.5-turbo-0613", "gpt-3.5-turbo-0613", "gpt-5",
                                                  "claude-opus-4-6", "claude-opus-4-6", "gemini-3-pro", "babbage-002"]
    first, second = traces[0], traces[1]
    assert first.trace_id == "409df945-e058-4829-b240-cfbdd2ff4488:01fa9612-01b8-4358-85d6-e3e067305ec3"  # UUID ids kept
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("multiply", '{\n  "a": 23,\n  "b": 87\n}')]
    assert _usage(first) == (229, 21, None, None, None)
    assert first.created == datetime(2024, 1, 11, 23, 45, 17, 982858, tzinfo=timezone.utc)  # -07:00 -> UTC
    assert [(i.kind.value, i.role, i.content) for i in second.items][2:] == [
        ("history", "assistant", '{"type":"tool_call","name":"multiply","arguments":{"a":23,"b":87}}'),
        ("history", "tool", "2001")]
    assert second.response is not None and second.response.text == "The product of 23 times 87 is 2001."
    assert _usage(traces[2])[4] == 482 and traces[2].response.text == "Paris."  # type: ignore[union-attr]
    assert [(c.name, c.arguments) for c in traces[5].tool_calls] == [("get_current_temperature", '{"location":"Paris"}')]
    legacy = traces[6]
    assert [i.content for i in legacy.items] == [
        "def fib(n):\n    if n <= 1:\n        return n\n    else:\n        return fib(n-1) + fib(n-2)"]
    assert legacy.response is not None and legacy.response.finish_reason == "length"
    assert problems[0].record == "examples[0]"  # a bare message example, not a span
    # review item 8: examples 3..6 record their output (reasoning, text, a tool call) and no input messages
    assert [(p.record, p.message) for p in problems if "captured" in p.message] == [
        (f"examples[{n}]", "no input messages captured: the span records its output only") for n in (3, 4, 5, 6)]


def test_traces_md_logical_json(shared: Path) -> None:
    traces, problems = _load(shared / "corpus/openinference/spec-examples/traces-md-example-spans.json")
    assert problems == [] and len(traces) == 1
    t = traces[0]
    assert [(i.kind.value, i.role) for i in t.items] == [("policy", "system"), ("user", "user")]
    assert t.user_request == "Hello?"
    assert t.response is not None and t.response.text == "assistant: Yes I am here"
    assert t.attributes["otel.parent_span_id"] == "f89ebb7c-10f6-4bf8-8a74-57324d2556ef"


def _phoenix(span_id: str, kind: str, attrs: dict[str, Any], start: str, parent: str | None = "root",
             status: str = "OK", message: str = "", end: str | None = "2025-01-01T00:00:09Z") -> dict[str, Any]:
    return {"name": kind.lower(), "context": {"trace_id": "t1", "span_id": span_id}, "span_kind": kind,
            "parent_id": parent, "start_time": start, "end_time": end, "status_code": status,
            "status_message": message, "attributes": dict(attrs, **{"openinference.span.kind": kind}), "events": []}


def test_retriever_documents_feed_the_next_llm_call_whatever_the_order(tmp_path: Path) -> None:
    llm = _phoenix("s-llm", "LLM", {
        "llm.model_name": "gpt-4o", "session.id": "conv-7",
        "llm.input_messages.0.message.role": "system", "llm.input_messages.0.message.content": "Answer from context.",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.contents.0.message_content.type": "text",
        "llm.input_messages.1.message.contents.0.message_content.text": "What is the refund window?",
        "llm.input_messages.1.message.contents.1.message_content.type": "image",
        "llm.input_messages.1.message.contents.1.message_content.image.image.url": "data:image/png;base64," + "B" * 800,
        "llm.token_count.prompt": 900, "llm.token_count.completion": 40,
        "llm.token_count.prompt_details.cache_read": 512, "llm.token_count.prompt_details.cache_write": 100,
        "llm.token_count.completion_details.reasoning": 16,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.contents.0.message_content.type": "reasoning",
        "llm.output_messages.0.message.contents.0.message_content.data": "EmwKAhgBEgy3va3pzix",
        "llm.output_messages.0.message.contents.1.message_content.type": "text",
        "llm.output_messages.0.message.contents.1.message_content.text": "30 days.",
    }, "2025-01-01T00:00:02Z")
    ret = _phoenix("s-ret", "RETRIEVER", {
        "input.value": "refund window",
        "retrieval.documents.0.document.id": "kb-12", "retrieval.documents.0.document.content": "Refunds within 30 days.",
        "retrieval.documents.0.document.score": 0.91,
        "retrieval.documents.1.document.id": "kb-40", "retrieval.documents.1.document.content": "Shipping is free."},
        "2025-01-01T00:00:01Z")
    orphan = _phoenix("s-ret2", "RETRIEVER", {"retrieval.documents.0.document.id": "x"}, "2025-01-01T00:00:05Z")
    p = tmp_path / "spans.json"
    root = _phoenix("root", "CHAIN", {}, "2025-01-01T00:00:00Z", parent=None)
    p.write_text(json.dumps({"spans": [llm, orphan, ret, root]}))  # LLM span first: order must not matter
    assert detect(p).name == "openinference"
    traces, problems = _load(p)
    assert len(traces) == 1
    t = traces[0]
    assert [(i.kind.value, i.id, i.content) for i in t.items] == [  # the documents' texts are not in the input
        ("policy", "msg-0", "Answer from context."),
        ("user", "msg-1", "What is the refund window?\n[image/png blob, 800 bytes base64]")]
    assert [(r["id"], r.get("score"), r["not_sent"]) for r in t.attributes["ctxviewer.documents"]] == [
        ("kb-12", 0.91, "its text is not in the call's input"), ("kb-40", None, "its text is not in the call's input")]
    assert _usage(t) == (900, 40, 512, 100, 16)
    assert t.response is not None and t.response.text == "30 days."
    assert t.session_id == "conv-7"
    assert [p.message for p in problems] == [
        "retrieval span s-ret2 fed no LLM span in this file; its 1 document(s) are not imported"]


def test_error_and_never_ended_spans_keep_their_status(tmp_path: Path) -> None:
    attrs = {"llm.model_name": "m", "llm.input_messages.0.message.role": "user",
             "llm.input_messages.0.message.content": "hi"}
    spans = [_phoenix("a", "LLM", attrs, "2025-01-01T00:00:00Z", status="ERROR", message="429 Too Many Requests"),
             _phoenix("b", "LLM", attrs, "2025-01-01T00:00:00Z", end=None, status="UNSET")]
    p = tmp_path / "s.json"
    p.write_text(json.dumps(spans))
    a, b = _load(p)[0]
    assert (a.attributes["otel.status_code"], a.attributes["otel.status_message"]) == ("error", "429 Too Many Requests")
    assert (b.attributes["otel.status_code"], b.attributes["ctxviewer.completeness"]) == ("unset", "never ended")


GOLDEN = Path(__file__).resolve().parent / "golden" / "openinference"


def test_session_and_user_on_the_root_span_reach_the_llm_spans_under_it() -> None:
    """New user: Phoenix spans whose ``session.id`` / ``user.id`` sit only on the root CHAIN span
    gave LLM calls without a session."""
    traces, problems = _load(GOLDEN / "session-on-root.spans.json")
    assert problems == []
    assert [(t.session_id, t.user_id) for t in traces] == [("sess-root-9", "user-314"),  # both from the root, two up
                                                           ("sess-own-2", "user-314")]  # its own session kept


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.integers(1, 5), holders=st.sets(st.integers(0, 5)), own=st.booleans())
def test_the_nearest_ancestor_with_a_session_gives_it(tmp_path: Path, depth: int, holders: set[int], own: bool) -> None:
    """Chain a0 (root) .. a{depth-1} -> LLM span; the ancestors in ``holders`` record session s{i}."""
    spans = [_phoenix(f"a{i}", "CHAIN", {"session.id": f"s{i}"} if i in holders else {}, "2025-01-01T00:00:00Z",
                      parent=None if i == 0 else f"a{i - 1}") for i in range(depth)]
    llm = {"llm.model_name": "m", "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "hi"}
    spans.append(_phoenix("llm", "LLM", {**llm, **({"session.id": "mine"} if own else {})}, "2025-01-01T00:00:01Z",
                          parent=f"a{depth - 1}"))
    p = tmp_path / "spans.json"
    p.write_text(json.dumps(spans[::-1]))  # leaf first: file order must not matter
    (t,), _problems = _load(p)
    nearest = max((i for i in holders if i < depth), default=None)
    assert t.session_id == ("mine" if own else None if nearest is None else f"s{nearest}")
    assert t.user_id is None
