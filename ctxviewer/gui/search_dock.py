"""Content search in the main window: **Edit › Search Content** (Ctrl+Shift+S) opens a
dock with a query entry and the hits, one row per item whose content matches
(:meth:`TraceSource.search <ctxviewer.store.TraceSource.search>`; SQLite: FTS5).

Hits are fetched a page at a time (:class:`SearchHitModel`, ``canFetchMore`` / ``fetchMore``),
the first page without counting every hit, each page off the GUI thread
(:class:`~ctxviewer.gui.worker.Task`, on a :meth:`~ctxviewer.store.TraceSource.reader` handle of
its own): a ClickHouse store's page may scan the whole time window, and the window stays live
meanwhile ("searching…"). A new query cancels the page still running -- its ``cancelled()`` flag,
and the source's ``cancel()`` where it has one (``KILL QUERY``) -- and a late page of an older
query is dropped. Activating a hit (click, Enter) opens its trace with
the item selected and the matched words highlighted in the content view
(:func:`ctxviewer.store.fts.match_spans` on the stored text, the same rule as the index). Every
cell says what :data:`ctxviewer.present.search_cells.SEARCH_COLUMNS` says: plain text with
invisible characters revealed as in the trace list (a right-to-left override in a trace id shows
as ``⟨RLO⟩``, never reorders it). The
controller talks to the window through :class:`~ctxviewer.gui.window_api.WindowApi`.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QLineEdit, QVBoxLayout, QWidget

from ctxviewer.gui.diagnostics_tabs import ITEMS
from ctxviewer.gui.tables import make_table, plain_tooltip
from ctxviewer.gui.window_api import WindowApi
from ctxviewer.gui.worker import Task
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.search_cells import SEARCH_COLUMNS
from ctxviewer.store import TraceSource
from ctxviewer.store.fts import SearchHit, match_spans
from ctxviewer.store.source import private_reader

PAGE_SIZE = 100
"""Hits fetched per page."""

SEARCH_DELAY_MS = 250
"""How long the entry waits after the last keystroke before searching (ms)."""

SEARCH_MIN_HEIGHT_PX = 240
"""The docked search's least height when it opens (entry, status and about six hits), pixels."""

SEARCH_MAX_SHARE = 0.4
"""The docked search's greatest share of the window's height when it opens (the bottom dock area
may be taller: the audit view docked there)."""

HitRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, HitRole)`` -> the row's :class:`~ctxviewer.store.fts.SearchHit`."""

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
        self._gen = 0  # the query's generation: a page of an older one is dropped
        self.task: Task | None = None
        """The page being read (``None``: none)."""
        self._reader: dict[str, Any] = {}  # the running page's handle, to cancel on the server

    def set_query(self, store: TraceSource | None, query: str) -> None:
        """Search ``store`` for ``query``: the first page is read in the background (nothing for
        ``None`` / no words); a page of the previous query still running is cancelled."""
        self.stop()
        self.beginResetModel()
        self.store, self.query, self.hits, self._next = store, query, [], None
        self._gen += 1
        self.endResetModel()
        if store is not None and query.strip():
            self._fetch(None)

    def stop(self, wait: bool = False) -> None:
        """Cancel the page being read, if any (its result is dropped); ``wait``: block until its job
        has returned (the window closes: its store is closed next)."""
        task, self.task = self.task, None
        if task is None:
            return
        self._gen += 1
        task.cancel()
        cancel = getattr(self._reader.get("handle"), "cancel", None)
        if callable(cancel):  # a server-side scan (ClickHouse): KILL QUERY, off the GUI thread
            threading.Thread(target=cancel, name="ctxviewer-search-cancel", daemon=True).start()
        if wait:
            task.wait_job()

    def _fetch(self, after: tuple[int, int, int] | None) -> None:
        store, query, gen = self.store, self.query, self._gen
        assert store is not None
        reader: dict[str, Any] = {}
        self._reader = reader

        def job(_progress: Any, cancelled: Callable[[], bool]) -> Any:
            # a connection of this thread whose queries are its own: a cancel of this page never kills
            # the list's or the loader's queries
            handle = private_reader(store)
            reader["handle"] = handle
            try:
                return handle.search(query, after=after, limit=PAGE_SIZE, cancelled=cancelled)
            finally:
                reader.pop("handle", None)
                if handle is not store:
                    handle.close()

        task = Task(job, self)
        self.task = task
        task.sig_finished.connect(lambda page, t=task, g=gen: self._got(t, g, page, None))
        task.sig_failed.connect(lambda message, t=task, g=gen: self._got(t, g, None, message))
        task.start()

    def _got(self, task: Task, gen: int, page: Any, error: str | None) -> None:
        task.deleteLater()  # one Task a page: not kept as children until the window closes
        if gen != self._gen:
            return  # an older query's page, or one cancelled
        self.task = None
        if error is not None:  # a damaged database, a failed query: say so, keep the window going
            self._next = None
            self.sig_error.emit(error)  # the status line says it (not "no item content matches")
            return
        self._next = page.next
        if page.hits:
            first = len(self.hits)
            self.beginInsertRows(QModelIndex(), first, first + len(page.hits) - 1)
            self.hits.extend(page.hits)
            self.endInsertRows()
        if not self.hits and self._next is not None:  # a long scan cut short: go on
            self._fetch(self._next)
        else:
            self.sig_scanned.emit()

    def hit(self, row: int) -> SearchHit | None:
        """The hit of row ``row``, or ``None``."""
        return self.hits[row] if 0 <= row < len(self.hits) else None

    @property
    def more(self) -> bool:
        """True when a further page may hold more hits (or a page is being read)."""
        return self._next is not None or self.task is not None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(SEARCH_COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        hit = self.hit(index.row()) if index.isValid() else None
        if hit is None or not 0 <= index.column() < len(SEARCH_COLUMNS):
            return None
        col = SEARCH_COLUMNS[index.column()]
        try:
            if role == Qt.ItemDataRole.DisplayRole:
                return col.format(hit)  # the core's words: ids revealed as in the trace list
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tooltip(col.tooltip(hit) if col.tooltip else col.format(hit))
        except Exception:  # data() never raises
            return None
        if role == HitRole:
            return hit
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(SEARCH_COLUMNS):
            return SEARCH_COLUMNS[section].title
        return None

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self._next is not None and self.task is None

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._fetch(self._next)


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
        """Run the entry's query now (its first page of hits is read in the background)."""
        self._timer.stop()
        self.status.setText("")
        self.model.set_query(self.store, self.entry.text())
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
        """Show the dock and focus its entry. Another dock docked in the same area (the audit
        view, docked by the user) is tabbed with it rather than split beside it -- side by side,
        the search had a 210 px column and the item table 1.5 rows at 1280x800 -- and the dock
        is held between :data:`SEARCH_MIN_HEIGHT_PX` and :data:`SEARCH_MAX_SHARE` of the window's
        height (a third of it when outside), so the trace panel above keeps its item table."""
        host = self.window.host
        if self.dock.isHidden() and not self.dock.isFloating():
            area = host.dockWidgetArea(self.dock)
            for other in host.findChildren(QDockWidget):
                if (other is not self.dock and not other.isHidden() and not other.isFloating()
                        and host.dockWidgetArea(other) == area):
                    host.tabifyDockWidget(other, self.dock)
                    break
        self.dock.show()
        self.dock.raise_()
        self.fit_height()
        if self.panel.store is not self.window.store:
            self.panel.set_store(self.window.store)
        self.panel.entry.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.panel.entry.selectAll()

    def fit_height(self) -> None:
        """Docked, hold the dock between :data:`SEARCH_MIN_HEIGHT_PX` and :data:`SEARCH_MAX_SHARE`
        of the window's height (a third of it when outside); floating, leave it."""
        host = self.window.host
        host.layout().activate()  # the dock's geometry as now shown
        if not self.dock.isFloating() and not SEARCH_MIN_HEIGHT_PX <= self.dock.height() <= host.height() * SEARCH_MAX_SHARE:
            host.resizeDocks([self.dock], [max(SEARCH_MIN_HEIGHT_PX, host.height() // 3)], Qt.Orientation.Vertical)

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
