"""Issue 13, keyboard and clipboard: Ctrl+C copies the focused view's selection (never the trace
id instead), Copy Trace Id has its own shortcut (Ctrl+Shift+C), every action has a menu entry and
a shortcut, and Help > Keyboard Shortcuts lists them all."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QTextCursor

from ctxviewer.gui.main_window import MainWindow
from ctxviewer.gui.shortcuts_help import menu_actions, shortcut_rows

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def active_window(qtbot, windows, trace_id: str = "ticket-injection") -> MainWindow:  # type: ignore[no-untyped-def]
    w = windows.new()
    qtbot.waitExposed(w)
    assert w.open_database(SAMPLES, remember=False)
    windows.select(w, trace_id)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    return w


def ctrl_c(qtbot, widget, shift: bool = False) -> None:  # type: ignore[no-untyped-def]
    mods = Qt.KeyboardModifier.ControlModifier | (Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier)
    qtbot.keyClick(widget, Qt.Key.Key_C, mods)


def test_ctrl_c_copies_selected_text_not_the_trace_id(qtbot, windows) -> None:
    w = active_window(qtbot, windows)
    clip = QGuiApplication.clipboard()
    w.panel.answer.setCurrentWidget(w.panel.answer.response)
    view = w.panel.answer.response.active()  # the rendered answer (the default)
    assert view is w.panel.answer.response.rendered_view
    view.setFocus()
    cur = view.textCursor()
    text = view.toPlainText()
    start = text.index("issuing the refund")
    cur.setPosition(start)
    cur.setPosition(start + len("issuing the refund"), QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cur)
    clip.setText("before")
    ctrl_c(qtbot, view)
    assert clip.text() == "issuing the refund"
    # nothing selected: nothing copied (the trace id is not copied instead)
    cur.clearSelection()
    view.setTextCursor(cur)
    clip.setText("before")
    ctrl_c(qtbot, view)
    assert clip.text() == "before"
    # the trace id has its own shortcut
    ctrl_c(qtbot, view, shift=True)
    assert clip.text() == "ticket-injection"
    assert w.act_copy_id.shortcut() == QKeySequence("Ctrl+Shift+C")


def test_ctrl_c_in_a_table_copies_the_selected_row(qtbot, windows) -> None:
    w = active_window(qtbot, windows)
    w.panel.tabs.widget.setCurrentWidget(w.panel.items)
    w.panel.select_item("TCK-58213")
    w.item_view.setFocus()
    ctrl_c(qtbot, w.item_view)
    cells = QGuiApplication.clipboard().text().split("\t")
    assert cells[:3] == ["5", "evidence", "TCK-58213"] and cells[-2:] == ["retained", "—"]
    w.trace_view.setFocus()
    ctrl_c(qtbot, w.trace_view)
    assert "ticket-injection" in QGuiApplication.clipboard().text().split("\t")


def test_every_action_has_a_menu_entry_and_a_unique_shortcut(qtbot, windows) -> None:
    w = active_window(qtbot, windows)
    rows = shortcut_rows(w)
    missing = [(m, t) for m, t, key in rows if not key]
    assert missing == []
    keys = [key for _, _, key in rows]
    assert len(keys) == len(set(keys)), "two actions share a shortcut"
    # every QAction with a shortcut anywhere in the window is in a menu
    from PySide6.QtGui import QAction
    in_menus = {id(a) for _, _, a in menu_actions(w)}
    stray = [a.text() for a in w.findChildren(QAction) if not a.shortcut().isEmpty() and id(a) not in in_menus
             and a.parent() is w]
    assert stray == []
    assert ("Edit", "Copy", "Ctrl+C") in rows and ("Items", "Next Omitted Item", "F8") in rows
    assert w.menuBar().actions()[-1].text() == "&Help"


def test_help_keyboard_shortcuts_page_lists_every_action(qtbot, windows) -> None:
    w = active_window(qtbot, windows)
    qtbot.keyClick(w.trace_view, Qt.Key.Key_F1)
    dlg = next(d for d in w.findChildren(type(w.show_shortcuts())) if d.isVisible())
    table = dlg.table
    shown = [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]
    assert shown == shortcut_rows(w)
    assert ("Edit", "Copy Trace Id", "Ctrl+Shift+C") in shown
    assert ("Help", "Keyboard Shortcuts", "F1") in shown
