"""Keys that close a window: Esc and Ctrl+W (the platform's Close key) on every secondary window,
Ctrl+W on the main window and the audit dock (where Esc already means "leave the note")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


def close_sequences() -> list[QKeySequence]:
    """Ctrl+W first, then the platform's other Close keys (``QKeySequence.StandardKey.Close``:
    Ctrl+F4 on Windows and KDE; some platforms list only Ctrl+F4 there)."""
    keys = [QKeySequence("Ctrl+W")]
    for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Close):
        if k not in keys:
            keys.append(k)
    return keys


def add_close_keys(window: QWidget, esc: bool = True, ctrl_w: bool = True) -> list[QShortcut]:
    """Make Ctrl+W and the platform's Close keys (:func:`close_sequences`, if ``ctrl_w``: off where
    a menu action has them already) and, if ``esc``, Esc close ``window``
    (its ``close()``: a window that asks before closing still asks). The keys act anywhere inside
    the window (``Qt.WidgetWithChildrenShortcut``), so a docked widget's keys stay inside the dock.
    Returns the shortcuts (kept by ``window`` as their parent)."""
    groups = ([close_sequences()] if ctrl_w else []) + ([[QKeySequence(Qt.Key.Key_Escape)]] if esc else [])
    shortcuts = []
    for keys in groups:
        sc = QShortcut(window)
        sc.setKeys(keys)
        sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sc.activated.connect(window.close)
        shortcuts.append(sc)
    return shortcuts
