"""The main window's actions and menus: File (Open, Open Recent, Import, Close, Quit), Edit (Copy,
Copy Trace Id, Filter Traces) and Help (Keyboard Shortcuts, About), each :class:`QAction` with its
shortcut, and the slots only these actions call. The controllers add their own menus and actions
through :meth:`~ctxviewer.gui.window_api.WindowApi.menu`; a new action of the window itself goes here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox

from ctxviewer import __version__
from ctxviewer.gui.clipboard import copy_selection
from ctxviewer.gui.shortcuts_help import ShortcutsDialog
from ctxviewer.gui.window_keys import close_sequences
from ctxviewer.gui.window_part import WindowPart


class WindowActions(WindowPart):
    """The window's own menus and actions (module docstring): a part of
    :class:`~ctxviewer.gui.main_window.MainWindow`, built by :meth:`_build_menus` in its ``__init__``."""

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
