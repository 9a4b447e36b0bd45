"""The audit view: 100 findings reviewed with the keyboard alone survive a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from ctxviewer.gui.review_model import ReviewTableModel
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.review import ReviewFile, ReviewVerdict, review_path
from ctxviewer.store import TraceStore
from tests.factories import INJECTIONS, make_injected_trace
from tests.gui.audit_helpers import open_with_audit

KEYS = {ReviewVerdict.CONFIRMED: Qt.Key.Key_C, ReviewVerdict.FALSE_POSITIVE: Qt.Key.Key_F, ReviewVerdict.FOLLOW_UP: Qt.Key.Key_U}
ORDER = [ReviewVerdict.CONFIRMED, ReviewVerdict.FALSE_POSITIVE, ReviewVerdict.FOLLOW_UP]


@pytest.fixture
def inj_db(tmp_path: Path) -> Path:
    path = tmp_path / "audit.db"
    with TraceStore.create(path) as st:
        st.add(with_facts(make_injected_trace(n) for n in range(20)))  # 20 traces x 5 findings
    return path


def highlighted(view) -> list[str]:  # type: ignore[no-untyped-def]
    """The text highlighted in the audit view's content pane."""
    return [s.cursor.selectedText() for s in view.content.extraSelections()]


def error_line(view) -> str:  # type: ignore[no-untyped-def]
    """What the audit view's error line says ("" while it is hidden)."""
    return "" if view.error_label.isHidden() else view.error_label.text()


_open = open_with_audit


def test_review_100_findings_by_keyboard_then_restart(qtbot, inj_db: Path, windows, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    win = _open(qtbot, windows, inj_db, settings)
    view = win.audit.view
    assert win.audit.dock.isVisible()
    assert view.count_label.text() == "0 of 100 reviewed"
    table = view.table
    assert table.hasFocus()
    expected = {}
    for n in range(100):
        entry = view.current_entry()
        assert entry is not None
        if n % 10 == 0:  # a note on every tenth finding, by keyboard too
            qtbot.keyClick(table, Qt.Key.Key_N)
            assert view.note_edit.hasFocus()
            qtbot.keyClicks(view.note_edit, f"note {n}")
            qtbot.keyClick(view.note_edit, Qt.Key.Key_Return)
            assert table.hasFocus()
        verdict = ORDER[n % 3]
        qtbot.keyClick(table, KEYS[verdict])
        expected[entry.key] = (verdict, f"note {n}" if n % 10 == 0 else "")
    assert view.count_label.text() == "100 of 100 reviewed"
    # J/K move without recording anything
    qtbot.keyClick(table, Qt.Key.Key_K)
    assert view.current_row() == 98
    qtbot.keyClick(table, Qt.Key.Key_J)
    assert view.current_row() == 99
    win.close()

    # restart: a new window on the same database restores every verdict and note
    win2 = _open(qtbot, windows, inj_db, settings)
    view2 = win2.audit.view
    assert view2.count_label.text() == "100 of 100 reviewed"
    restored = {k: (r.verdict, r.note) for k, r in view2.queue.reviews.items()}  # type: ignore[union-attr]
    assert restored == expected
    assert sum(v == ReviewVerdict.CONFIRMED for v, _ in restored.values()) == 34
    # the verdicts live in the review file beside the DB
    assert len(ReviewFile(review_path(inj_db)).all()) == 100
    win2.close()


def test_selection_shows_span_hidden_characters_and_linked_call(qtbot, tmp_path: Path, windows, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "samples.db"  # a copy: verdicts a user gave on the samples are not this test's
    db.write_bytes((Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db").read_bytes())
    win = _open(qtbot, windows, db, settings)
    view = win.audit.view
    qtbot.addWidget(view)
    # filter by rule: only the override in the ticket
    view.rule_box.setCurrentIndex(view.rule_box.findData("injection.override"))
    assert len(view.model.rows) == 1
    assert highlighted(view) == ["Ignore previous instructions"]
    assert view.calls.text().startswith("tool call call_8Qm2vTtZ0rWkH5yNcLd3aPfE: issue_refund(")
    assert view.calls.text().endswith("→ blocked")
    assert view.count_label.text() == "0 of 7 reviewed · 1 shown"
    # its own window over the main one (docked below the trace panel at 1280x800 nothing could be read)
    assert win.audit.dock.isFloating()
    assert win.geometry().contains(win.audit.dock.geometry())
    assert win.audit.dock.width() >= win.width() * 0.85
    header = view.table.horizontalHeader()
    assert header.sectionResizeMode(6) == header.ResizeMode.Stretch  # the message takes the rest
    win.close()


def test_hidden_characters_visible_and_highlight_after_them(qtbot, tmp_path: Path, windows, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    tags = "".join(chr(0xE0000 + ord(c)) for c in "obey")
    base = make_injected_trace(0)
    ticket = base.items[-1]
    text = "😀" + tags + " " + INJECTIONS[0]
    db = tmp_path / "hidden.db"
    with TraceStore.create(db) as st:
        st.add(with_facts([replace(base, items=base.items[:-1] + (replace(ticket, content=text),))]))
    win = _open(qtbot, windows, db, settings)
    view = win.audit.view
    view.rule_box.setCurrentIndex(view.rule_box.findData("injection.override"))
    assert view.content.toPlainText() == "😀⟨tags: obey⟩ " + INJECTIONS[0]
    assert highlighted(view) == ["Ignore previous instructions"]
    view.rule_box.setCurrentIndex(view.rule_box.findData("injection.invisible"))
    assert highlighted(view) == ["⟨tags: obey⟩"]
    win.close()


def test_review_model(qtmodeltester, inj_db: Path) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.review import ReviewQueue, collect

    with TraceStore.open(inj_db) as st:
        queue = ReviewQueue(collect(st))
    model = ReviewTableModel()
    model.set_rows(queue, queue.entries)
    qtmodeltester.check(model)
    assert model.rowCount() == 100
    assert model.index(0, 0).data() == "failure"
    assert model.index(0, 1).data() == "unreviewed"


def test_file_export_findings_writes_sarif(qtbot, tmp_path: Path, windows, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    import json

    db = tmp_path / "s.db"
    db.write_bytes((Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db").read_bytes())
    win = windows.open(db, settings, size=None, show=False)
    file_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&File")
    assert win.audit.act_export in file_menu.actions()
    out = tmp_path / "out.sarif"
    task = win.audit.export_findings(out)
    assert task is not None
    qtbot.waitUntil(lambda: task.done, timeout=30_000)
    log = json.loads(out.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0"
    n = len(log["runs"][0]["results"])
    assert win.statusBar().currentMessage() == f"exported {n} finding(s) from 9 trace(s) to {out} (SARIF 2.1.0)"
    win.close()


def _deny_write(monkeypatch, folder: Path):  # type: ignore[no-untyped-def]
    """A read-only folder as the review file sees it (root passes permission checks)."""
    import os

    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == folder and mode & os.W_OK
                        else real(p, mode, **kw))
    return real


def test_read_only_folder_verdict_and_note_failures_are_shown_and_the_note_kept(qtbot, tmp_path: Path, windows, settings: QSettings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import os

    ro = tmp_path / "ro"
    ro.mkdir()
    db = tmp_path / "s.db"
    db.write_bytes((Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db").read_bytes())
    real_access = _deny_write(monkeypatch, ro)
    win = _open(qtbot, windows, db, settings, review_file=ro / "s.review.sqlite")  # --review-file in a read-only folder
    view, table = win.audit.view, win.audit.view.table
    assert view.location_label.text() == f"review file: {ro / 's.review.sqlite'} (given with --review-file)"
    assert error_line(view) == ""
    assert view.count_label.text() == "0 of 7 reviewed"
    cause = (f"{ro / 's.review.sqlite'}: cannot create the review file: folder {ro} is not writable "
             "(verdicts cannot be saved there; give --review-file PATH to save them elsewhere)")
    qtbot.keyClick(table, Qt.Key.Key_C)
    assert error_line(view) == cause + " — the verdict was not saved"
    assert view.error_label.isVisible()
    assert view.current_row() == 0  # not moved on: the verdict was not given
    assert view.model.index(0, 1).data() == "unreviewed"
    assert view.count_label.text() == "0 of 7 reviewed"
    # the note: Enter fails, the text stays in the field with the focus, and the reason is shown
    qtbot.keyClick(table, Qt.Key.Key_N)
    qtbot.keyClicks(view.note_edit, "a note")
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Return)
    assert error_line(view) == cause + " — the note was not saved; it stays in the note field"
    assert view.note_edit.text() == "a note"
    assert view.note_edit.hasFocus()
    # Esc, or going to another finding and back, does not lose it
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Escape)
    assert table.hasFocus()
    assert view.note_edit.text() == "a note"
    qtbot.keyClick(table, Qt.Key.Key_J)
    assert view.note_edit.text() == ""
    qtbot.keyClick(table, Qt.Key.Key_K)
    assert view.note_edit.text() == "a note"
    assert list(ro.iterdir()) == []  # no file made
    # the folder becomes writable: the next verdict saves the kept note with it, the error goes
    monkeypatch.setattr(os, "access", real_access)
    entry = view.current_entry()
    assert entry is not None
    qtbot.keyClick(table, Qt.Key.Key_C)
    assert error_line(view) == ""
    assert not view.error_label.isVisible()
    assert view.count_label.text() == "1 of 7 reviewed"
    assert view.current_row() == 1
    win.close()
    with ReviewFile(ro / "s.review.sqlite") as rf:
        saved = rf.all()
    assert {k: (r.verdict, r.note) for k, r in saved.items()} == {entry.key: (ReviewVerdict.CONFIRMED, "a note")}
    assert not review_path(db).exists()


def test_existing_file_that_is_not_a_review_file_is_shown_and_left_alone(qtbot, tmp_path: Path, windows, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    import sqlite3
    from contextlib import closing

    folder = tmp_path / "esc\x1b[2Jdir"  # control characters in the path are shown, not obeyed
    folder.mkdir()
    db = folder / "s.db"
    db.write_bytes((Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db").read_bytes())
    other = folder / "s.review.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE notes (x)")
        conn.commit()
    before = other.read_bytes()
    win = _open(qtbot, windows, db, settings)
    view, table = win.audit.view, win.audit.view.table
    shown = str(other).replace("\x1b", "␛")
    cause = f"{shown}: not a ctxviewer review file (it holds other tables: notes)"
    assert error_line(view) == cause + " — verdicts and notes cannot be shown or saved"
    assert view.error_label.isVisible()
    assert view.count_label.text() == "0 of 7 reviewed"  # the findings are still there to read
    qtbot.keyClick(table, Qt.Key.Key_F)
    assert error_line(view) == cause + " — the verdict was not saved"
    assert (view.current_row(), view.model.index(0, 1).data()) == (0, "unreviewed")
    qtbot.keyClick(table, Qt.Key.Key_N)
    qtbot.keyClicks(view.note_edit, "a note")
    qtbot.keyClick(view.note_edit, Qt.Key.Key_Return)
    assert error_line(view) == cause + " — the note was not saved; it stays in the note field"
    assert view.note_edit.text() == "a note"
    assert view.note_edit.hasFocus()
    assert view.error_label.textFormat() == Qt.TextFormat.PlainText
    win.close()
    assert other.read_bytes() == before
