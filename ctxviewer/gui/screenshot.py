"""Render the main window offscreen to a PNG (``ctxviewer screenshot``; docs and bug reports).

:func:`screenshot_window` builds the window exactly as the screenshot shows it (the same widgets
the user sees, rendering the trace's one assessment); :func:`render_screenshot` grabs it to a file.
"""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSettings, Qt
from PySide6.QtWidgets import QApplication

from ctxviewer.pipeline.hints import open_store

if TYPE_CHECKING:
    from ctxviewer.gui.main_window import MainWindow


@contextmanager
def screenshot_window(db_path: str | Path, trace_id: str, size: tuple[int, int] = (1280, 800),
                      item_id: str | None = None, tab: str | None = None,
                      raw: bool = False) -> Iterator[MainWindow]:
    """A shown main window of ``size`` pixels on ``db_path`` (read-only) with ``trace_id``
    selected (and item ``item_id``, else its first item); closed on exit. ``tab`` brings a
    diagnostics tab forward (one of :data:`TABS`); ``raw`` shows messages as raw stored text
    instead of rendered (:mod:`ctxviewer.gui.message_pane`).

    Uses the ``offscreen`` Qt platform when no QApplication exists yet (and ``QT_QPA_PLATFORM``
    is not set). Raises :class:`~ctxviewer.store.StoreError` for a bad database (message names the
    file), ``KeyError`` when the database has no trace ``trace_id`` or the trace no item
    ``item_id``. Does not touch the user's recent-files list.
    """
    with open_store(db_path) as store:
        trace = store.load(trace_id)  # KeyError before any window exists
    if item_id is not None:
        trace.item(item_id)  # KeyError names the missing item
    if QApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from ctxviewer.gui.app import application
    from ctxviewer.gui.control_glyphs import choose_control_markers
    from ctxviewer.gui.main_window import MainWindow
    from ctxviewer.util.visible import use_control_names

    app = application()
    previous = choose_control_markers()  # as the window shows them (main), restored below
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("view/renderedMessages", not raw)
        window = MainWindow(settings=settings)
        try:
            window.resize(*size)
            window.open_database(db_path, remember=False, show_errors=False)
            window.select_trace(trace_id)
            window.wait_shown()  # loaded and assessed off the GUI thread, as in the app
            if item_id is not None:
                window.panel.select_item(item_id)
            if tab is not None:
                window.panel.tabs.pinned = True
                window.panel.tabs.widget.setCurrentIndex(TABS.index(tab))
            window.show()
            app.processEvents()  # on screen: the default split again, for this trace's header and chart
            window.apply_default_sizes()
            window.panel.fit_chart()
            for _ in range(3):
                app.processEvents()
            window.panel.finish_deferred()  # the chart's plot and the colours, built after a paint
            app.processEvents()
            yield window
        finally:
            window.close()  # stops its workers (loader, list reads, audit) and waits for them
            app.processEvents()
            use_control_names(previous)
            # the window is Python's (no parent): dropped here and collected now, while every Qt
            # object it owns still exists, not by a later garbage collection of a deleted widget
            del window
            gc.collect()


TABS = ("items", "conversation", "findings", "tool-calls", "evidence", "run")
"""The diagnostics tabs ``--tab`` names, in tab order (:mod:`ctxviewer.gui.diagnostics_tabs`)."""


@dataclass(frozen=True)
class Shot:
    """A written screenshot: where, its size in image pixels, and the scale it was taken at."""

    path: Path
    """The image file."""
    pixels: tuple[int, int]
    """Width and height of the written image in pixels."""
    logical: tuple[int, int]
    """Width and height of the window in logical (device-independent) pixels: ``--size``."""
    scale: float
    """Image pixels per logical pixel (the device pixel ratio, unless ``--scale`` chose one)."""

    def describe(self) -> str:
        """``"wrote shot.png: 2560×1600 pixels (window 1280×800 logical pixels at scale 2)"``."""
        scale = f"{self.scale:g}"
        return (f"wrote {self.path}: {self.pixels[0]}×{self.pixels[1]} pixels "
                f"(window {self.logical[0]}×{self.logical[1]} logical pixels at scale {scale})")


def write_screenshot(db_path: str | Path, trace_id: str, out_png: str | Path,
                     size: tuple[int, int] = (1280, 800), item_id: str | None = None,
                     scale: float | None = None, tab: str | None = None, raw: bool = False) -> Shot:
    """Save :func:`screenshot_window` ``(db_path, trace_id, size, item_id, tab, raw)`` to ``out_png`` (the
    suffix picks PNG, JPEG or BMP). ``size`` is in logical pixels; the image has ``size × scale``
    pixels, ``scale`` defaulting to the screen's device pixel ratio (2 on a HiDPI screen).

    Raises what :func:`screenshot_window` raises, and ``OSError`` when the image cannot be written
    (the error of ``open`` / ``write``, with its ``errno``; an existing file is never replaced).
    """
    out = Path(out_png)
    fmt = out.suffix.lstrip(".").upper() or "PNG"  # the file's name says its format
    with screenshot_window(db_path, trace_id, size, item_id, tab, raw) as window:
        if fmt not in ("PNG", "JPG", "JPEG", "BMP"):
            raise OSError(f"{out}: unsupported image type {out.suffix!r}; use .png, .jpg or .bmp")
        image = window.grab().toImage()
        ratio = image.devicePixelRatio()
        if scale is not None and abs(scale - ratio) > 1e-6:
            image = image.scaled(round(size[0] * scale), round(size[1] * scale),
                                 Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
            image.setDevicePixelRatio(scale)
            ratio = scale
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, fmt):  # type: ignore[call-overload]  # PySide takes a str format
            raise OSError(f"{out}: Qt cannot encode the image as {fmt}")
        buffer.close()
    _write_new(out, bytes(data.data()))
    return Shot(out, (image.width(), image.height()), size, ratio)


def _write_new(out: Path, data: bytes) -> None:
    """Write ``data`` to the new file ``out`` (``open(..., "xb")``: never an existing file), removed
    again when the write fails midway (a full disk leaves no half image). Raises the ``OSError``
    of ``open`` or ``write`` unchanged, its ``errno`` saying why (the CLI words it)."""
    with open(out, "xb") as fh:
        try:
            fh.write(data)
        except BaseException:
            fh.close()
            out.unlink(missing_ok=True)
            raise


def render_screenshot(db_path: str | Path, trace_id: str, out_png: str | Path,
                      size: tuple[int, int] = (1280, 800), item_id: str | None = None,
                      scale: float | None = None) -> Path:
    """:func:`write_screenshot`, returning only ``Path(out_png)``."""
    return write_screenshot(db_path, trace_id, out_png, size, item_id, scale).path
