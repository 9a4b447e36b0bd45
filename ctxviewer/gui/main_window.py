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

The controllers (Compare, Reload, the Items menu, the docks, What-if) see the window only as a
:class:`~ctxviewer.gui.window_api.WindowApi`, which it implements.

Signals: ``sig_trace_selected(str trace_id)`` once a selected trace's items are shown (its
assessment follows); ``sig_trace_shown(str trace_id)`` once the selected trace is shown in full,
with its assessment (or the chart saying why there is none); ``sig_database_opened(str path)``
after a database is opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ctxviewer import __version__
from ctxviewer.assess.assessment import Assessment
from ctxviewer.assess.context import EMPTY as EMPTY_CONTEXT
from ctxviewer.gui.audit_dock import AuditController
from ctxviewer.gui.background_import import run_in_background
from ctxviewer.gui.clipboard import copy_selection
from ctxviewer.gui.column_menu import install_column_menu
from ctxviewer.gui.compare import CompareController
from ctxviewer.gui.connect_dialog import ConnectController
from ctxviewer.gui.filter_edit import FilterEdit
from ctxviewer.gui.importer import ImportController, show_message
from ctxviewer.gui.layout_memory import restore_layout, save_layout
from ctxviewer.gui.listen import ListenController
from ctxviewer.gui.recent_files import RecentFiles
from ctxviewer.gui.reload import ReloadController
from ctxviewer.gui.replay_controller import ReplayController
from ctxviewer.gui.search_dock import SearchController
from ctxviewer.gui.sessions_controller import SessionsController
from ctxviewer.gui.shortcuts_help import ShortcutsDialog
from ctxviewer.gui.stats_controller import StatsController
from ctxviewer.gui.tables import elide_right, fit_columns_to_content, make_table, size_columns
from ctxviewer.gui.trace_actions import TraceActions
from ctxviewer.gui.trace_list_model import PAGE_ROWS, TraceListModel
from ctxviewer.gui.trace_loader import TraceLoader
from ctxviewer.gui.trace_panel import TracePanel
from ctxviewer.gui.upgrade_offer import UpgradeOffer
from ctxviewer.gui.whatif_controller import WhatIfController
from ctxviewer.gui.window_keys import close_sequences
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.hints import open_store
from ctxviewer.pipeline.warm_up import first_trace
from ctxviewer.present.columns import TRACE_COLUMNS
from ctxviewer.store import OldSchemaError, StoreError, TraceSource
from ctxviewer.store.file_check import SQLITE_HEADER
from ctxviewer.util.visible import one_line

DB_SUFFIXES = (".db", ".sqlite", ".sqlite3", ".ctxdb")
"""File suffixes treated as trace databases when dropped or opened (besides the SQLite header)."""


def is_database_file(path: Path) -> bool:
    """True if ``path`` has a database suffix or starts with the SQLite header."""
    if path.suffix.lower() in DB_SUFFIXES:
        return True
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


WARM_UP = "first trace"
"""The background job key of :func:`ctxviewer.pipeline.warm_up.first_trace`, run once the window is shown."""

FILTER_DELAY_MS = 200
"""How long the filter box waits after the last keystroke before re-querying the store (ms)."""


class MainWindow(QMainWindow):
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

    # ------------------------------------------------------------------ menus

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.act_open = self._action(file_menu, "&Open Database…", QKeySequence.StandardKey.Open, self.choose_database)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.act_import = self._action(file_menu, "&Import Traces…", "Ctrl+I", self.importer.choose_and_import)
        file_menu.addSeparator()
        self.act_close = self._action(file_menu, "&Close Window", None, self.close)
        self.act_close.setShortcuts(close_sequences())  # Ctrl+W (and Ctrl+F4 where that is Close)
        self.act_quit = self._action(file_menu, "&Quit", "Ctrl+Q", self.close)
        edit_menu = self.menuBar().addMenu("&Edit")
        # Ctrl+C copies the focused view's selection; the trace id has its own shortcut
        self.act_copy = self._action(edit_menu, "&Copy", QKeySequence.StandardKey.Copy, self.copy_selection)
        self.act_copy_id = self._action(edit_menu, "Copy Trace &Id", "Ctrl+Shift+C", self.copy_trace_id)
        self.act_filter = self._action(edit_menu, "&Filter Traces", "Ctrl+F", self.focus_filter)
        help_menu = self.menuBar().addMenu("&Help")
        self.act_shortcuts = self._action(help_menu, "&Keyboard Shortcuts", "F1", self.show_shortcuts)
        self._action(help_menu, "&About ctxviewer", "Shift+F1", self.about)

    def _action(self, menu, text, shortcut, slot) -> QAction:  # type: ignore[no-untyped-def]
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        if not paths:
            self.recent_menu.addAction("(none)").setEnabled(False)
        for p in paths:
            act = self.recent_menu.addAction(p)
            act.triggered.connect(lambda _=False, p=p: self.open_recent(p))

    # ------------------------------------------------------------------ opening

    def choose_database(self) -> None:
        """File > Open: ask for a database and open it read-only."""
        path, _ = QFileDialog.getOpenFileName(
            self, "Open trace database", "", "Trace databases (*.db *.sqlite *.sqlite3);;All files (*)"
        )
        if path:
            self.open_database(path)

    def open_recent(self, path: str) -> bool:
        """Open a recent file; a file that no longer exists is removed from the list with a message."""
        if not Path(path).exists():
            self.recent.remove(path)
            self.show_error("File not found", one_line(f"{path} no longer exists; removed from the recent files."))
            return False
        return self.open_database(path)

    def open_database(self, path: str | Path, *, remember: bool = True, show_errors: bool = True) -> bool:
        """Open ``path`` read-only and select its first trace. Returns ``False`` on a
        :class:`StoreError` (shown in a message box naming the file unless ``show_errors`` is False,
        in which case it propagates)."""
        try:
            store = open_store(path)
        except OldSchemaError as exc:  # never upgraded in place: offer an upgraded copy
            if not show_errors:
                raise
            self.upgrade_offer.ask(exc)
            return False
        except StoreError as exc:
            if not show_errors:
                raise
            if self.store is None:  # nothing else to show: the pane names the file and what is wrong
                self._show_nothing(f"Cannot open trace database: {one_line(str(exc))}")
            self.show_error("Cannot open trace database", one_line(str(exc)))
            return False
        if self.store is not None:
            self.store.close()
            self.store = None
        self._use_check_config(path)
        if remember:
            self.recent.add(str(Path(path).resolve()))
        self.set_source(store, Path(path).name, f"{Path(path).resolve()} (read-only)")
        self.sig_database_opened.emit(str(path))
        return True

    def set_source(self, source: TraceSource, name: str, status: str | None = None, *,
                   context_path: str | None = None) -> None:
        """Show the traces of ``source`` -- any implementation of the store interface
        (:class:`~ctxviewer.store.TraceSource`: list, filter, search and detail queries; a second
        backend needs nothing else from the window) -- titled ``name``, and select its first trace.
        :meth:`open_database` passes a read-only SQLite store; ``context_path`` names the database
        whose context the traces are assessed in (``""``: none, the default context, no marks file:
        a ClickHouse store). Closes the source shown before."""
        if context_path:
            self._use_check_config(context_path)
        elif context_path is not None:
            self.context = EMPTY_CONTEXT
            self.panel.tabs.set_database(None)
        if self.store is not None and self.store is not source:
            self.store.close()
        self.store = source
        self._model_fitted = False
        self.loader.set_source(source, self.context)
        self._then = None
        self.trace_model.context = self.context.fingerprint
        self.trace_model.assess_context = self.context  # stale rows recomputed in it, in memory
        self.trace_model.set_store(source)
        self.setWindowTitle(one_line(f"ctxviewer — {name}"))
        self.statusBar().showMessage(one_line(status or f"{name} (read-only)"))
        self.select_row(0)

    # ------------------------------------------------------------------ selection

    def select_row(self, row: int) -> None:
        """Select trace-list row ``row`` (its trace is then loaded and shown); out of range, the
        panes are cleared."""
        if 0 <= row < self.trace_model.rowCount():
            idx = self.trace_model.index(row, 0)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.trace_view.selectionModel().setCurrentIndex(idx, flags)
            self.trace_view.scrollTo(idx)
        else:
            self._show_nothing()

    def select_trace(self, trace_id: str, then: Callable[[RequestTrace], None] | None = None) -> None:
        """Select ``trace_id`` (its row too, if loaded) and show it once loaded; ``then(trace)``
        once it is shown with its assessment (at once when it is shown already; never if a newer
        selection wins). Raises ``KeyError`` if the store has none."""
        if self.store is None:
            raise KeyError(trace_id)
        row = self.trace_model.row_of(trace_id)
        if row is None and self.store.key_of(trace_id) is None:
            raise KeyError(trace_id)
        self._then = (trace_id, then) if then is not None else None
        if row is not None:
            self.select_row(row)
        if self.loader.wanted is None and self.trace is not None and self.trace.trace_id == trace_id:
            self._call_then(self.trace)  # shown already
        else:
            self._load_later(trace_id)

    def _call_then(self, trace: RequestTrace) -> None:
        if self._then is not None and self._then[0] == trace.trace_id:
            then = self._then[1]
            self._then = None
            then(trace)

    def _show_nothing(self, empty_text: str = "No trace selected.") -> None:
        """Clear the right-hand panels (the chart says ``empty_text``); a selection still being
        loaded is dropped."""
        self.loader.cancel()
        self.trace = None
        self.panel.set_trace(None, None, empty_text)

    def wait_shown(self, ms: int = 30_000) -> bool:
        """Block until the selected trace is shown with its assessment, processing events (for a
        caller without an event loop of its own: the screenshot command). Returns whether it is."""
        return self.loader.wait(ms)

    def _on_trace_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        trace_id = self.trace_model.trace_id(current.row()) if current.isValid() else None
        if trace_id is not None and self.store is not None:
            self._load_later(trace_id)

    def _load_later(self, trace_id: str) -> None:
        """Ask the loader for ``trace_id``; the trace shown stays until it arrives (an empty panel
        says what it waits for)."""
        if self.loader.wanted == trace_id:
            return
        self.loader.request(trace_id)
        if self.trace is None:
            self.chart.set_assessment(None, f"Loading {one_line(trace_id)}…")

    def _on_loaded(self, trace: RequestTrace) -> None:
        """A selected trace is read: its items are painted, the assessment follows."""
        self.trace = trace
        self.panel.set_trace(trace, None)
        self.sig_trace_selected.emit(trace.trace_id)

    def _on_assessed(self, trace: RequestTrace, assessment: Assessment) -> None:
        if self.panel.set_assessment(trace, assessment):
            self._call_then(trace)
            self.sig_trace_shown.emit(trace.trace_id)

    def _on_load_failed(self, trace_id: str, message: str) -> None:
        self._then = None
        if self.trace is not None and self.trace.trace_id == trace_id and self.panel.assessing:
            self.panel.assessment_failed(self.trace, message)  # read, but the checks failed
            self.sig_trace_shown.emit(trace_id)
            return
        where = self.store.path if self.store is not None else "the trace database"
        text = one_line(f"{where}: trace {trace_id}: {message}")
        self._show_nothing(f"Cannot load trace: {text}")  # never "Loading…" behind the dialog
        self.show_error("Cannot load trace", text)

    def _fit_columns(self, only: int | None = None) -> None:
        """Size the trace list's shown columns to their titles and the first page's cells
        (:func:`~ctxviewer.gui.tables.fit_columns_to_content`); the trace id takes the rest. Qt's
        ``sizeHintForColumn`` would read a thousand rows: 17-90 ms on the 1M database."""
        if only is None and self._widths_remembered:
            return
        fit_columns_to_content(self.trace_view, TRACE_COLUMNS, "trace_id", PAGE_ROWS, only)

    def _on_section_resized(self, col: int, old: int, new: int) -> None:
        """A column the user showed again (hidden sections have size 0) is sized to its content."""
        if old == 0 and new > 0 and self.trace_model.rowCount():
            self._fit_columns(only=col)

    def _on_list_reset(self) -> None:
        if not self._model_fitted and self.trace_model.rowCount():
            self._model_fitted = True  # once per source: measuring the columns costs 20-90 ms per reset
            self._fit_columns()
        self._show_count()
        n = self.trace_model.rowCount()
        if n == 0:  # nothing matches (once counted): never leave the previous trace on screen
            if self.trace_model.counted:
                self._show_no_match()
            return
        if self.trace is None:  # the list came back (filter cleared or changed): show its first trace
            self.select_row(0)
            return
        self._mark_shown_trace()

    def _mark_shown_trace(self) -> None:
        """Select the shown trace's row without re-showing it (after a re-query; again once every
        row key is read, when its row was not among those read first). A row selected while it
        was still empty (its key not read yet) has its trace shown once the keys are there."""
        current = self.trace_view.selectionModel().currentIndex()
        if self.trace is None and current.isValid():
            self._on_trace_row(current, current)
            return
        if self.trace is None or current.isValid():
            return
        row = self.trace_model.row_of(self.trace.trace_id)
        if row is not None:
            idx = self.trace_model.index(row, 0)
            self.trace_view.selectionModel().blockSignals(True)
            self.trace_view.selectionModel().setCurrentIndex(
                idx, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            self.trace_view.selectionModel().blockSignals(False)
            self.trace_view.viewport().update()

    def _on_list_counted(self) -> None:
        """The model has its keys (a filter or sort read off the GUI thread has finished)."""
        self._show_count()
        if self.trace_model.rowCount() == 0:
            self._show_no_match()
        elif self.trace is None:
            self.select_row(0)

    def _on_rows_arrived(self) -> None:
        """The first page of a filter read off the GUI thread: show its first trace."""
        if self.trace is None and self.trace_model.rowCount():
            self.select_row(0)

    def _show_no_match(self) -> None:
        text = self.filter_edit.text().strip()
        self._show_nothing(f"No trace matches the filter “{text}”." if text else "The database holds no traces.")

    def _show_count(self) -> None:
        """The count under the list: exact once the model has its keys, "counting" before."""
        total = self.trace_model.total
        if not self.trace_model.counted:
            bound = self.trace_model.bound
            self.count_label.setText(f"≤ {bound:,} traces · counting…" if bound else "counting traces…")
            self.count_label.setToolTip("At most this many (the store's fast upper bound); the exact count is "
                                        "being read in the background." if bound else "")
            return
        text = f"{total:,} {'trace' if total == 1 else 'traces'}"
        fresh = self.trace_model.refreshed
        note = getattr(self.store, "filter_note", lambda _t: None)(self.filter_edit.text())
        if note:  # a filter on the assessment of a store that keeps none: it covers the assessed rows
            text += " · of the assessed rows"
        if hasattr(self.store, "assess_rows"):  # a ClickHouse store keeps no facts: rows assessed on demand
            tip = (f"{fresh:,} shown row(s) assessed in this window, as show and check assess them, and kept in "
                   "a local cache keyed by span id and rule set." if fresh else "")
            text += f" · {fresh:,} assessed" if fresh else ""
            tip = f"{tip} The filter reads the assessment: {note}." if note else tip
        else:
            text += f" · {fresh:,} re-assessed with the current settings" if fresh else ""
            tip = (f"{fresh:,} row(s) were stored with other settings (ctxviewer.toml, marks or an older ctxviewer) "
                   "and were re-assessed in this window, as show and check assess them; filters and sorts read "
                   "the stored facts until `ctxviewer upgrade DB -o NEW.db` stores them afresh." if fresh else "")
        self.count_label.setText(text)
        self.count_label.setToolTip(tip.strip())

    # ------------------------------------------------------------------ actions

    def copy_selection(self) -> str | None:
        """Edit > Copy: copy the selection of the focused view (:mod:`ctxviewer.gui.clipboard`);
        returns what was copied (``None``: nothing selected, nothing copied)."""
        text = copy_selection(QApplication.focusWidget())
        if text:
            self.show_status(f"Copied {len(text):,} characters", 3000)
        return text

    def show_shortcuts(self) -> ShortcutsDialog:
        """Help > Keyboard Shortcuts: every menu action with its shortcut."""
        dlg = ShortcutsDialog(self)
        dlg.show()
        return dlg

    def copy_trace_id(self) -> None:
        """Copy the shown trace's id to the clipboard."""
        if self.trace is not None:
            QGuiApplication.clipboard().setText(self.trace.trace_id)
            self.show_status(f"Copied {self.trace.trace_id}", 3000)

    def apply_filter(self) -> None:
        """Re-query the trace list with the filter box's text now (SQL-side filter)."""
        self._filter_timer.stop()
        if self.filter_edit.error is None:  # a filter that does not parse keeps the last good one
            self.trace_model.set_filter(self.filter_edit.text())

    def focus_filter(self) -> None:
        """Focus the filter box and select its text."""
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def about(self) -> None:
        """Help > About."""
        box = QMessageBox(self)
        box.setWindowTitle("About ctxviewer")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(
            f"ctxviewer {__version__}\n\nA desktop debugger for LLM request traces: what each model "
            "request actually sent, its token budget against the context capacity (eq. 3.1), and "
            "which context items were retained or omitted."
        )
        box.exec()

    def _select_from_run(self, trace_id: str) -> None:
        """A model call's row of the Run tab was activated: show that call (said when not stored)."""
        try:
            self.select_trace(trace_id)
        except KeyError:
            self.show_status(f"trace {trace_id} is not in this database", 5000)

    def _use_check_config(self, path: str | Path) -> None:
        """Assess the database's traces in its context: ``ctxviewer.toml`` and the user's marks beside
        it (:func:`ctxviewer.assess.context.context_for_db`, what ``show`` and ``check`` read too);
        a broken file is said and the traces are assessed without it."""
        from ctxviewer.assess.context import EMPTY, context_for_db

        try:
            self.context = context_for_db(Path(path))
        except ValueError as exc:
            self.context = EMPTY
            self.show_error("Check configuration ignored", str(exc))
        self.panel.tabs.set_database(path)

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

    def _on_imported(self, db_path: str) -> None:
        self.open_database(db_path)  # show the result, read-only like any other database

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

    # ------------------------------------------------------------------ drag and drop

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and all(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        event.acceptProposedAction()
        self.open_paths(paths)

    def open_paths(self, paths: list[Path]) -> None:
        """Open a dropped database, or import dropped trace files (asking for the target database)."""
        dbs = [p for p in paths if is_database_file(p)]
        others = [p for p in paths if p not in dbs]
        if dbs:
            self.open_database(dbs[0])
        if others:
            self.importer.choose_and_import([str(p) for p in others])

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if not self.audit.may_close():  # notes not saved yet: the reviewer chose Cancel, or Save failed
            event.ignore()
            return
        if self._sized:
            save_layout(self, self._layout_parts(), self.settings)
        self.importer.cancel()
        self.audit.close()
        self.loader.stop()
        self.trace_model.stop()  # the count and key reads of a big database may still run
        if self.store is not None:
            self.store.close()
            self.store = None
        super().closeEvent(event)
