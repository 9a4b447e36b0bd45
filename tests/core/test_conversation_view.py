"""Issue 13: the request as the model received it -- messages in order with roles, the omitted
candidates in place with their reason, then the response."""

from __future__ import annotations

from pathlib import Path

from factories import make_trace

from ctxviewer.present.conversation_view import RESPONSE_ID, conversation
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def test_refund_conversation_keeps_omitted_turns_in_place() -> None:
    with TraceStore.open(SAMPLES) as st:
        trace = st.load("refund-approval-forgotten")
    turns = conversation(trace)
    assert len(turns) == len([i for i in trace.items if i.kind.value != "tool"]) + 1 == 18
    assert turns[0].heading == "1 · system · policy policy · 800 tokens"
    assert [t.item_id for t in turns[1:6]] == ["turn-00", "turn-01", "turn-02", "turn-03", "turn-04"]
    assert turns[2].heading == "omitted (window) · assistant · history turn-01 · 134 tokens"
    assert turns[2].omitted and turns[2].reason == "window"
    assert "needs a supervisor's approval before it can be issued" in turns[2].text
    assert turns[5].heading == "5 · user · history turn-04 · 44 tokens"
    assert not turns[5].omitted
    omitted = [t for t in turns if t.omitted]
    assert [(t.item_id, t.reason) for t in omitted] == [
        ("turn-00", "window"), ("turn-01", "window"), ("turn-02", "window"), ("turn-03", "window"), ("KB-1009", "rank")]
    last = turns[-1]
    assert last.item_id == RESPONSE_ID and last.heading == "response · assistant · finish reason stop"
    assert "has been processed" in last.text


def test_unknown_role_content_and_invisible_characters() -> None:
    from dataclasses import replace

    t = make_trace()
    items = list(t.items)
    items[1] = replace(items[1], role=None, content="hi\u200bthere")
    items[2] = replace(items[2], content=None)
    turns = conversation(replace(t, items=tuple(items)))
    assert turns[1].role == "role not recorded" and turns[1].text == "hi⟨ZWSP⟩there"
    assert turns[2].text == "content not recorded"
    assert all(tt.item_id != "tool-lookup_order" for tt in turns)  # tool definitions are not messages
