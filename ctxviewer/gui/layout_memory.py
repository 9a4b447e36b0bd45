"""Remember the window's layout between runs (issue 13): geometry, splitter sizes, and each table's
column widths, order and hidden columns, kept in QSettings under ``layout/``.

:func:`save_layout` runs when the window closes; :func:`restore_layout` when it is first shown
(falling back to the window's default sizes when nothing was saved, or when the saved state is
from another version of the layout: :data:`LAYOUT_VERSION`). Column state is Qt's own
``QHeaderView.saveState`` blob, so widths, order and hidden sections come back together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings

if TYPE_CHECKING:
    from ctxviewer.gui.main_window import MainWindow

LAYOUT_VERSION = 2
"""Bumped when widgets are added or moved, so an old saved layout is not applied to a new window."""
PREFIX = "layout/"


def _parts(window: MainWindow) -> dict[str, object]:
    """Name -> the splitter or header view whose state is kept. A header's name carries its column
    count, so a table that gained columns starts from its defaults instead of a mismatched state."""
    panel = window.panel
    trace_header, item_header = window.trace_view.horizontalHeader(), panel.item_view.horizontalHeader()
    return {
        "main_splitter": window.splitter,
        "trace_splitter": panel.splitter,
        "content_answer_splitter": panel.bottom,
        f"trace_columns_{trace_header.count()}": trace_header,
        f"item_columns_{item_header.count()}": item_header,
    }


def save_layout(window: MainWindow, settings: QSettings) -> None:
    """Write the window geometry and every splitter's and table header's state to ``settings``."""
    settings.setValue(PREFIX + "version", LAYOUT_VERSION)
    settings.setValue(PREFIX + "geometry", window.saveGeometry())
    for name, part in _parts(window).items():
        settings.setValue(PREFIX + name, part.saveState())  # type: ignore[attr-defined]
    settings.sync()


def restore_layout(window: MainWindow, settings: QSettings) -> bool:
    """Apply a layout saved by :func:`save_layout`. Returns False (and changes nothing) when none
    was saved or it belongs to another :data:`LAYOUT_VERSION`."""
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
    for name, part in _parts(window).items():
        state = settings.value(PREFIX + name)
        if isinstance(state, QByteArray):
            part.restoreState(state)  # type: ignore[attr-defined]
    return True
