"""The window's offer to write an upgraded copy of an older trace database.

A database opened for viewing is read-only and never upgraded in place
(:class:`~ctxviewer.store.OldSchemaError`). :class:`UpgradeOffer` asks whether to write an upgraded
copy, lets the user choose the new file, runs :func:`ctxviewer.pipeline.backfill.upgrade_with_facts` off the GUI
thread (:class:`~ctxviewer.gui.worker.Task`) and reports the copy with ``sig_upgraded(str path)``;
the window then opens the copy (read-only, like any database).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from ctxviewer.gui.importer import show_message
from ctxviewer.gui.worker import Task
from ctxviewer.store import OldSchemaError


class UpgradeOffer(QObject):
    """Ask, choose a target, write the upgraded copy. ``parent`` is the window."""

    sig_upgraded = Signal(str)
    """The upgraded copy was written at this path."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._window = parent
        self.task: Task | None = None
        """The running or last copy job."""

    def ask(self, error: OldSchemaError) -> QMessageBox:
        """Show the non-blocking question for the database ``error`` names. Returns the box."""
        box = QMessageBox(
            QMessageBox.Icon.Question, "Older trace database",
            f"{error.path} was written by an older ctxviewer (schema {error.version}).\n\n"
            "Databases opened for viewing are never changed, so it is not upgraded in place. "
            "Write an upgraded copy to a new file and open that?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self._window,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda result: self._answered(result, error.path))
        box.open()
        return box

    def choose_target(self, source: Path) -> str | None:
        """Ask for the new file (default: ``<name>-upgraded.db`` beside the source); ``None`` if cancelled."""
        default = source.with_name(f"{source.stem}-upgraded{source.suffix or '.db'}")
        path, _ = QFileDialog.getSaveFileName(
            self._window, "Write upgraded copy", str(default), "Trace databases (*.db *.sqlite *.sqlite3)")
        return path or None

    def write_copy(self, source: str | Path, target: str | Path) -> Task:
        """Write the upgraded copy off the GUI thread; ``sig_upgraded`` on success, a message on failure."""
        from ctxviewer.pipeline.backfill import upgrade_with_facts  # the importers: only for an upgrade

        task = Task(lambda _progress, _cancelled: upgrade_with_facts(source, target), self)
        task.sig_finished.connect(lambda result: self.sig_upgraded.emit(str(result.path)))
        task.sig_failed.connect(lambda msg: show_message(self._window, "Cannot write the upgraded copy", msg))
        self.task = task
        task.start()
        return task

    def _answered(self, result: int, source: Path) -> None:
        if result != QMessageBox.StandardButton.Yes:
            return
        target = self.choose_target(source)
        if target:
            self.write_copy(source, target)
