"""The audit view in the main window: a dock opened from **Review › Audit Findings** (Ctrl+Shift+A),
and **File › Export Findings…** (Ctrl+Shift+E), which writes the open database's findings with the
reviewer's verdicts as SARIF 2.1.0 (:mod:`ctxviewer.report.sarif`, the same as ``ctxviewer check --format
sarif``), off the GUI thread.

:class:`AuditController` owns the dock and its :class:`~ctxviewer.gui.audit_view.AuditView`,
follows the database the window opens (``sig_database_opened``), asks before the window closes
with notes not saved yet (:meth:`AuditController.may_close`: Save / Discard / Cancel), and closes
the review file when it does. Installed by the main window with one call; it talks to the window through
:class:`~ctxviewer.gui.window_api.WindowApi`.

The first time it opens, the dock floats as its own window over the main window (like an
expert-info dialog): docked below the trace panel at 1280x800 it left neither the queue nor the
budget chart room to be read. The user can dock it (double-click its title) and it stays there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMessageBox, QWidget

from ctxviewer.gui.window_api import WindowApi
from ctxviewer.gui.window_keys import add_close_keys
from ctxviewer.gui.worker import Task
from ctxviewer.pipeline.hints import open_store

if TYPE_CHECKING:
    from ctxviewer.gui.audit_view import AuditView


def ask_unsaved(parent: QWidget, count: int) -> str:
    """Ask what to do with ``count`` notes not saved yet: ``"save"``, ``"discard"`` or ``"cancel"``
    (also for Esc or the box closed)."""
    box = QMessageBox(QMessageBox.Icon.Question, "Unsaved notes",
                      f"{count} note(s) in the audit view are not saved in the review file yet.", parent=parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setInformativeText("Save them, discard them, or cancel closing?")
    box.setStandardButtons(QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                           | QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Save)
    box.setEscapeButton(QMessageBox.StandardButton.Cancel)
    answer = box.exec()
    return {int(QMessageBox.StandardButton.Save): "save",
            int(QMessageBox.StandardButton.Discard): "discard"}.get(int(answer), "cancel")


class AuditController(QObject):
    """The Review menu, the audit dock, and which database it shows."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.db_path: Path | None = None
        self.review_file: Path | None = None
        """``--review-file`` of the launch: the review file of every database opened (``None``:
        :func:`ctxviewer.review.location.review_location` decides per database)."""
        self._view: AuditView | None = None  # built when the dock is first shown (start-up)
        host = window.host
        self.dock = QDockWidget("Audit findings", host)
        self.dock.setObjectName("auditDock")
        host.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        # Ctrl+W closes the dock when it floats as a window of its own (docked, it is the main
        # window's key); Esc stays the note editor's "leave the note"
        (close_key,) = add_close_keys(self.dock, esc=False)
        close_key.setEnabled(False)
        self.dock.topLevelChanged.connect(close_key.setEnabled)
        menu = window.menu("&Review")
        self.act_audit = QAction("&Audit Findings…", host)
        self.act_audit.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.act_audit.triggered.connect(self.open_audit)
        menu.addAction(self.act_audit)
        self.act_export = QAction("&Export Findings (SARIF)…", host)
        self.act_export.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.act_export.triggered.connect(self.choose_export)
        window.menu("&File").addAction(self.act_export)
        self._placed = False
        self.export_task: Task | None = None
        window.sig_database_opened.connect(self._on_database)

    @property
    def view(self) -> AuditView:
        """The audit view in the dock (built on first use)."""
        if self._view is None:
            from ctxviewer.gui.audit_view import AuditView

            self._view = AuditView(settings=self.window.settings)
            self.dock.setWidget(self._view)
        return self._view

    def _on_database(self, path: str) -> None:
        self.db_path = Path(path)
        if self.dock.isVisible():
            self.view.load(self.db_path, self.review_file)

    def open_audit(self) -> None:
        """Show the dock on the open database (collecting its findings if not done yet)."""
        if self.db_path is None:
            self.window.show_status("Open a trace database first (File > Open).")
            return
        if not self._placed:
            self._placed = True
            self.place_floating()
        self.dock.show()
        self.dock.raise_()
        if self.dock.isFloating():
            self.dock.activateWindow()
        if self.view.db_path != self.db_path:
            self.view.load(self.db_path, self.review_file)
        self.view.table.setFocus()

    def place_floating(self) -> None:
        """Float the dock over the main window: 90 % of its width and 85 % of its height, centred."""
        g = self.window.host.geometry()
        w, h = max(640, int(g.width() * 0.9)), max(420, int(g.height() * 0.85))
        self.dock.setFloating(True)
        self.dock.setGeometry(g.x() + (g.width() - w) // 2, g.y() + (g.height() - h) // 2, w, h)

    def choose_export(self) -> None:
        """Ask for a .sarif file and export to it."""
        if self.db_path is None:
            self.window.show_status("Open a trace database first (File > Open).")
            return
        suggested = str(self.db_path.with_suffix(".sarif"))
        path, _ = QFileDialog.getSaveFileName(self.window.host, "Export findings as SARIF", suggested,
                                              "SARIF (*.sarif *.sarif.json);;All files (*)")
        if path:
            self.export_findings(path)

    def export_findings(self, path: str | Path) -> Task | None:
        """Write every finding of the open database, with verdicts as suppressions, to ``path``
        (SARIF 2.1.0) in the background; the status bar says when it is done or what failed."""
        if self.db_path is None:
            return None
        db, out, review_file = self.db_path, Path(path), self.review_file

        def job(progress, cancelled):  # type: ignore[no-untyped-def]
            from ctxviewer.report.sarif import assess_db, db_reviews, sarif_log, write_sarif

            with open_store(db) as store:
                results = assess_db(store, None, progress, cancelled)
            log = sarif_log(results, db_reviews(db, review_file), db.resolve().as_uri())
            write_sarif(out, log)
            return len(log["runs"][0]["results"]), len(results)

        def done(result: object) -> None:
            assert isinstance(result, tuple)
            n, traces = int(result[0]), int(result[1])
            self.window.show_status(f"exported {n} finding(s) from {traces} trace(s) to {out} (SARIF 2.1.0)")

        def failed(message: str) -> None:
            self.window.show_status(f"cannot export findings to {out}: {message}")

        task = Task(job, self)
        task.sig_progress.connect(lambda d, t: self.window.show_status(f"exporting findings… {d} of {t} traces"))
        task.sig_finished.connect(done)
        task.sig_failed.connect(failed)
        self.export_task = task
        task.start()
        return task

    def may_close(self) -> bool:
        """Whether the window may close: with notes not saved yet (:class:`~ctxviewer.review.pending.PendingNotes`)
        it asks Save / Discard / Cancel (:func:`ask_unsaved`). Save that fails for a note shows why
        on the view's error line, shows the view, and keeps the window open."""
        if self._view is None:
            return True
        view = self._view
        view.keep_typed_note()
        if not len(view.pending):
            return True
        choice = ask_unsaved(self.window.host, len(view.pending))
        if choice == "cancel":
            return False
        if choice == "discard":
            view.pending.discard_all()
            return True
        if not view.save_pending():
            return True
        self.dock.show()
        self.dock.raise_()
        return False

    def close(self) -> None:
        """Stop collecting and close the review file (the window is closing)."""
        if self._view is not None:
            self._view.close_review()
        if self.export_task is not None:
            self.export_task.cancel()
            self.export_task.wait()
