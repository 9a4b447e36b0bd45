"""The reviewer's workflow in the audit view (issue 27 item 3): the review file of a read-only
database in the user data directory and named in the view, ``--review-file`` on the launch."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from ctxviewer.review import location
from ctxviewer.review.verdicts import ReviewFile
from tests.gui.audit_helpers import open_with_audit

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


_open = open_with_audit


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of samples.db (verdicts a user gave on the samples are not the tests')."""
    db = tmp_path / "s.db"
    shutil.copy(SAMPLES, db)
    return db


def test_read_only_folder_saves_verdicts_in_the_data_directory_and_names_it(qtbot, tmp_path: Path, windows, settings: QSettings, monkeypatch: Any) -> None:  # type: ignore[no-untyped-def]
    share = tmp_path / "share"
    share.mkdir()
    db = share / "s.db"
    shutil.copy(SAMPLES, db)
    data = tmp_path / "user-data"
    monkeypatch.setattr(location.platformdirs, "user_data_dir", lambda app: str(data / app))
    share.chmod(0o555)
    try:
        if os.access(share, os.W_OK):  # root writes anyway: the check is told the truth by hand
            monkeypatch.setattr(location, "folder_writable", lambda f: Path(f) != share)
        where = location.data_dir_path(db)
        assert where.parent == data / "ctxviewer" / "reviews"
        win = _open(qtbot, windows, db, settings)
        view = win.audit.view
        assert view.location_label.text() == (f"review file: {where} (in the user data directory: folder {share} "
                                              "is not writable)")
        assert view.location_label.textFormat() == Qt.TextFormat.PlainText
        entry = view.current_entry()
        assert entry is not None
        qtbot.keyClick(view.table, Qt.Key.Key_C)
        assert view.error_label.isHidden()
        assert view.count_label.text() == "1 of 7 reviewed"
        win.close()
        assert sorted(p.name for p in share.iterdir()) == ["s.db"]
        with ReviewFile(where) as rf:
            assert {k: r.verdict.value for k, r in rf.all().items() if r.verdict} == {entry.key: "confirmed"}
        win2 = _open(qtbot, windows, db, settings)  # read back by the next window
        assert win2.audit.view.count_label.text() == "1 of 7 reviewed"
        win2.close()
    finally:
        share.chmod(0o755)


def test_review_file_on_the_launch_is_used_and_named(qtbot, tmp_path: Path, copy: Path, windows, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    given = tmp_path / "mine.review.sqlite"
    win = _open(qtbot, windows, copy, settings, review_file=given)
    view = win.audit.view
    assert view.location_label.text() == f"review file: {given} (given with --review-file)"
    qtbot.keyClick(view.table, Qt.Key.Key_F)
    win.close()
    with ReviewFile(given) as rf:
        assert [r.verdict.value for r in rf.all().values() if r.verdict] == ["false_positive"]
    assert not (tmp_path / "s.review.sqlite").exists()


def test_the_launch_takes_review_file() -> None:
    from ctxviewer.gui.app import split_review_file

    assert split_review_file(["s.db", "--review-file", "r.sqlite", "-x"]) == (["s.db", "-x"], "r.sqlite")
    assert split_review_file(["--review-file=r.sqlite", "s.db"]) == (["s.db"], "r.sqlite")
    assert split_review_file(["s.db"]) == (["s.db"], None)


def test_the_view_names_the_reviewer_and_shows_who_and_when(qtbot, copy: Path, windows, settings: QSettings, monkeypatch: Any) -> None:  # type: ignore[no-untyped-def]
    from datetime import datetime, timezone

    from ctxviewer.review import verdicts

    monkeypatch.setattr(verdicts, "utc_now", lambda: datetime(2026, 12, 3, 5, 50, 7, tzinfo=timezone.utc))
    (copy.parent / "ctxviewer.toml").write_text('[review]\nreviewer = "Ana Ruiz"\n', encoding="utf-8")
    win = _open(qtbot, windows, copy, settings)
    view = win.audit.view
    assert view.reviewer_label.text() == f"reviewer: Ana Ruiz ([review] reviewer in {copy.parent / 'ctxviewer.toml'})"
    assert view.detail.review_label.text() == "unreviewed"
    entry = view.current_entry()
    qtbot.keyClick(view.table, Qt.Key.Key_C)
    qtbot.keyClick(view.table, Qt.Key.Key_K)  # back to the finding just confirmed
    assert view.current_entry() == entry
    assert view.detail.review_label.text() == "confirmed injection · by Ana Ruiz · 2026-12-03T05:50:07Z"
    assert view.detail.review_label.textFormat() == Qt.TextFormat.PlainText
    win.close()
    with ReviewFile(copy.with_name("s.review.sqlite")) as rf:
        assert [(r.reviewer, r.when) for r in rf.all().values()] == [("Ana Ruiz", "2026-12-03T05:50:07Z")]


def test_advance_after_verdict_is_shown_and_can_be_turned_off(qtbot, copy: Path, windows, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.gui.audit_view import ADVANCE_KEY

    win = _open(qtbot, windows, copy, settings)
    view, table = win.audit.view, win.audit.view.table
    box = view.advance_box
    assert box.text() == "Advance after verdict"
    assert box.isVisible() and box.isChecked()  # on by default, and says so
    qtbot.keyClick(table, Qt.Key.Key_A)  # off from the keyboard
    assert not box.isChecked()
    assert settings.value(ADVANCE_KEY, type=bool) is False
    assert view.current_row() == 0
    qtbot.keyClick(table, Qt.Key.Key_C)
    assert view.current_row() == 0  # off: the verdict keeps the row
    assert view.model.index(0, 1).data() == "confirmed injection"
    qtbot.keyClick(table, Qt.Key.Key_J)
    assert view.current_row() == 1  # "c j" lands on row 2, not row 3
    qtbot.keyClick(table, Qt.Key.Key_A)  # on again: C moves to the next finding
    qtbot.keyClick(table, Qt.Key.Key_C)
    assert view.current_row() == 2
    qtbot.keyClick(table, Qt.Key.Key_A)
    win.close()
    win2 = _open(qtbot, windows, copy, settings)  # remembered
    assert not win2.audit.view.advance_box.isChecked()
    win2.audit.view.advance_box.click()  # the mouse turns it back on
    assert settings.value(ADVANCE_KEY, type=bool) is True
    win2.close()


def _deny_write(monkeypatch: Any, folder: Path) -> Any:
    """A read-only folder as the review file sees it (root passes permission checks); returns the real os.access."""
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == folder and mode & os.W_OK
                        else real(p, mode, **kw))
    return real


def test_a_note_that_could_not_be_saved_is_kept_and_closing_asks(qtbot, tmp_path: Path, copy: Path, windows, settings: QSettings, monkeypatch: Any) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.gui import audit_dock

    ro = tmp_path / "ro"
    ro.mkdir()
    given = ro / "s.review.sqlite"
    real_access = _deny_write(monkeypatch, ro)
    win = _open(qtbot, windows, copy, settings, review_file=given)
    view, table = win.audit.view, win.audit.view.table
    first = view.current_entry()
    qtbot.keyClick(table, Qt.Key.Key_N)
    qtbot.keyClicks(view.note_edit, "quoted by the customer")
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Return)  # fails: the folder is read-only
    assert view.error_label.text().endswith(" — the note was not saved; it stays in the note field")
    assert view.note_edit.text() == "quoted by the customer"
    assert view.detail.discard_button.isVisible()
    view.select(1)  # the mouse goes to another finding: the note is kept
    assert view.note_edit.text() == ""
    assert not view.detail.discard_button.isVisible()
    view.select(0)
    assert view.note_edit.text() == "quoted by the customer"
    asked: list[int] = []

    def answer(choice: str) -> Any:
        return lambda parent, count: asked.append(count) or choice

    monkeypatch.setattr(audit_dock, "ask_unsaved", answer("cancel"))
    assert not win.close()  # Cancel: the window stays, the note too
    assert asked == [1] and win.isVisible()
    assert view.note_edit.text() == "quoted by the customer"
    monkeypatch.setattr(audit_dock, "ask_unsaved", answer("save"))
    assert not win.close()  # Save, but the folder is still read-only: says why and stays open
    assert asked == [1, 1] and win.isVisible()
    assert view.error_label.text() == (f"{given}: cannot create the review file: folder {ro} is not writable "
                                       "(verdicts cannot be saved there; give --review-file PATH to save them elsewhere)"
                                       " — the note was not saved; it stays in the note field")
    monkeypatch.setattr(os, "access", real_access)  # writable now: Save saves it, and the window closes
    assert win.close()
    assert asked == [1, 1, 1]
    with ReviewFile(given) as rf:
        assert {k: (r.verdict, r.note) for k, r in rf.all().items()} == {first.key: (None, "quoted by the customer")}


def test_a_typed_note_left_without_enter_asks_and_discard_forgets_it(qtbot, copy: Path, windows, settings: QSettings, monkeypatch: Any) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.gui import audit_dock

    win = _open(qtbot, windows, copy, settings)
    view, table = win.audit.view, win.audit.view.table
    qtbot.keyClick(table, Qt.Key.Key_N)
    qtbot.keyClicks(view.note_edit, "half a thought")
    asked: list[int] = []
    monkeypatch.setattr(audit_dock, "ask_unsaved", lambda parent, count: asked.append(count) or "discard")
    assert win.close()
    assert asked == [1]
    assert not copy.with_name("s.review.sqlite").exists()  # discarded: nothing written


def test_discard_unsaved_note_forgets_it(qtbot, tmp_path: Path, copy: Path, windows, settings: QSettings, monkeypatch: Any, _unsaved_notes_never_block: list[int]) -> None:  # type: ignore[no-untyped-def]
    ro = tmp_path / "ro"
    ro.mkdir()
    _deny_write(monkeypatch, ro)
    win = _open(qtbot, windows, copy, settings, review_file=ro / "s.review.sqlite")
    view, table = win.audit.view, win.audit.view.table
    qtbot.keyClick(table, Qt.Key.Key_N)
    qtbot.keyClicks(view.note_edit, "not to keep")
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Return)
    assert len(view.pending) == 1
    qtbot.mouseClick(view.detail.discard_button, Qt.MouseButton.LeftButton)
    assert len(view.pending) == 0
    assert view.note_edit.text() == ""
    assert not view.detail.discard_button.isVisible()
    assert table.hasFocus()
    assert win.close()
    assert _unsaved_notes_never_block == []  # nothing to ask about
