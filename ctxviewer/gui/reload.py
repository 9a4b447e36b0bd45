"""File › Reload (F5) and the notice that the open database changed on disk.

A :class:`QFileSystemWatcher` watches the open database file and its ``-wal`` companion; when
another process imports into it, the window says so in a bar above the trace list ("The database
changed on disk -- Reload (F5)") instead of silently showing stale rows. Reload re-opens the
database read-only, keeps the filter, and shows the same trace again when it still exists. The
controller talks to the window through :class:`~ctxviewer.gui.window_api.WindowApi`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ctxviewer.gui.window_api import WindowApi

CHANGED_TEXT = "The database changed on disk (another program wrote to it)."
"""What the notice bar says."""
DEBOUNCE_MS = 300
"""Wait this long after the last change event before saying so (an import writes many times)."""


class ReloadController(QObject):
    """The Reload action, the file watcher and the notice bar of ``window``."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.path: Path | None = None
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_changed)
        self.watcher.directoryChanged.connect(self._on_changed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.show_notice)
        self._stamp: tuple[float, ...] = ()
        self.act_reload = QAction("&Reload", window.host)
        self.act_reload.setShortcut(QKeySequence("F5"))
        self.act_reload.setStatusTip("Read the database again (it may have changed on disk)")
        self.act_reload.triggered.connect(self.reload)
        window.menu("&File").insertAction(window.act_quit, self.act_reload)

        self.bar = QWidget()
        self.bar.setObjectName("changedOnDisk")
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel(CHANGED_TEXT)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        button = QPushButton("Reload (F5)")
        button.clicked.connect(self.reload)
        row.addWidget(self.label, 1)
        row.addWidget(button)
        self.bar.hide()
        window.add_to_list_pane(self.bar, above=True)
        window.sig_database_opened.connect(self.watch)

    def _files(self) -> list[Path]:
        if self.path is None:
            return []
        return [p for p in (self.path, Path(str(self.path) + "-wal")) if p.exists()]

    def _current_stamp(self) -> tuple[float, ...]:
        out: list[float] = []
        for p in self._files():
            try:
                st = p.stat()
            except OSError:
                continue
            out += [st.st_mtime, float(st.st_size)]
        return tuple(out)

    def watch(self, path: str) -> None:
        """Watch the database at ``path`` (called when the window opens one); hides the notice."""
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        if self.watcher.directories():
            self.watcher.removePaths(self.watcher.directories())
        self.path = Path(path).resolve()
        self.watcher.addPath(str(self.path.parent))  # a -wal file appearing, or the file replaced
        for p in self._files():
            self.watcher.addPath(str(p))
        self._stamp = self._current_stamp()
        self.bar.hide()

    def _on_changed(self, _path: str) -> None:
        for p in self._files():  # a replaced file or a new -wal is watched afresh
            if str(p) not in self.watcher.files():
                self.watcher.addPath(str(p))
        self._timer.start()

    def changed(self) -> bool:
        """True when the database files differ (time or size) from when they were opened."""
        return self.path is not None and self._current_stamp() != self._stamp

    def show_notice(self) -> None:
        """Show the notice bar if the database really changed since it was opened."""
        if self.changed():
            self.bar.show()
            self.window.show_status(CHANGED_TEXT + " Press F5 to reload.", 10000)

    def reload(self) -> bool:
        """Re-open the database (read-only), keep the filter and show the same trace again if it
        still exists. False when no database is open or it cannot be opened."""
        w = self.window
        store = w.store
        if store is None:
            return False
        path = store.path
        current = w.trace.trace_id if w.trace is not None else None
        if not w.open_database(path, remember=False):
            return False
        if w.filter_text:
            w.apply_filter()
        if current is not None:
            try:
                w.select_trace(current)
            except KeyError:
                pass
        w.show_status(f"Reloaded {path}", 3000)
        return True
