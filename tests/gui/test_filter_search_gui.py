"""The trace list's display filter entry (errors underlined where they are) and the content search
dock (a hit opens its trace with the item selected and the match highlighted): issue 11."""

from __future__ import annotations

from pathlib import Path

import pytest
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
    qtbot.waitUntil(lambda: panel.model.task is None, timeout=10_000)  # the page is read off the GUI thread
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
    qtbot.waitUntil(lambda: panel.model.task is None, timeout=10_000)
    assert panel.model.rowCount() == 0 and panel.status.text() == "no item content matches"


def test_a_slow_search_page_leaves_the_window_live_and_a_new_query_drops_it(qtbot, monkeypatch: pytest.MonkeyPatch,
                                                                            db: Path, windows) -> None:
    import threading

    from PySide6.QtCore import QTimer

    from ctxviewer.store.fts import SearchPage
    from ctxviewer.store.search import TraceSearch

    entered, release, seen = threading.Event(), threading.Event(), []
    real = TraceSearch.search

    def search(self, query, *, after=None, limit=50, cancelled=None):  # type: ignore[no-untyped-def]
        if query != "slowquery":
            return real(self, query, after=after, limit=limit, cancelled=cancelled)
        entered.set()
        release.wait(10)  # a ClickHouse page scanning its whole window
        seen.append(cancelled is not None and cancelled())
        return SearchPage([], None)

    monkeypatch.setattr(TraceSearch, "search", search)
    w = windows.open(db, show=False)
    w.search.open_search()
    panel = w.search.panel
    panel.entry.setText("slowquery")
    panel.search()
    assert entered.wait(10)
    assert panel.status.text() == "searching…" and panel.model.more
    ticked: list[bool] = []
    QTimer.singleShot(0, lambda: ticked.append(True))
    qtbot.waitUntil(lambda: ticked == [True], timeout=2_000)  # the event loop runs while the page is read
    panel.entry.setText("RURAL postc")
    panel.search()  # a new query: the slow page is cancelled, its result dropped
    qtbot.waitUntil(lambda: panel.model.task is None and panel.model.rowCount() == 4, timeout=10_000)
    release.set()
    qtbot.waitUntil(lambda: seen == [True], timeout=10_000)  # the slow page was told it was cancelled
    qtbot.wait(50)
    assert panel.model.rowCount() == 4 and panel.status.text() == "4 hits"
    assert panel.model.query == "RURAL postc"


def test_closing_the_window_stops_a_search_page_still_running(qtbot, monkeypatch: pytest.MonkeyPatch,
                                                             db: Path, windows) -> None:
    import threading
    import time

    from ctxviewer.store.fts import SearchPage
    from ctxviewer.store.search import TraceSearch

    entered, ended = threading.Event(), threading.Event()

    def search(self, query, *, after=None, limit=50, cancelled=None):  # type: ignore[no-untyped-def]
        entered.set()
        deadline = time.monotonic() + 30
        while not (cancelled is not None and cancelled()) and time.monotonic() < deadline:
            time.sleep(0.01)  # a scan that polls its flag, as a ClickHouse page does between slices
        ended.set()
        return SearchPage([], None)

    monkeypatch.setattr(TraceSearch, "search", search)
    w = windows.open(db, show=False)
    w.search.open_search()
    w.search.panel.entry.setText("anything")
    w.search.panel.search()
    assert entered.wait(10)
    w.close()  # the page is cancelled and waited for before the store closes
    assert ended.is_set() and w.search.panel.model.task is None and w.store is None
