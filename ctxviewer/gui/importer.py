"""Import from the GUI: choose files and a target database, then run the import off the GUI thread.

The import itself is :func:`ctxviewer.pipeline.importing.import_into` -- the same call as ``ctxviewer import``:
it creates the database, imports in one transaction, and removes a database it created when nothing
was imported -- run by a :class:`~ctxviewer.gui.worker.Task`, so its writable
:class:`~ctxviewer.store.TraceStore` connection lives in the worker thread.
A :class:`QProgressDialog` shows files done / total, and under its label what a long step inside
one file is doing ("counting tokens: 40 % of 52.4 million characters", a huge item), and its
Cancel button cancels the run (the import is one transaction, so a cancelled run writes nothing).

Signals: ``sig_imported(str db_path)`` when traces were written; ``sig_finished(object report)``
after every run that returned an :class:`~ctxviewer.pipeline.importing.ImportReport`; ``sig_failed(str)``
when the run raised (the message names the file, e.g. a :class:`~ctxviewer.store.StoreError`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from ctxviewer.gui.worker import Cancelled, Progress, Task
from ctxviewer.util.visible import reveal

if TYPE_CHECKING:  # the importers load when an import runs, not before the window's first screen
    from ctxviewer.pipeline.importing import ImportReport


class _Activity(QObject):
    """Carries :func:`ctxviewer.util.interrupt.progress` messages from the import thread to the GUI thread."""

    sig_activity = Signal(str)


IMPORT_FILTER = ("Trace files (*.json *.jsonl *.ndjson *.gz *.pb *.binpb *.eval *.yaml *.yml);;All files (*)")
"""File › Import's filter: every container the importers read (JSON, JSON Lines, gzip, binary OTLP
protobuf, Inspect ``.eval`` zips, recorded HTTP cassettes); the format is detected by content."""
MAX_PROBLEMS_SHOWN = 20
"""Import problems listed in the message box; the rest are counted."""


def show_message(parent: QWidget, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning) -> QMessageBox:
    """A non-blocking, window-modal plain-text message box (never rich text), control characters
    in ``text`` (a file name with ESC in it) made visible (:func:`ctxviewer.util.visible.reveal`).
    Returns the box (open; it deletes itself when closed)."""
    box = QMessageBox(icon, title, reveal(text).text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def problems_text(report: ImportReport) -> str:
    """The import problems in words, one per line, each naming the file and record."""
    lines = [str(p) for p in report.problems[:MAX_PROBLEMS_SHOWN]]
    rest = len(report.problems) - len(lines)
    if rest > 0:
        lines.append(f"... and {rest} more")
    partial = report.partial()  # data left out: the words the CLI's summary line uses
    head = (
        f"Imported {report.imported:,} traces from {report.files_imported} of {report.files} files; "
        f"{len(report.problems)} problems" + (f" ({partial})" if partial else "") + ":"
    )
    text = head + "\n\n" + "\n".join(lines) if report.problems else head.rsplit(";", 1)[0] + "."
    if report.notes:  # what was done, nothing wrong (log records joined their spans)
        text += "\n\nNotes:\n" + "\n".join(str(n) for n in report.notes)
    unmapped = report.unmapped_lines()
    if unmapped:  # what the files hold that ctxviewer did not map (named, never lost in silence)
        text += "\n\nNot mapped (each trace's Attributes pane lists its own, ctxviewer.unmapped):\n" + "\n".join(unmapped)
    return text


def _sentence(text: str | None) -> str:
    """``"no traces imported; removed x.db, ..."`` -> ``"No traces imported; removed x.db, ...."``."""
    text = text or ""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


class ImportController(QObject):
    """Runs GUI imports for ``window`` (its dialogs are parented to it)."""

    sig_imported = Signal(str)
    sig_finished = Signal(object)
    sig_failed = Signal(str)

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self.task: Task | None = None
        self.progress: QProgressDialog | None = None
        self.activity = _Activity(self)
        """Emits ``sig_activity(str)`` in the GUI thread for each step report of the running import."""
        self.activity.sig_activity.connect(self._show_activity)
        self._label = ""

    def choose_and_import(self, paths: list[str] | None = None) -> None:
        """Ask for trace files (unless given) and a database to import them into, then import."""
        if not paths:
            paths, _ = QFileDialog.getOpenFileNames(self._window, "Import trace files", "", IMPORT_FILTER)
        if not paths:
            return
        db, _ = QFileDialog.getSaveFileName(
            self._window, "Import into trace database (new or existing)", "traces.db",
            "Trace databases (*.db);;All files (*)", options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if db:
            self.import_into(paths, db)

    def import_into(self, paths: list[str], db_path: str, fmt: str | None = None) -> Task:
        """Import ``paths`` into ``db_path`` (created if new) off the GUI thread. Returns the task."""
        if self.task is not None and not self.task.done:
            raise RuntimeError("an import is already running")

        emit = self.activity.sig_activity.emit  # from the worker thread; shown in the GUI thread

        from ctxviewer.pipeline.importing import import_into

        def job(progress: Progress, cancelled: Cancelled) -> ImportReport:
            return import_into(db_path, paths, fmt=fmt, progress=progress, cancelled=cancelled, activity=emit)

        task = Task(job, self)
        self._label = f"Importing {len(paths)} files into {Path(db_path).name}…"
        dlg = QProgressDialog(self._label, "Cancel", 0, max(1, len(paths)), self._window)
        dlg.setWindowTitle("Import")
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(300)
        dlg.setAutoClose(False)
        dlg.setAutoReset(False)
        dlg.canceled.connect(task.cancel)
        task.sig_progress.connect(lambda done, total: (dlg.setMaximum(max(1, total)), dlg.setValue(done)))
        task.sig_finished.connect(lambda report: self._finished(db_path, report))
        task.sig_failed.connect(lambda msg: self._failed(msg))
        self.task, self.progress = task, dlg
        task.start()
        return task

    def cancel(self) -> None:
        """Cancel a running import (used when the window closes) and wait for its thread."""
        if self.task is not None and not self.task.done:
            self.task.cancel()
            self.task.wait()

    def _show_activity(self, text: str) -> None:
        if self.progress is not None:
            self.progress.setLabelText(f"{self._label}\n{text}")

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.canceled.disconnect()
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None

    def _finished(self, db_path: str, report: Any) -> None:
        self._close_progress()
        outcome = report.outcome()
        if report.cancelled:
            self._message("Import cancelled", _sentence(outcome), QMessageBox.Icon.Information)
        elif outcome is not None:  # nothing imported: say why, and whether the new database was removed
            details = "\n\n" + problems_text(report) if report.problems else ""
            self._message("Nothing imported", _sentence(outcome) + details)
        elif report.problems:
            self._message("Import problems", problems_text(report))
        elif report.unmapped or report.notes:
            self._message("Import notes", problems_text(report), QMessageBox.Icon.Information)
        self.sig_finished.emit(report)
        if report.imported and not report.cancelled:
            self.sig_imported.emit(db_path)

    def _failed(self, message: str) -> None:
        self._close_progress()
        self._message("Import failed", message)
        self.sig_failed.emit(message)

    def _message(self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning) -> None:
        show_message(self._window, title, text, icon)
