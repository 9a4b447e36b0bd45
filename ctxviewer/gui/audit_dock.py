"""The audit view in the main window: a dock opened from **Review › Audit Findings** (Ctrl+Shift+A).

:class:`AuditController` owns the dock and its :class:`~ctxviewer.gui.audit_view.AuditView`,
follows the database the window opens (``sig_database_opened``) and closes the review file when
the window closes. Installed by the main window with one call.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow

from .audit_view import AuditView


class AuditController(QObject):
    """The Review menu, the audit dock, and which database it shows."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.db_path: Path | None = None
        self.view = AuditView()
        self.dock = QDockWidget("Audit findings", window)
        self.dock.setObjectName("auditDock")
        self.dock.setWidget(self.view)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        menu = window.menuBar().addMenu("&Review")
        self.act_audit = QAction("&Audit Findings…", window)
        self.act_audit.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.act_audit.triggered.connect(self.open_audit)
        menu.addAction(self.act_audit)
        opened = getattr(window, "sig_database_opened", None)
        if opened is not None:
            opened.connect(self._on_database)

    def _on_database(self, path: str) -> None:
        self.db_path = Path(path)
        if self.dock.isVisible():
            self.view.load(self.db_path)

    def open_audit(self) -> None:
        """Show the dock on the open database (collecting its findings if not done yet)."""
        if self.db_path is None:
            self.window.statusBar().showMessage("Open a trace database first (File > Open).")
            return
        self.dock.show()
        self.dock.raise_()
        if self.view.db_path != self.db_path:
            self.view.load(self.db_path)
        self.view.table.setFocus()

    def close(self) -> None:
        """Stop collecting and close the review file (the window is closing)."""
        self.view.close_review()
