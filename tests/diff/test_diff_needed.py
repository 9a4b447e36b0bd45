"""Did the replay fix the position of the relevant document? (issue 8, done-when). The diff marks
the document the answer needed (Table 3.1 row 3, :mod:`ctxviewer.assess.evidence_positions`) on both
sides with its rank and lost-in-the-middle band, and says which findings the replay fixed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace, moved_after_the_evidence

from ctxviewer.diff import Change, diff_traces
from ctxviewer.diff.render import diff_json, findings_line, format_diff_text, headline, needed_lines
from ctxviewer.model.trace import RequestTrace
from ctxviewer.store import TraceStore

SAMPLES_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
NEEDED = "KB-1008#p1"


@pytest.fixture(scope="module")
def pair() -> tuple[RequestTrace, RequestTrace]:
    with TraceStore.open(SAMPLES_DB) as store:
        a = store.load("evidence-in-middle")
    return a, moved_after_the_evidence(a, NEEDED)


def test_the_needed_document_moves_out_of_the_middle_and_its_finding_is_fixed(pair) -> None:
    a, b = pair
    d = diff_traces(a, b)
    assert [(e.id, e.rank_a, e.rank_b, e.band_a, e.band_b, e.needed_a, e.needed_b) for e in d.needed] == [
        (NEEDED, 10, 20, "middle", "edge", True, True)]
    assert (d.needed_source_a, d.needed_source_b, d.evidence_sent_a, d.evidence_sent_b) == (
        "best match", "best match", 20, 20)
    assert [(f.rule, f.table_row, f.status, f.count_a, f.count_b, f.severity_a, f.severity_b)
            for f in d.findings] == [("evidence.needed_in_middle", 3, "fixed", 1, 0, "warning", None)]
    assert (d.state_a, d.state_b) == ("warning", "ok")
    assert needed_lines(d) == [
        f"{NEEDED} (best match with the question): evidence 10 of 20 (middle) → 20 of 20 (edge), "
        "10 places later; out of the middle"]
    assert findings_line(d) == "fixed evidence.needed_in_middle"
    moved = [(x.id, x.position_a, x.position_b) for x in d.items if x.change is Change.MOVED]
    assert moved == [(NEEDED, 13, 23)]
    assert headline(d) == "1 moved; first divergence at position 13"


def test_the_summary_and_json_say_it_too(pair) -> None:
    d = diff_traces(*pair)
    text = format_diff_text(d).splitlines()
    assert (f"needed document   {NEEDED} (best match with the question): evidence 10 of 20 (middle) → "
            "20 of 20 (edge), 10 places later; out of the middle") in text
    assert "findings          fixed evidence.needed_in_middle" in text
    assert "  fixed     evidence.needed_in_middle: warning → none" in text
    assert f"  {NEEDED:<28}   13 → 23    *  N" in text
    js = json.loads(json.dumps(diff_json(d)))
    assert js["needed_documents"] == [{"id": NEEDED, "rank_a": 10, "rank_b": 20, "band_a": "middle", "band_b": "edge",
                                       "needed_a": True, "needed_b": True, "outcome": "out of the middle"}]
    assert js["findings"][0]["status"] == "fixed" and js["findings"][0]["table_row"] == 3
    row = next(e for e in js["evidence_order"] if e["id"] == NEEDED)
    assert (row["needed_a"], row["band_a"], row["band_b"]) == (True, "middle", "edge")
    assert js["no_change"] is False


def test_the_other_way_round_moves_it_into_the_middle_and_the_finding_is_new(pair) -> None:
    a, b = pair
    d = diff_traces(b, a)
    (e,) = d.needed
    assert (e.rank_a, e.rank_b, e.band_a, e.band_b) == (20, 10, "edge", "middle")
    assert needed_lines(d)[0].endswith("10 places earlier; moved into the middle")
    assert findings_line(d) == "new evidence.needed_in_middle"


def test_an_identical_copy_keeps_its_findings_and_its_needed_document() -> None:
    with TraceStore.open(SAMPLES_DB) as store:
        a = store.load("policy-missing")
    d = diff_traces(a, replace(a, trace_id="copy"))
    assert d.no_change and [(f.rule, f.status) for f in d.findings] == [
        ("policy.unavailable", "unchanged"), ("validation.failed", "unchanged")]
    assert findings_line(d) == "still policy.unavailable, validation.failed"
    assert needed_lines(d) == ["KB-1009 (best match with the question): evidence 2 of 3 (edge) → 2 of 3 (edge); "
                               "not in the middle in either"]


def test_a_trace_without_evidence_has_no_needed_document() -> None:
    a = make_trace()
    a = replace(a, items=tuple(i for i in a.items if i.kind.value != "evidence"))
    d = diff_traces(a, replace(a, trace_id="copy"))
    assert d.needed == () and needed_lines(d) == [] and d.evidence == ()
    assert (d.needed_source_a, d.needed_source_b) == (None, None)
