"""MainWindow: open read-only, select the first trace, show its items, filter, recent files, errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent, QGuiApplication
from PySide6.QtWidgets import QLabel, QMessageBox

from ctxviewer.gui.main_window import MainWindow
from ctxviewer.gui.recent_files import MAX_RECENT


def window(windows) -> MainWindow:  # type: ignore[no-untyped-def]
    return windows.new(show=False)


def test_open_selects_first_trace_and_shows_items(qtbot, qtmodeltester, db: Path, windows) -> None:
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    w = window(windows)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000) as sel:
        assert w.open_database(db)
    assert sel.args == ["delta"]  # first row of the list (created not recorded sorts first)
    assert w.windowTitle() == "ctxviewer — traces.db"
    assert w.store is not None and w.store.readonly
    assert w.trace_view.currentIndex().row() == 0
    qtmodeltester.check(w.trace_model)
    qtmodeltester.check(w.item_model)
    assert w.item_model.rowCount() == 7
    assert [w.item_model.data(w.item_model.index(r, 2)) for r in range(3)] == ["policy", "turn-0", "turn-1"]
    assert w.chart.segments()["used"][-1].key == "margin"
    assert w.content.toPlainText().startswith("You are the support assistant")  # first item selected
    w.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # never modified


def test_selecting_rows_and_items(qtbot, db: Path, windows) -> None:
    w = windows.open(db, show=False)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000) as sel:
        w.select_row(2)
    assert sel.args == ["bravo"]
    assert dict(w.detail.rows())["Model"] == "claude-sonnet-4 (anthropic)"
    labels = [lab for lab in w.detail.findChildren(QLabel) if not lab.isHidden()]  # the rows shown
    assert len(labels) == 2 * len(w.detail.rows()) and "claude-sonnet-4 (anthropic)" in [lab.text() for lab in labels]
    assert all(lab.textFormat() == Qt.TextFormat.PlainText for lab in labels)
    w.item_view.selectRow(4)
    assert "omitted" in w.panel.content_title.text() and "budget" in w.panel.content_title.text()
    assert w.content.toPlainText().startswith("Shipping delays")
    windows.select(w, "charlie")
    assert w.trace is not None and w.trace.trace_id == "charlie"
    assert w.chart.verdict() == "fits, 126,601 tokens margin (capacity assumed)"  # gpt-4o-mini: the catalogue's C


def test_filter_box_requeries(qtbot, db: Path, windows) -> None:
    w = windows.open(db, show=False)
    w.focus_filter()
    qtbot.keyClicks(w.filter_edit, "claude")
    assert w.trace_model.rowCount() > 1  # not re-queried on every keystroke
    qtbot.waitUntil(lambda: w.trace_model.rowCount() == 1)
    assert w.count_label.text() == "1 trace"
    qtbot.keyClicks(w.filter_edit, "-nope")
    qtbot.keyClick(w.filter_edit, Qt.Key.Key_Return)  # Enter applies at once
    assert w.trace_model.rowCount() == 0


def test_copy_trace_id(qtbot, db: Path, windows) -> None:
    w = windows.open(db, show=False)
    windows.select(w, "alpha")
    w.act_copy_id.trigger()
    assert QGuiApplication.clipboard().text() == "alpha"
    assert w.act_copy_id.shortcut().toString() == "Ctrl+Shift+C"  # issue 13: Ctrl+C copies the selection
    assert w.act_copy.shortcut().toString() == "Ctrl+C"
    assert w.act_open.shortcut().toString() == "Ctrl+O"
    assert w.act_import.shortcut().toString() == "Ctrl+I"
    assert w.act_quit.shortcut().toString() == "Ctrl+Q"
    assert w.act_filter.shortcut().toString() == "Ctrl+F"


def test_bad_file_message_names_it(qtbot, tmp_path: Path, windows) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("not a database")
    w = window(windows)
    assert not w.open_database(bad)
    assert str(bad) in windows.message(w)
    assert w.store is None


def test_recent_files_max_8_and_missing_removed(qtbot, db: Path, tmp_path: Path, windows) -> None:
    w = window(windows)
    for i in range(10):
        w.recent.add(str(tmp_path / f"gone-{i}.db"))
    w.open_database(db)
    windows.shown(w)
    paths = w.recent.paths()
    assert len(paths) == MAX_RECENT and paths[0] == str(db.resolve())
    missing = paths[1]
    assert not w.open_recent(missing)
    assert missing not in w.recent.paths()
    assert "no longer exists" in windows.message(w)
    w._fill_recent()
    assert [a.text() for a in w.recent_menu.actions()][0] == str(db.resolve())


def test_drop_database_opens_it(qtbot, db: Path, windows) -> None:
    w = window(windows)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(db))])
    event = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    w.dropEvent(event)
    assert w.store is not None and w.windowTitle().endswith("traces.db")
    assert windows.shown(w).trace_id == "delta"


def _wait_counted(w: MainWindow) -> None:
    """Pump events until the trace list has its keys (qtbot's nested loops can return at once after
    another test quit the application's loop)."""
    import time

    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + 120
    while not w.trace_model.counted and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.005)
    assert w.trace_model.counted


def test_filter_matching_nothing_clears_the_trace(qtbot, db: Path, windows) -> None:
    """Issue 13: a filter that matches nothing never leaves the previous trace on screen."""
    w = windows.open(db, show=False)
    assert w.trace is not None
    w.filter_edit.setText("no-such-trace")
    w.apply_filter()
    _wait_counted(w)  # issue 11: a filter is read off the GUI thread
    assert w.trace_model.rowCount() == 0
    assert w.trace is None
    assert w.chart.is_empty()
    assert w.chart.empty_label.text() == "No trace matches the filter “no-such-trace”."
    assert w.item_model.rowCount() == 0
    assert w.panel.answer.response.text() == "" and w.panel.answer.response.raw.toPlainText() == ""
    w.filter_edit.setText("")
    w.apply_filter()
    assert windows.shown(w).trace_id == "delta" and not w.chart.is_empty()


def test_control_characters_in_a_file_name_are_shown_not_obeyed(qtbot, db: Path, tmp_path: Path, windows) -> None:
    # new-user s4 #3: the error dialog and the status bar showed ESC/BEL as boxes and broke the line
    from ctxviewer.util.visible import one_line

    w = window(windows)
    missing = tmp_path / "missing\x1b]0;T\x07il\n.db"
    assert not w.open_database(missing)
    box = next(b for b in w.findChildren(QMessageBox) if b.isVisible())
    assert box.text() == one_line(f"{missing}: no such file")
    assert "\x1b" not in box.text() and "\n" not in box.text()
    assert box.textFormat() == Qt.TextFormat.PlainText
    evil = tmp_path / "ev\x1b]0;T\x07il\n.db"
    evil.write_bytes(db.read_bytes())
    assert w.open_database(evil)
    shown = w.statusBar().currentMessage()
    assert shown == one_line(f"{evil.resolve()} (read-only)") and "\x1b" not in shown and "\n" not in shown
    assert "\x1b" not in w.windowTitle()


def test_a_filter_naming_a_finding_no_trace_has_says_so(qtbot, db: Path, windows) -> None:
    """As ``list --filter`` says it on standard error (TraceStore.absent_rules_note)."""
    w = windows.open(db, show=False)
    w.filter_edit.setText("finding != budgte")
    w.apply_filter()
    qtbot.waitUntil(lambda: w.trace_model.counted and w.trace_model.rowCount() == 4)
    assert w.count_label.text() == "4 traces · no trace has a finding 'budgte'"
    assert w.count_label.toolTip() == "no trace has a finding 'budgte'; no trace here has any finding."
    w.filter_edit.setText("finding == budgte")
    w.apply_filter()
    qtbot.waitUntil(lambda: w.trace_model.counted and w.trace_model.rowCount() == 0)
    assert w.chart.empty_label.text() == ("No trace matches the filter “finding == budgte”.\n"
                                          "No trace has a finding 'budgte'; no trace here has any finding.")
