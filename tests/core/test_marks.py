"""The user's marks beside the trace DB: stored, read back, leading findings, feeding the checks."""

from __future__ import annotations

import json

import pytest

from ctxviewer.assess.marks import Mark, config_for_db, lead_with, load_marks, marks_path, set_mark
from ctxviewer.model.findings import Finding, Severity


def test_marks_live_beside_the_db(tmp_path):
    db = tmp_path / "traces.db"
    assert load_marks(db) == {}
    path = set_mark(db, "t1", Mark(row=2, needed=("KB-1",)))
    assert path == marks_path(db) == tmp_path / "traces.db.marks.json"
    assert json.loads(path.read_text())["traces"] == {"t1": {"row": 2, "needed": ["KB-1"]}}
    assert load_marks(db) == {"t1": Mark(2, ("KB-1",))}
    assert config_for_db(db).needed == {"t1": ("KB-1",)}
    set_mark(db, "t1", Mark())
    assert load_marks(db) == {}


def test_bad_row_and_bad_file(tmp_path):
    db = tmp_path / "x.db"
    with pytest.raises(KeyError):
        set_mark(db, "t", Mark(row=9))
    marks_path(db).write_text("{}")
    with pytest.raises(ValueError, match="x.db.marks.json: not a marks file"):
        load_marks(db)


def test_lead_with_puts_the_observed_row_first():
    a = Finding("a", Severity.FAILURE, "a", table_row=4)
    b = Finding("b", Severity.WARNING, "b", table_row=2)
    c = Finding("c", Severity.WARNING, "c")
    assert lead_with((a, b, c), 2) == (b, a, c)
    assert lead_with((a, b, c), None) == (a, b, c)


def test_a_row_no_table_row_has_is_refused_naming_the_trace(tmp_path):
    """New-user finding N14: ``"row": 99`` in a marks file was taken without a word ("observed:
    Table 3.1 row 99")."""
    db = tmp_path / "x.db"
    marks_path(db).write_text(json.dumps({"format": "ctxviewer.marks/1", "traces": {"budget-8k": {"row": 99}}}))
    with pytest.raises(ValueError) as exc:
        load_marks(db)
    assert str(exc.value) == f"{marks_path(db)}: traces.budget-8k: row 99 is not a Table 3.1 row (1-5)"
