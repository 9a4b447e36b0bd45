"""Content search in the main window: **Edit › Search Content** (Ctrl+Shift+S) opens a
dock with a query entry and the hits, one row per item whose content matches
(:meth:`TraceSource.search <ctxviewer.store.TraceSource.search>`; SQLite: FTS5).

Hits are fetched a page at a time (:class:`SearchHitModel`, ``canFetchMore`` / ``fetchMore``),
the first page without counting every hit. Activating a hit (click, Enter) opens its trace with
the item selected and the matched words highlighted in the content view
(:func:`ctxviewer.store.fts.match_spans` on the stored text, the same rule as the index). Snippets
are plain text with invisible characters revealed (:func:`ctxviewer.util.visible.reveal`). The
controller talks to the window through :class:`~ctxviewer.gui.window_api.WindowApi`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QLineEdit, QVBoxLayout, QWidget

from ctxviewer.gui.diagnostics_tabs import ITEMS
from ctxviewer.gui.tables import make_table, plain_tooltip
from ctxviewer.gui.window_api import WindowApi
from ctxviewer.model.trace import RequestTrace
from ctxviewer.store import TraceSource
from ctxviewer.store.fts import SearchHit, match_spans

PAGE_SIZE = 100
"""Hits fetched per page."""

SEARCH_DELAY_MS = 250
"""How long the entry waits after the last keystroke before searching (ms)."""

HitRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, HitRole)`` -> the row's :class:`~ctxviewer.store.fts.SearchHit`."""

_COLUMNS = ("Trace", "Item", "Snippet")
_Index = QModelIndex | QPersistentModelIndex


class SearchHitModel(QAbstractTableModel):
    """Hits of one query over one store, fetched lazily. ``sig_error(str)`` on a store failure."""

    sig_error = Signal(str)
    sig_scanned = Signal()
    """A search that had to go on between events found its first hits or ended."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.store: TraceSource | None = None
        self.query = ""
        self.hits: list[SearchHit] = []
        self._next: tuple[int, int, int] | None = None

    def set_query(self, store: TraceSource | None, query: str) -> None:
        """Search ``store`` for ``query`` and load the first page (nothing for ``None`` / no words)."""
        self.beginResetModel()
        self.store, self.query, self.hits, self._next = store, query, [], None
        page, error = self._next_page()
        self.hits = page
        self.endResetModel()
        if error:
            self.sig_error.emit(error)
        elif not self.hits and self._next is not None:  # a long scan was cut short: go on between events
            QTimer.singleShot(0, self._go_on)

    def _go_on(self) -> None:
        """Fetch further pages while none has hits yet, one page per turn of the event loop."""
        if self.hits or self._next is None:
            return
        self.fetchMore()
        if not self.hits and self._next is not None:
            QTimer.singleShot(0, self._go_on)
        else:
            self.sig_scanned.emit()

    def _next_page(self) -> tuple[list[SearchHit], str | None]:
        """The next page of hits (sets :attr:`more`), and an error message or ``None``."""
        after, self._next = self._next, None
        if self.store is None or not self.query.strip() or (self.hits and after is None):
            return [], None
        try:
            page = self.store.search(self.query, after=after, limit=PAGE_SIZE)
        except Exception as exc:  # a damaged database: say so, keep the window going
            return [], str(exc)
        self._next = page.next
        return page.hits, None

    def hit(self, row: int) -> SearchHit | None:
        """The hit of row ``row``, or ``None``."""
        return self.hits[row] if 0 <= row < len(self.hits) else None

    @property
    def more(self) -> bool:
        """True when a further page may hold more hits."""
        return self._next is not None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(_COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        hit = self.hit(index.row()) if index.isValid() else None
        if hit is None or not 0 <= index.column() < len(_COLUMNS):
            return None
        value = (hit.trace_id, hit.item_id, hit.snippet)[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return value if index.column() == 2 else value.replace("\n", " ")
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(value)
        if role == HitRole:
            return hit
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(_COLUMNS):
            return _COLUMNS[section]
        return None

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self._next is not None

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        page, error = self._next_page()
        if page:
            first = len(self.hits)
            self.beginInsertRows(QModelIndex(), first, first + len(page) - 1)
            self.hits.extend(page)
            self.endInsertRows()
        if error:
            self.sig_error.emit(error)


class SearchPanel(QWidget):
    """The query entry, a one-line status and the hit table. ``sig_hit_activated(hit, query)``."""

    sig_hit_activated = Signal(object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store: TraceSource | None = None
        self.entry = QLineEdit()
        self.entry.setPlaceholderText('Search item content: words as prefixes, "quoted phrase"')
        self.entry.setClearButtonEnabled(True)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.model = SearchHitModel(self)
        self.model.sig_error.connect(self.status.setText)
        self.table = make_table(self.model)
        self.table.setSortingEnabled(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 200)
        self.table.setColumnWidth(1, 140)
        self.table.activated.connect(self._activated)
        self.table.clicked.connect(self._activated)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.entry)
        lay.addWidget(self.status)
        lay.addWidget(self.table, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.search)
        self.entry.textChanged.connect(lambda _t: self._timer.start())
        self.entry.returnPressed.connect(self.search)
        self.model.rowsInserted.connect(self._say_count)
        self.model.sig_scanned.connect(self._say_count)

    def set_store(self, store: TraceSource | None) -> None:
        """Search ``store`` from now on (re-runs the current query)."""
        self.store = store
        self.search()

    def search(self) -> None:
        """Run the entry's query now (first page of hits)."""
        self._timer.stop()
        query = self.entry.text()
        self.model.set_query(self.store, query)
        if not self.status.text().startswith("cannot"):
            self._say_count()

    def _say_count(self, *_args: object) -> None:
        n, query = self.model.rowCount(), self.entry.text().strip()
        if not query:
            self.status.setText("")
        elif n == 0:
            self.status.setText("searching…" if self.model.more else "no item content matches")
        else:
            self.status.setText(f"{n:,} hit{'s' if n != 1 else ''}" + (" so far (scroll for more)" if self.model.more else ""))

    def _activated(self, index: QModelIndex) -> None:
        hit = self.model.hit(index.row())
        if hit is not None:
            self.sig_hit_activated.emit(hit, self.model.query)


class SearchController(QObject):
    """The dock, its Edit-menu action, and opening a hit in the window. Installed with one call."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.panel = SearchPanel()
        self.dock = QDockWidget("Search content", window.host)
        self.dock.setObjectName("searchDock")
        self.dock.setWidget(self.panel)
        window.host.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        self.act_search = QAction("&Search Content…", window.host)
        self.act_search.setShortcut(QKeySequence("Ctrl+Shift+S"))
        self.act_search.triggered.connect(self.open_search)
        window.menu("&Edit").addAction(self.act_search)
        self.panel.sig_hit_activated.connect(self.open_hit)
        window.sig_database_opened.connect(lambda _path: self.panel.set_store(self.window.store))

    def open_search(self) -> None:
        """Show the dock and focus its entry."""
        self.dock.show()
        self.dock.raise_()
        if self.panel.store is not self.window.store:
            self.panel.set_store(self.window.store)
        self.panel.entry.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.panel.entry.selectAll()

    def open_hit(self, hit: SearchHit, query: str) -> None:
        """Show ``hit``'s trace, select its item and highlight the matched words in its content
        (once the trace is shown with its assessment)."""
        try:
            self.window.select_trace(hit.trace_id, then=lambda trace: self._show_hit(trace, hit, query))
        except KeyError:
            self.window.show_status(f"trace {hit.trace_id} is no longer in the database")

    def _show_hit(self, trace: RequestTrace, hit: SearchHit, query: str) -> None:
        w = self.window
        if trace is not w.trace or trace.trace_id != hit.trace_id:
            return
        if not w.panel.tabs.select_item(hit.item_id):
            return
        w.panel.tabs.widget.setCurrentIndex(ITEMS)  # the selected item in view, whatever tab led
        text = trace.item(hit.item_id).content
        spans = [(s, s + n) for s, n in match_spans(text or "", query)]
        w.panel.content.mark_spans(text, spans)
