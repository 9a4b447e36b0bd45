"""Offer to reload when the open database changes on disk (issue 12: readers and writers together).

The window reads a database read-only while ``ctxviewer import`` (or another window) may write to
it. :class:`ReloadOffer` watches the open file (``QFileSystemWatcher``) and, when its size or
modification time changes, shows a notice in the status bar -- "The database changed on disk" --
with a **Reload** button that reopens it (read-only, as always) and selects the same trace again.
Nothing reloads by itself: what the reviewer is looking at never changes under them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer
from PySide6.QtWidgets import QLabel, QPushButton

CHANGED = "The database changed on disk (another import wrote to it)."
"""The notice shown next to the Reload button."""


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


class ReloadOffer(QObject):
    """Watches the window's open database and offers a reload when it changes (module docstring)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self._path: str | None = None
        self._stamp: tuple[int, int] | None = None
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._check)
        self._watcher.directoryChanged.connect(self._check)  # a file replaced by rename
        self.label = QLabel(CHANGED)
        self.button = QPushButton("Reload")
        self.button.clicked.connect(self.reload)
        bar = window.statusBar()
        bar.addPermanentWidget(self.label)
        bar.addPermanentWidget(self.button)
        self._show(False)
        window.sig_database_opened.connect(self.watch)

    @property
    def offered(self) -> bool:
        """Whether the notice and the Reload button are showing."""
        return not self.label.isHidden()

    def watch(self, path: str) -> None:
        """Watch ``path`` (the database just opened) and hide any earlier notice."""
        old = self._watcher.files() + self._watcher.directories()
        if old:
            self._watcher.removePaths(old)
        self._path = str(Path(path).resolve())
        self._stamp = _stamp(self._path)
        self._watcher.addPath(self._path)
        self._watcher.addPath(str(Path(self._path).parent))
        self._show(False)

    def _check(self, _changed: str = "") -> None:
        if self._path is None:
            return
        if self._path not in self._watcher.files() and os.path.exists(self._path):
            self._watcher.addPath(self._path)  # replaced by rename: watch the new file
        if _stamp(self._path) != self._stamp:
            self._show(True)

    def check_now(self) -> None:
        """Compare the file with what was opened now (tests; the watcher calls it on change)."""
        self._check()

    def reload(self) -> None:
        """Reopen the database read-only and select the trace that was selected."""
        if self._path is None:
            return
        trace = getattr(self._window, "trace", None)
        keep = trace.trace_id if trace is not None else None
        if self._window.open_database(self._path, remember=False) and keep is not None:
            QTimer.singleShot(0, lambda: self._window.select_trace(keep))

    def _show(self, on: bool) -> None:
        self.label.setVisible(on)
        self.button.setVisible(on)
