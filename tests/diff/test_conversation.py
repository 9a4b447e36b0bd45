"""Dropped between calls (issue 8): a three-call OTel conversation whose third call lost the two
earliest turns shows them as omitted, derived, with the reason "dropped between calls"."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace
from otlp_factories import CONVERSATION_TURNS, otlp_request, three_call_spans

from ctxviewer.diff.conversation import (
    DERIVED_ATTRIBUTE,
    DROPPED,
    SUMMARISED,
    conversation_key,
    derive_for_display,
    dropped_between_calls,
    order_calls,
    previous_call,
)
from ctxviewer.model.trace import ContextItem, Kind, Status
from ctxviewer.pipeline.importing import import_files
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore

OTEL_ID = "5b8efff798038103d269b633813fc60c"


@pytest.fixture
def otel_db(tmp_path: Path) -> Path:
    src = tmp_path / "agent.otlp.json"
    src.write_text(json.dumps(otlp_request(*three_call_spans(OTEL_ID), resource={"service.name": "agent"})))
    db = tmp_path / "agent.db"
    with TraceStore.create(db) as store:
        assert import_files([src], store).imported == 3
    return db


def _calls(db: Path):
    with TraceStore.open(db) as store:
        return [store.load(f"{OTEL_ID}:00000000000000c{n}") for n in (1, 2, 3)]


def test_third_call_lost_two_early_turns(otel_db: Path) -> None:
    c1, c2, c3 = _calls(otel_db)
    assert conversation_key(c3) == "otel:" + OTEL_ID
    assert [t.trace_id for t in order_calls([c3, c1, c2])["otel:" + OTEL_ID]] == [c1.trace_id, c2.trace_id, c3.trace_id]
    assert dropped_between_calls(c1, c2) == ()
    dropped = dropped_between_calls(c2, c3)
    assert [(d.item.id, d.item.role, d.item.content, d.reason, d.from_output) for d in dropped] == [
        ("msg-1", "user", CONVERSATION_TURNS[0][1], DROPPED, False),
        ("msg-2", "assistant", CONVERSATION_TURNS[1][1], DROPPED, False),
    ]
    assert all(d.previous_trace == c2.trace_id for d in dropped)


def test_shown_as_derived_omitted_items(otel_db: Path) -> None:
    with TraceStore.open(otel_db) as store:
        c3 = store.load(f"{OTEL_ID}:00000000000000c3")
        assert previous_call(store, c3).trace_id == f"{OTEL_ID}:00000000000000c2"
        shown = derive_for_display(store, c3)
        first = derive_for_display(store, store.load(f"{OTEL_ID}:00000000000000c1"))
    omitted = [(i.id, i.status, i.position, i.omission_reason) for i in shown.items if i.status is Status.OMITTED]
    assert omitted == [
        ("dropped:msg-1", Status.OMITTED, None, "dropped between calls (derived)"),
        ("dropped:msg-2", Status.OMITTED, None, "dropped between calls (derived)"),
    ]
    assert [i.id for i in shown.items][:3] == ["msg-0", "dropped:msg-1", "dropped:msg-2"]
    assert shown.attributes[DERIVED_ATTRIBUTE]["items"] == ("dropped:msg-1", "dropped:msg-2")
    assert [i for i in first.items if i.status is Status.OMITTED] == []


def test_recorded_omissions_apply_to_native_traces(tmp_path: Path) -> None:
    # a native trace records its omissions: nothing is derived even with a previous call
    a = make_trace(trace_id="n1")
    b = make_trace(trace_id="n2", items=tuple(i for i in a.items if i.id != "turn-0"))
    b = replace(b, created=a.created.replace(minute=20))
    db = tmp_path / "n.db"
    with TraceStore.create(db) as store:
        store.add(with_facts([a, b]))
    with TraceStore.open(db) as store:
        assert previous_call(store, b).trace_id == "n1"
        assert derive_for_display(store, b) == b
    assert [d.item.id for d in dropped_between_calls(a, b)] == ["turn-0"]


def test_summarised_when_a_new_summary_replaced_them() -> None:
    a = make_trace(source_format="otel")
    summary = ContextItem(Kind.SUMMARY, "summary-1", "Earlier: customer asked about delivery of a jacket.",
                          tokens=11, role="system")
    items = [i for i in a.items if i.kind is not Kind.HISTORY]
    items.insert(1, summary)
    b = replace(a, trace_id="later", items=tuple(items))
    dropped = dropped_between_calls(a, b)
    assert [(d.item.id, d.reason, d.summary_id) for d in dropped] == [
        ("turn-0", SUMMARISED, "summary-1"), ("turn-1", SUMMARISED, "summary-1")]


def test_the_previous_output_counts_as_sent_and_is_dropped_when_the_next_call_lacks_it(otel_db: Path) -> None:
    """Each call is aligned with the previous call's input *plus its output*: call 3 carries call
    2's answer (not dropped); a call that left out the previous answer reports it, marked as output."""
    c1, c2, c3 = _calls(otel_db)
    assert not any(d.from_output for d in dropped_between_calls(c2, c3))  # call 2's answer is in call 3
    without_answer = replace(c3, items=tuple(i for i in c3.items if i.content != CONVERSATION_TURNS[3][1]))
    dropped = dropped_between_calls(c2, without_answer)
    assert [(d.item.id, d.item.role, d.item.content, d.from_output) for d in dropped][-1] == (
        f"{c2.trace_id}#response", "assistant", CONVERSATION_TURNS[3][1], True)
