"""Render the main window offscreen to a PNG (``ctxviewer screenshot``; docs and bug reports)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from ..store import TraceStore


def render_screenshot(db_path: str | Path, trace_id: str, out_png: str | Path,
                      size: tuple[int, int] = (1280, 800), item_id: str | None = None) -> Path:
    """Open ``db_path`` read-only in a main window of ``size`` (width, height) pixels, show
    ``trace_id`` (with item ``item_id`` selected, else its first item), and save the window's
    contents to ``out_png``. Returns ``Path(out_png)``.

    Uses the ``offscreen`` Qt platform when no QApplication exists yet (and ``QT_QPA_PLATFORM``
    is not set). Raises :class:`~ctxviewer.store.StoreError` for a bad database (message names the
    file), ``KeyError`` when the database has no trace ``trace_id`` or the trace no item
    ``item_id``, ``OSError`` when the PNG cannot
    be written. Does not touch the user's recent-files list.
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
                window.item_view.selectRow(window.item_model.row_of(item_id) or 0)
            window.show()
            for _ in range(3):
                app.processEvents()
            pixmap = window.grab()
            out = Path(out_png)
            fmt = out.suffix.lstrip(".").upper() or "PNG"  # the file's name says its format
            if fmt not in ("PNG", "JPG", "JPEG", "BMP"):
                raise OSError(f"{out}: unsupported image type {out.suffix!r}; use .png, .jpg or .bmp")
            if not pixmap.save(str(out), fmt):
                raise OSError(f"{out}: cannot write the image (does the folder exist and is it writable?)")
        finally:
            window.close()
            window.deleteLater()
            app.processEvents()
    return out
