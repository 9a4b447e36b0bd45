"""Help › Keyboard Shortcuts (F1): every menu action with its shortcut, read from the menu bar
itself, so the page can never miss an action or show a stale key."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.window_keys import add_close_keys

DYNAMIC_MENUS = frozenset({"Open Recent"})
"""Submenus filled at run time with paths (no shortcuts, not actions to learn)."""


def _clean(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").rstrip(".").strip()


def menu_actions(window: QMainWindow) -> list[tuple[str, str, QAction]]:
    """``(menu title, action text, action)`` for every action in the menu bar's menus, in menu
    order, separators and the dynamic submenus (:data:`DYNAMIC_MENUS`) left out."""
    out: list[tuple[str, str, QAction]] = []

    def walk(menu: QMenu, title: str) -> None:
        for act in menu.actions():
            if act.isSeparator():
                continue
            sub = act.menu()
            if isinstance(sub, QMenu):
                if _clean(act.text()) not in DYNAMIC_MENUS:
                    walk(sub, f"{title} › {_clean(act.text())}")
                continue
            out.append((title, _clean(act.text()), act))

    for top in window.menuBar().actions():
        sub = top.menu()
        if isinstance(sub, QMenu):
            walk(sub, _clean(top.text()))
    return out


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str, str]]:
    """``(menu, action, shortcut)`` rows of the page; the shortcut in the platform's native
    wording (``"Ctrl+Shift+C"``), ``""`` for an action without one."""
    return [(m, t, a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)) for m, t, a in menu_actions(window)]


class ShortcutsDialog(QDialog):
    """The Keyboard Shortcuts page: a read-only table Menu | Action | Shortcut."""

    def __init__(self, window: QMainWindow, parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.setWindowTitle("Keyboard Shortcuts")
        rows = shortcut_rows(window)
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Menu", "Action", "Shortcut"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        add_close_keys(self, esc=False, ctrl_w=True)  # a dialog closes on Esc already
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(560, 520)
