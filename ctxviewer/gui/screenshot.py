"""Render the main window offscreen to a PNG (``ctxviewer screenshot``; docs and bug reports).

:func:`screenshot_window` builds the window exactly as the screenshot shows it (the same widgets
the user sees, rendering the trace's one assessment); :func:`render_screenshot` grabs it to a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from ..store import TraceStore

if TYPE_CHECKING:
    from .main_window import MainWindow


@contextmanager
def screenshot_window(db_path: str | Path, trace_id: str, size: tuple[int, int] = (1280, 800),
                      item_id: str | None = None) -> Iterator[MainWindow]:
    """A shown main window of ``size`` pixels on ``db_path`` (read-only) with ``trace_id``
    selected (and item ``item_id``, else its first item); closed on exit.

    Uses the ``offscreen`` Qt platform when no QApplication exists yet (and ``QT_QPA_PLATFORM``
    is not set). Raises :class:`~ctxviewer.store.StoreError` for a bad database (message names the
    file), ``KeyError`` when the database has no trace ``trace_id`` or the trace no item
    ``item_id``. Does not touch the user's recent-files list.
    """
    with TraceStore.open(db_path) as store:
        trace = store.load(trace_id)  # KeyError before any window exists
    if item_id is not None:
        trace.item(item_id)  # KeyError names the missing item
    if QApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from .app import application
    from .main_window import MainWindow

    app = application()
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings)
        try:
            window.resize(*size)
            window.open_database(db_path, remember=False, show_errors=False)
            window.select_trace(trace_id)
            if item_id is not None:
                window.panel.select_item(item_id)
            window.show()
            for _ in range(3):
                app.processEvents()
            yield window
        finally:
            window.close()
            window.deleteLater()
            app.processEvents()


def render_screenshot(db_path: str | Path, trace_id: str, out_png: str | Path,
                      size: tuple[int, int] = (1280, 800), item_id: str | None = None) -> Path:
    """Save :func:`screenshot_window` ``(db_path, trace_id, size, item_id)`` to ``out_png``
    (the suffix picks PNG, JPEG or BMP). Returns ``Path(out_png)``.

    Raises what :func:`screenshot_window` raises, and ``OSError`` when the image cannot be written.
    """
    out = Path(out_png)
    fmt = out.suffix.lstrip(".").upper() or "PNG"  # the file's name says its format
    with screenshot_window(db_path, trace_id, size, item_id) as window:
        if fmt not in ("PNG", "JPG", "JPEG", "BMP"):
            raise OSError(f"{out}: unsupported image type {out.suffix!r}; use .png, .jpg or .bmp")
        if not window.grab().save(str(out), fmt):
            raise OSError(f"{out}: cannot write the image (does the folder exist and is it writable?)")
    return out
