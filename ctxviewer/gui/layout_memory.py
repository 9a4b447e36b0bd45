"""Remember the window's layout between runs: geometry, splitter sizes, and each table's
column widths, order and hidden columns, kept in QSettings under ``layout/``.

:func:`save_layout` runs when the window closes; :func:`restore_layout` when it is first shown
(falling back to the window's default sizes when nothing was saved, or when the saved state is
from another version of the layout: :data:`LAYOUT_VERSION`). Column state is Qt's own
``QHeaderView.saveState`` blob, so widths, order and hidden sections come back together. The
window passes its parts by name (its splitters and table headers), so this module knows no window.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QHeaderView, QSplitter, QWidget

LAYOUT_VERSION = 3
"""Bumped when widgets are added or moved, so an old saved layout is not applied to a new window."""
PREFIX = "layout/"

Part = QSplitter | QHeaderView
"""What keeps a state of its own: a splitter (its sizes) or a table header (widths, order, hidden)."""


def save_layout(window: QWidget, parts: Mapping[str, Part], settings: QSettings) -> None:
    """Write the geometry of ``window`` and the state of each of its ``parts`` (name -> splitter
    or header view) to ``settings``. A header's name should carry its column count, so a table
    that gained columns starts from its defaults instead of a mismatched state."""
    settings.setValue(PREFIX + "version", LAYOUT_VERSION)
    settings.setValue(PREFIX + "geometry", window.saveGeometry())
    for name, part in parts.items():
        settings.setValue(PREFIX + name, part.saveState())
    settings.sync()


def restore_layout(window: QWidget, parts: Mapping[str, Part], settings: QSettings) -> bool:
    """Apply a layout saved by :func:`save_layout` to ``window`` and its ``parts``. Returns False
    (and changes nothing) when none was saved or it belongs to another :data:`LAYOUT_VERSION`."""
    raw = settings.value(PREFIX + "version", 0)
    try:
        version = int(raw) if isinstance(raw, (int, str)) else 0
    except ValueError:
        return False
    if version != LAYOUT_VERSION:
        return False
    geometry = settings.value(PREFIX + "geometry")
    if isinstance(geometry, QByteArray):
        window.restoreGeometry(geometry)
    for name, part in parts.items():
        state = settings.value(PREFIX + name)
        if isinstance(state, QByteArray):
            part.restoreState(state)
    return True
