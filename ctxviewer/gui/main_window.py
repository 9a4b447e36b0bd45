"""The main window: the trace list on the left, the selected trace on the right.

Right side, top to bottom: the trace header (:class:`DetailPanel`), the budget chart
(:class:`BudgetChart`), the item table (:class:`ItemTableModel`) and the selected item's content
(:class:`ContentView`). Databases are opened read-only (:meth:`TraceStore.open`) and read only through
the store interface (:class:`~ctxviewer.store.TraceSource`, :meth:`MainWindow.set_source`); the window
never writes to a database it was asked to show. Importing writes only into a database the user
chose, off the GUI thread (:mod:`ctxviewer.gui.importer`).

Selecting a trace (the window never stops) has one path: the trace is loaded, derived
and assessed off the GUI thread (:class:`~ctxviewer.gui.trace_loader.TraceLoader`, where a newer
selection wins); the window paints its items as soon as they are read, its header, chart and
findings when the assessment follows. Selecting returns at once; a caller without an event loop
of its own (the screenshot command) blocks with :meth:`MainWindow.wait_shown`.

The window is built from parts, one concern each (:mod:`ctxviewer.gui.window_part`): its own menus
and actions (:mod:`ctxviewer.gui.main_actions`), opening (:mod:`ctxviewer.gui.window_opening`),
selection (:mod:`ctxviewer.gui.window_selection`) and the trace list pane following its model
(:mod:`ctxviewer.gui.window_trace_list`); this module builds the widgets they share, the
:class:`~ctxviewer.gui.window_api.WindowApi` members, the layout and closing.

The controllers (Compare, Reload, the Items menu, the docks, What-if) see the window only as a
:class:`~ctxviewer.gui.window_api.WindowApi`, which it implements.

Signals: ``sig_trace_selected(str trace_id)`` once a selected trace's items are shown (its
assessment follows); ``sig_trace_shown(str trace_id)`` once the selected trace is shown in full,
with its assessment (or the chart saying why there is none); ``sig_database_opened(str path)``
after a database is opened.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.assess.context import EMPTY as EMPTY_CONTEXT
from ctxviewer.gui.audit_dock import AuditController
from ctxviewer.gui.background_import import run_in_background
from ctxviewer.gui.column_menu import install_column_menu
from ctxviewer.gui.compare import CompareController
from ctxviewer.gui.connect_dialog import ConnectController
from ctxviewer.gui.filter_edit import FilterEdit
from ctxviewer.gui.importer import ImportController, show_message
from ctxviewer.gui.layout_memory import restore_layout, save_layout
from ctxviewer.gui.listen import ListenController
from ctxviewer.gui.main_actions import WindowActions
from ctxviewer.gui.recent_files import RecentFiles
from ctxviewer.gui.reload import ReloadController
from ctxviewer.gui.replay_controller import ReplayController
from ctxviewer.gui.search_dock import SearchController
from ctxviewer.gui.sessions_controller import SessionsController
from ctxviewer.gui.stats_controller import StatsController
from ctxviewer.gui.tables import elide_right, make_table, size_columns
from ctxviewer.gui.trace_actions import TraceActions
from ctxviewer.gui.trace_list_model import TraceListModel
from ctxviewer.gui.trace_loader import TraceLoader
from ctxviewer.gui.trace_panel import TracePanel
from ctxviewer.gui.upgrade_offer import UpgradeOffer
from ctxviewer.gui.whatif_controller import WhatIfController
from ctxviewer.gui.window_opening import WindowOpening
from ctxviewer.gui.window_selection import WindowSelection
from ctxviewer.gui.window_trace_list import WindowTraceList
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.warm_up import first_trace
from ctxviewer.present.columns import TRACE_COLUMNS
from ctxviewer.store import TraceSource

WARM_UP = "first trace"
"""The background job key of :func:`ctxviewer.pipeline.warm_up.first_trace`, run once the window is shown."""

FILTER_DELAY_MS = 200
"""How long the filter box waits after the last keystroke before re-querying the store (ms)."""


class MainWindow(WindowActions, WindowOpening, WindowSelection, WindowTraceList):
    """The viewer window (module docstring); implements :class:`~ctxviewer.gui.window_api.WindowApi`.
    ``settings`` (default: the user's ctxviewer settings) keeps recent files and the layout."""

    sig_trace_selected = Signal(str)
    sig_trace_shown = Signal(str)
    sig_database_opened = Signal(str)

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = EMPTY_CONTEXT
        """The context the shown database's traces are assessed in (:mod:`ctxviewer.assess.context`)."""
        self.loader = TraceLoader(self)
        self.loader.sig_loaded.connect(self._on_loaded)
        self.loader.sig_assessed.connect(self._on_assessed)
        self.loader.sig_failed.connect(self._on_load_failed)
        self._then: tuple[str, Callable[[RequestTrace], None]] | None = None
        self._model_fitted = False
        self._widths_remembered = False  # a restored layout's column widths are the user's: kept
        self.store: TraceSource | None = None
        """What the window shows: any :class:`~ctxviewer.store.TraceSource` (a read-only SQLite store when opened from a file)."""
        self.trace: RequestTrace | None = None
        """The trace shown, as displayed (derived omissions included); ``None`` when none is."""
        self.settings = settings or QSettings("ctxviewer", "ctxviewer")
        """Recent files and the remembered layout (:mod:`ctxviewer.gui.layout_memory`)."""
        self.recent = RecentFiles(self.settings)
        self.setWindowTitle("ctxviewer")
        self.setAcceptDrops(True)
        self.setMinimumSize(800, 500)

        # left: filter + trace list
        self.trace_model = TraceListModel(parent=self)
        self.trace_model.sig_error.connect(lambda msg: self.show_error("Cannot read the trace list", msg))
        self.filter_edit = FilterEdit()  # display filters, errors underlined where they are
        # Re-query once typing pauses: on a million traces a filtered count takes ~240 ms.
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(FILTER_DELAY_MS)
        self._filter_timer.timeout.connect(self.apply_filter)
        self.filter_edit.textChanged.connect(lambda _text: self._filter_timer.start())
        self.filter_edit.returnPressed.connect(self.apply_filter)
        self.trace_view = make_table(self.trace_model, Qt.TextElideMode.ElideMiddle)  # span ids end trace ids
        self.trace_view.setSortingEnabled(True)
        self.trace_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        size_columns(self.trace_view, TRACE_COLUMNS, "trace_id")
        elide_right(self.trace_view, TRACE_COLUMNS)  # "gpt-4o-mini-20…": the model's family stays
        install_column_menu(self.trace_view, TRACE_COLUMNS)  # hideable columns
        self.trace_view.horizontalHeader().sectionResized.connect(self._on_section_resized)
        # a million rows: every row the same height, never measured from its contents
        self.trace_view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.trace_view.horizontalHeader().setStretchLastSection(False)
        self.trace_view.selectionModel().currentRowChanged.connect(self._on_trace_row)
        self.trace_model.modelReset.connect(self._on_list_reset)
        self.count_label = QLabel()
        self.count_label.setObjectName("traceCount")
        self.trace_model.sig_counted.connect(lambda _n: self._on_list_counted())
        self.trace_model.sig_keys_ready.connect(self._mark_shown_trace)
        self.trace_model.sig_refreshed.connect(lambda _n: self._show_count())
        self.trace_model.rowsInserted.connect(lambda *_: self._on_rows_arrived())
        left = QWidget()
        self._list_pane = QVBoxLayout(left)
        self._list_pane.setContentsMargins(4, 4, 0, 4)
        self._list_pane.addWidget(self.filter_edit)
        self._list_pane.addWidget(self.filter_edit.error_label)
        self._list_pane.addWidget(self.trace_view, 1)
        self._list_pane.addWidget(self.count_label)

        # right: the selected trace
        self.panel = TracePanel()
        self.panel.tabs.sig_status.connect(lambda msg: self.show_status(msg, 5000))
        self.panel.tabs.run.sig_trace_selected.connect(self._select_from_run)
        self.detail, self.chart, self.content = self.panel.detail, self.panel.chart, self.panel.content
        self.item_model, self.item_view = self.panel.item_model, self.panel.item_view
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.panel)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 5)
        self.setCentralWidget(self.splitter)
        self._sized = False

        self.importer = ImportController(self)
        self.importer.sig_imported.connect(self._on_imported)
        self.upgrade_offer = UpgradeOffer(self)
        self.upgrade_offer.sig_upgraded.connect(self._on_imported)  # open the copy, read-only
        self._build_menus()
        self.compare = CompareController(self)  # Compare menu, buttons and diff windows
        self.audit = AuditController(self)
        self.whatif = WhatIfController(self)  # Trace > What-if…
        self.replayer = ReplayController(self)  # Trace > Replay… (opens the diff of the replay)
        self.replayer.sig_replayed.connect(self.compare.open_diff)
        self.whatif.sig_replay.connect(self.replayer.choose_and_replay_trace)  # the what-if's Replay…
        self.trace_actions = TraceActions(self)  # Items menu
        self.reloader = ReloadController(self)  # File > Reload (F5), changed-on-disk notice
        self.listener = ListenController(self, self.reloader)  # File > Listen for Traces… (the live receiver)
        self.search = SearchController(self)  # Edit > Search Content
        self.stats = StatsController(self)  # Trace > Statistics… (sums over the current filter)
        self.sessions = SessionsController(self)  # Trace > Sessions… (a session's calls, each diffed with the one before)
        self.connector = ConnectController(self)  # File > Connect to ClickHouse…
        self.statusBar().showMessage("Open a trace database (File > Open) or drop one here.")

    # ------------------------------------------------------------------ what the controllers use (WindowApi)

    @property
    def host(self) -> QMainWindow:
        """This window, as the Qt parent of the controllers' actions, dialogs and docks."""
        return self

    @property
    def filter_text(self) -> str:
        """The text in the trace list's filter box."""
        return self.filter_edit.text()

    def menu(self, title: str, before: str = "&Help") -> QMenu:
        """The menu bar's menu ``title`` (e.g. ``"&File"``), created before the menu ``before``
        (or before Help, when there is no such menu) if the window has none yet."""
        bar = self.menuBar()
        actions = bar.actions()
        for action in actions:
            found = action.menu()
            if action.text() == title and isinstance(found, QMenu):
                return found
        menu = QMenu(title, self)
        by_text = {a.text(): a for a in actions}
        anchor = by_text.get(before) or by_text.get("&Help")
        if anchor is not None:
            bar.insertMenu(anchor, menu)
        else:
            bar.addMenu(menu)
        return menu

    def add_to_list_pane(self, widget: QWidget, *, above: bool = False) -> None:
        """Put ``widget`` below the trace list's count (``above``: above the filter box)."""
        if above:
            self._list_pane.insertWidget(0, widget)
        else:
            self._list_pane.addWidget(widget)

    def show_error(self, title: str, message: str) -> None:
        """Show ``message`` in a plain-text, non-blocking message box titled ``title`` (control
        characters made visible: :func:`ctxviewer.gui.importer.show_message`)."""
        show_message(self, title, message)

    def show_status(self, message: str, timeout_ms: int = 0) -> None:
        """Show ``message`` in the status bar (for ``timeout_ms`` milliseconds; 0: until replaced)."""
        self.statusBar().showMessage(message, timeout_ms)

    def createPopupMenu(self) -> QMenu | None:  # Qt override: the menu bar's context menu
        """Qt's dock and toolbar toggles, less those of docks with nothing to show yet (the audit
        dock before Review › Audit Findings builds its view: checking it showed an empty strip);
        ``None`` (no menu) when no toggle is left."""
        menu = super().createPopupMenu()
        if menu is None:
            return None
        for dock in self.findChildren(QDockWidget):
            if dock.widget() is None:
                menu.removeAction(dock.toggleViewAction())
        if not any(a.isVisible() and not a.isSeparator() for a in menu.actions()):
            menu.deleteLater()
            return None
        return menu

    # ------------------------------------------------------------------ layout

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if not self._sized:
            self._sized = True
            self.apply_default_sizes()
            # the layout the user left, if any (its column widths then stay as the user made them)
            self._widths_remembered = restore_layout(self, self._layout_parts(), self.settings)
            # the first trace's one-time costs, while the user looks
            QTimer.singleShot(0, self, lambda: run_in_background(WARM_UP, first_trace, self, lambda: None))
        super().showEvent(event)

    def _layout_parts(self) -> dict[str, QSplitter | QHeaderView]:
        """The splitters and table headers whose state :mod:`ctxviewer.gui.layout_memory` keeps, by
        name; a header's name carries its column count (a table that gained columns starts afresh)."""
        trace_header, item_header = self.trace_view.horizontalHeader(), self.panel.item_view.horizontalHeader()
        return {
            "main_splitter": self.splitter,
            "trace_splitter": self.panel.splitter,
            "content_answer_splitter": self.panel.bottom,
            f"trace_columns_{trace_header.count()}": trace_header,
            f"item_columns_{item_header.count()}": item_header,
        }

    def apply_default_sizes(self) -> None:
        """Split the window for its current size: the trace list 44 % of the width (at most 660 px:
        time, trace id, model, retained / omitted and state at 1280 px), the trace panel the rest (the answer beside the item content needs it)."""
        w = self.width()
        left = max(380, min(int(w * 0.44), 660))
        self.splitter.setSizes([left, max(300, w - left)])
        self.panel.apply_default_sizes(self.height() - 60)
        self._fit_columns()

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if not self.audit.may_close():  # notes not saved yet: the reviewer chose Cancel, or Save failed
            event.ignore()
            return
        if self._sized:
            save_layout(self, self._layout_parts(), self.settings)
        self.importer.cancel()
        self.audit.close()
        self.loader.stop()
        self.panel.tabs.run.stop()  # a run read may still run
        self.search.panel.model.stop(wait=True)  # a search page (a ClickHouse scan) may still run
        self.stats.stop()
        self.trace_model.stop()  # the count and key reads of a big database may still run
        if self.store is not None:
            self.store.close()
            self.store = None
        super().closeEvent(event)
