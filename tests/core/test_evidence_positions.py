"""The evidence position map: request order, token shares, cited/needed, lost-in-the-middle bands."""

from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace

from ctxviewer.assess.evidence_positions import band, evidence_map
from ctxviewer.model.trace import Kind
from ctxviewer.store import TraceStore

SAMPLES_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.mark.parametrize(("index", "count", "expected"), [
    (1, 20, "edge"), (4, 20, "edge"), (5, 20, "shoulder"), (8, 20, "middle"), (13, 20, "middle"),
    (14, 20, "shoulder"), (16, 20, "shoulder"), (17, 20, "edge"), (18, 20, "edge"), (5, 9, "edge"),
])
def test_band(index, count, expected):
    assert band(index, count) == expected


def test_map_of_evidence_in_middle():
    t = TraceStore.open(SAMPLES_DB).load("evidence-in-middle")
    m = evidence_map(t)
    assert m.retained_count == 20 and m.long and m.middle == (8, 13) and m.needed_source == "best match"
    assert [e.item_id for e in m.entries][:3] == ["ORD-NW-4497710", "KB-1001#p1", "KB-1001#p3"]
    needed = [e for e in m.entries if e.needed]
    assert [(e.item_id, e.index, e.position, e.band, e.risk, e.cited) for e in needed] == [
        ("KB-1008#p1", 10, 13, "middle", "high", False)]
    assert [e.item_id for e in m.entries if e.cited] == ["ORD-NW-4497710", "KB-1001#p1", "KB-1001#p3", "KB-1001#p4"]
    assert needed[0].share == pytest.approx(99 / sum(e.tokens for e in m.entries))
    d = m.as_dict()
    assert d["middle_band"] == [8, 13] and d["items"][9]["item_id"] == "KB-1008#p1" and d["items"][9]["needed"]


def test_map_keeps_omitted_items_in_place():
    m = evidence_map(TraceStore.open(SAMPLES_DB).load("budget-8k-over"))
    assert [(e.item_id, e.index, e.band) for e in m.entries][4:6] == [("KB-1014", None, None), ("INV-CF-TALUS-MID-W", 5, "edge")]
    assert m.retained_count == 8 and m.middle is None


def test_no_evidence_no_map():
    t = make_trace()
    assert evidence_map(replace(t, items=tuple(i for i in t.items if i.kind is not Kind.EVIDENCE))) is None


def test_the_map_is_computed_once_per_trace_and_needed_marks() -> None:
    """The evidence check, the Evidence tab and the diff share one map per trace (BM25 over every
    evidence text is the costly part); a user mark of another needed document is another map."""
    from ctxviewer.assess import config

    t = TraceStore.open(SAMPLES_DB).load("evidence-in-middle")
    first = evidence_map(t)
    assert evidence_map(t) is first and evidence_map(replace(t)) is first  # equal traces hit too
    token = config.using(config.CheckConfig().with_needed({t.trace_id: ["KB-1010#p1"]}))
    try:
        marks = config.marked_documents(t.trace_id)  # what every caller passes: the active config's marks
        marked = evidence_map(t, marks)
    finally:
        config.restore(token)
    assert marks == ("KB-1010#p1",)
    assert marked is not first and marked.needed_source == "marked"
    assert [e.item_id for e in marked.entries if e.needed] == ["KB-1010#p1"]
    assert evidence_map(t, ["KB-1010#p1"]) is marked and evidence_map(t) is first
