"""Notes not saved yet (issue 27 item 3): kept until saved or discarded; saving one keeps the
finding's verdict and a failure keeps the note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxviewer.review.keys import FindingKey, ReviewVerdict
from ctxviewer.review.location import review_location
from ctxviewer.review.pending import PendingNotes
from ctxviewer.review.verdicts import ReviewFile

KEY = FindingKey("t1", "i1", "injection.override", 3, 9)


def test_a_note_of_another_database_is_saved_in_its_file_keeping_the_verdict(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    loc = review_location(db)
    with loc.open() as rf:
        rf.write(KEY, ReviewVerdict.CONFIRMED, "", "ana")
    pending = PendingNotes()
    pending.keep(db, loc, KEY, "the refund line")
    assert pending.get(db, KEY) == "the refund line" and pending.get(tmp_path / "b.db", KEY) is None
    assert pending.save_all(tmp_path / "b.db", None, "bo") == []
    assert len(pending) == 0
    with ReviewFile(loc.path) as rf:
        r = rf.all()[KEY]
    assert (r.verdict, r.note, r.reviewer) == (ReviewVerdict.CONFIRMED, "the refund line", "bo")


def test_a_note_that_still_cannot_be_saved_stays(tmp_path: Path, monkeypatch: Any) -> None:
    import os

    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m, **kw: False if Path(p) == ro and m & os.W_OK else real(p, m, **kw))
    loc = review_location(tmp_path / "a.db", ro / "r.sqlite")
    pending = PendingNotes()
    pending.keep(tmp_path / "a.db", loc, KEY, "kept")
    failed = pending.save_all(None, None, None)
    assert failed == [f"{ro / 'r.sqlite'}: cannot create the review file: folder {ro} is not writable "
                      "(verdicts cannot be saved there; give --review-file PATH to save them elsewhere)"]
    assert [n.text for n in pending] == ["kept"]
    pending.discard_all()
    assert len(pending) == 0
