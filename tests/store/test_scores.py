"""Scores (issue 22 item 4): the Inspect AI importer keeps each sample's scores on the sample's last
call, the one that gave the graded answer (``ctxviewer.scores``, :mod:`ctxviewer.importers.common.scores`), the store keeps them per
trace (``trace_scores``, schema 8), and the ``score`` filters find exactly the wrong answers of the
corpus's Inspect logs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace
from shared_data import needs_corpus

from ctxviewer.assess.trace_header import header_rows
from ctxviewer.importers.formats.inspect_ai import IMPORTER
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.columns import TRACE_COLUMNS
from ctxviewer.store import TraceQuery, TraceStore
from ctxviewer.store.filters import FilterError
from ctxviewer.store.score_rows import score_rows

pytestmark = needs_corpus

INSPECT = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "other" / "inspect_ai"
WRONG = "4hZVSqgqbdNBk7pFLr5RWq/1/1/0"  # inspect-log-images.json: scorer match, value I (incorrect)
BROWSER = tuple(f"ZB2vu5GNujYaBdPSReCeop/1/1/{n}" for n in range(5))  # scorer includes, value C: its 5 calls
RIGHT = (BROWSER[-1], "C3pqnFnsCUx6ZpmsRU9Ape/1/1/0")  # includes: C (on the last of the 5 calls); match: C


@pytest.fixture(scope="module")
def inspect_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("scores") / "inspect.db"
    traces = [r for f in sorted(INSPECT.iterdir()) for r in IMPORTER.load(f) if hasattr(r, "trace_id")]
    with TraceStore.create(db) as store:
        store.add(with_facts(traces))
    return db


def _ids(db: Path, text: str) -> list[str]:
    with TraceStore.open(db) as store:
        return sorted(r.trace_id for r in store.list(TraceQuery(text=text)))


def test_scores_of_each_sample_and_the_header() -> None:
    browser = list(IMPORTER.load(INSPECT / "inspect-browser-tools-gpt-4o-mini.json"))
    assert [len(t.attributes.get("ctxviewer.scores", ())) for t in browser] == [0, 0, 0, 0, 1]  # the last call
    (score,) = browser[-1].attributes["ctxviewer.scores"]
    assert (score["name"], score["value"], score["source"]) == ("includes", "C", "inspect scorer")
    (images,) = IMPORTER.load(INSPECT / "inspect-log-images.json")
    assert [dict(s) for s in images.attributes["ctxviewer.scores"]] == [
        {"name": "match", "value": "I", "source": "inspect scorer", "comment": "answer: [Abstract]"}]
    (zipped,) = IMPORTER.load(INSPECT / "inspect-log-read-sample.eval")
    assert dict(header_rows(images))["Scores"] == "match: I (inspect scorer) — answer: [Abstract]"
    assert dict(header_rows(zipped))["Scores"] == "match: C (inspect scorer) — Yes"


@pytest.mark.parametrize("text", ["score == I", "score.match < 1", "score < 1", "score.match != C", "score ~ i"])
def test_the_wrong_answers_are_one_filter_away(inspect_db: Path, text: str) -> None:
    assert _ids(inspect_db, text) == [WRONG]


def test_score_filters(inspect_db: Path) -> None:
    assert _ids(inspect_db, "score == C") == sorted(RIGHT)
    assert _ids(inspect_db, "score.match >= 1") == ["C3pqnFnsCUx6ZpmsRU9Ape/1/1/0"]
    assert _ids(inspect_db, "score") == sorted([WRONG, *RIGHT])
    assert _ids(inspect_db, "score.includes") == [BROWSER[-1]]
    assert _ids(inspect_db, "score.Match") == []  # score names are data: exact
    assert _ids(inspect_db, "not score") == list(BROWSER[:-1])  # the sample's earlier calls were not graded
    with TraceStore.open(inspect_db) as store:
        rows = {r.trace_id: r for r in store.list()}
    scores = next(c for c in TRACE_COLUMNS if c.key == "scores")
    assert scores.format(rows[WRONG]) == "match: I"
    assert scores.format(rows[BROWSER[-1]]) == "includes: C"
    assert scores.format(rows[BROWSER[0]]) == "\u2014"
    unscored = replace(make_trace(), attributes={})
    assert scores.format(unscored) == "\u2014"


def test_numbers_booleans_and_errors(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    scored = replace(make_trace(), trace_id="graded", attributes={"ctxviewer.scores": [
        {"name": "correctness", "value": 0.5, "source": "langfuse", "comment": "half right"},
        {"name": "helpful", "value": True, "source": "langsmith feedback", "comment": None},
        {"name": "label", "value": "C", "source": "human", "comment": None},  # not Inspect: no number
    ]})
    assert score_rows(scored.attributes) == [("correctness", 0.5, 0.5, "langfuse"), ("helpful", 1, 1.0, "langsmith feedback"),
                                             ("label", "C", None, "human")]
    with TraceStore.create(db) as store:
        store.add(with_facts([scored, make_trace()]))
    assert _ids(db, "score.correctness < 1") == ["graded"]
    assert _ids(db, "score.helpful == 1") == ["graded"]
    assert _ids(db, "score.label < 1") == []
    assert _ids(db, "score.label == C") == ["graded"]
    with pytest.raises(FilterError) as err:
        TraceQuery(text="score.match < C")
    assert (err.value.message, err.value.position) == ("score.match < takes a number (the score's value as a number), not 'C'", 14)


def test_the_list_cell_writes_a_value_as_show_does() -> None:
    """New user 2026-12-07 (L1): an MLflow feedback value false read "correctness: 0" in the list's
    Scores column and "correctness: false" in show and the header."""
    from factories import make_trace

    from ctxviewer.assess.trace_header import score_lines
    from ctxviewer.store.score_rows import summary

    attrs = {"ctxviewer.scores": [{"name": "correctness", "value": False, "source": "mlflow assessment"},
                                  {"name": "match", "value": "I"}, {"name": "gap", "value": None}]}
    assert summary(attrs) == "correctness: false · match: I · gap: null"
    assert score_lines(make_trace(attributes=attrs)).splitlines()[0] == "correctness: false (mlflow assessment)"
