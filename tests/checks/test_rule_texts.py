"""Table 3.1's words are data (``resources/table_3_1.json``): editable or translatable without code."""

from __future__ import annotations

import json

import pytest
from factories import make_trace

from ctxviewer.assess.checks._common import rule_texts
from ctxviewer.assess.checks.policy import PolicyCheck
from ctxviewer.model import table31
from ctxviewer.model.trace import Policy
from ctxviewer.util import assets


def test_the_five_rows_of_table_3_1() -> None:
    assert [(r.row, r.failure, r.first_evidence) for r in table31.rows()] == [
        (1, "Correct policy omitted", "Policy loader and version pin"),
        (2, "Old promise forgotten", "History retrieval and summary"),
        (3, "Relevant document overlooked among irrelevant passages", "Retrieval ranking and context order"),
        (4, "Valid JSON with unsupported values", "Evidence and application-rule checks"),
        (5, "Unsafe tool proposal", "Authorization and action checks"),
    ]
    with pytest.raises(KeyError):
        table31.row(6)


def test_a_translated_table_changes_what_the_findings_say(monkeypatch: pytest.MonkeyPatch) -> None:
    original = assets.read_text
    data = json.loads(original("table_3_1.json"))
    data["rows"][0] |= {"first_evidence": "Chargeur de politique et version épinglée",
                        "repair": "Rejeter la requête quand la version requise manque"}

    def read_text(name: str) -> str:
        return json.dumps(data) if name == "table_3_1.json" else original(name)

    monkeypatch.setattr(assets, "read_text", read_text)
    table31.rows.cache_clear()
    try:
        [f] = PolicyCheck().run(make_trace(policy=Policy(id="support-policy", version="v7", available=False)))
        assert (f.first_evidence, f.repair) == ("Chargeur de politique et version épinglée",
                                                "Rejeter la requête quand la version requise manque")
    finally:
        table31.rows.cache_clear()


def test_rules_outside_the_table_have_their_words() -> None:
    words = rule_texts()
    for rule in ("accounting.no_room_for_input", "accounting.count_mismatch"):
        assert words[rule]["first_evidence"] and words[rule]["repair"]
