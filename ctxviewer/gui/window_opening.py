"""Opening in the main window: a database chosen, recent or dropped (read-only, :func:`open_store`),
any :class:`~ctxviewer.store.TraceSource` shown (:meth:`WindowOpening.set_source`), dropped trace
files imported, and the check configuration beside a database used for its traces.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog

from ctxviewer.assess.context import EMPTY as EMPTY_CONTEXT
from ctxviewer.gui.window_part import WindowPart
from ctxviewer.pipeline.hints import open_store
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


class WindowOpening(WindowPart):
    """What the window shows and how it gets there (module docstring): a part of
    :class:`~ctxviewer.gui.main_window.MainWindow`."""

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
            if hasattr(source, "step_path"):  # a ClickHouse store reads its runs itself
                self.panel.tabs.run.set_runs(source)
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

    def _on_imported(self, db_path: str) -> None:
        self.open_database(db_path)  # show the result, read-only like any other database

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
