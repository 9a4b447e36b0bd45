"""The trace list's display filter entry (errors underlined where they are) and the content search
dock (a hit opens its trace with the item selected and the match highlighted): issue 11."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from ctxviewer.gui.diagnostics_tabs import ITEMS
from ctxviewer.gui.main_window import MainWindow


def _wait_counted(w: MainWindow) -> None:
    """Pump events until the trace list has its keys: filters are read off the GUI thread
    (issue 11), and qtbot's nested loops can return at once after another test quit the loop."""
    import time

    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + 120
    while not w.trace_model.counted and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.005)
    assert w.trace_model.counted


def test_filter_entry_applies_the_grammar_and_underlines_errors(qtbot, db: Path, windows) -> None:
    w = windows.open(db, show=False, remember=True)
    w.focus_filter()
    qtbot.keyClicks(w.filter_edit, "capacity >= 8000 and model ~ CLAUDE")
    qtbot.keyClick(w.filter_edit, Qt.Key.Key_Return)
    _wait_counted(w)
    assert [w.trace_model.trace_id(r) for r in range(w.trace_model.rowCount())] == ["bravo"]
    assert w.filter_edit.error is None and w.filter_edit.error_label.isHidden()
    w.filter_edit.clear()
    qtbot.keyClicks(w.filter_edit, "omitted > 0 and capacity < lots")
    qtbot.keyClick(w.filter_edit, Qt.Key.Key_Return)
    assert w.filter_edit.error is not None
    assert w.filter_edit.error_label.text() == "capacity takes a number (recorded context capacity C, tokens), not 'lots' (column 28)"
    assert not w.filter_edit.error_label.isHidden()
    assert w.filter_edit.underlined == (27, 4)  # under "lots"
    assert w.filter_edit.text() == "omitted > 0 and capacity < lots"  # the text itself is untouched
    assert w.trace_model.rowCount() == 1  # the last good filter stays applied
    qtbot.keyClick(w.filter_edit, Qt.Key.Key_Backspace)
    assert w.filter_edit.error_label.text().startswith("capacity takes a number")
    w.filter_edit.setText("omitted > 0 and 🙂 == x")  # positions in UTF-16 units past an emoji
    assert w.filter_edit.error_label.text().startswith("unknown field '🙂'")
    assert w.filter_edit.underlined == (16, 7)
    w.filter_edit.setText("omitted > 0")
    qtbot.keyClick(w.filter_edit, Qt.Key.Key_Return)
    assert w.filter_edit.error is None and w.filter_edit.underlined is None and w.filter_edit.error_label.isHidden()
    _wait_counted(w)
    assert [w.trace_model.trace_id(r) for r in range(w.trace_model.rowCount())] == ["alpha", "bravo", "charlie"]


def test_search_dock_opens_a_hit_with_the_item_selected_and_the_words_marked(qtbot, qtmodeltester, db: Path,
                                                                             windows) -> None:
    w = windows.open(db, show=False, remember=True)
    w.search.act_search.trigger()
    assert not w.search.dock.isHidden() and w.search.act_search.shortcut().toString() == "Ctrl+Shift+S"
    panel = w.search.panel
    qtbot.keyClicks(panel.entry, "RURAL postc")
    qtbot.keyClick(panel.entry, Qt.Key.Key_Return)
    qtmodeltester.check(panel.model)
    hits = [(panel.model.data(panel.model.index(r, 0)), panel.model.data(panel.model.index(r, 1)))
            for r in range(panel.model.rowCount())]
    assert hits == [(t, "ev-shipping-delays") for t in ("alpha", "bravo", "charlie", "delta")]  # one text, four items
    assert panel.status.text() == "4 hits"
    assert panel.model.data(panel.model.index(0, 2)) == (
        "Shipping delays: ParcelLine deliveries to rural postcodes may take two extra business days…")
    with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000):
        panel.table.clicked.emit(panel.model.index(1, 2))
    assert w.trace is not None and w.trace.trace_id == "bravo"
    assert w.panel.tabs.widget.currentIndex() == ITEMS
    current = w.panel.item_view.currentIndex().row()
    assert w.panel.item_model.item(current).id == "ev-shipping-delays"
    marked = [(s.cursor.selectionStart(), s.cursor.selectedText()) for s in w.content.extraSelections()]
    assert [text for _, text in marked] == ["rural", "postcodes"]
    assert w.content.toPlainText()[marked[0][0]:marked[0][0] + 5] == "rural"
    panel.entry.setText("zyzzyva")
    panel.search()
    assert panel.model.rowCount() == 0 and panel.status.text() == "no item content matches"
