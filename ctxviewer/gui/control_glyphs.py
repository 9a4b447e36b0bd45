"""Readable control characters in the window when its font has no Unicode control pictures.

The core shows ESC, BEL, CR, NUL as control pictures (``␛ ␇ ␍ ␀``, U+2400 block;
:mod:`ctxviewer.util.visible`). Many installed fonts lack that block, and Qt then draws a box for each,
so the reviewer cannot tell which character is there. :func:`choose_control_markers` asks the
font (``QFontMetrics.inFontUcs4``) and, when any picture is missing, switches the display markers
to names (``⟨ESC⟩ ⟨BEL⟩ ⟨CR⟩``, the ``⟨ZWSP⟩``/``⟨RLO⟩`` style) for the window's process. The
stored text and the CLI's output are not changed.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication

from ctxviewer.util.visible import use_control_names

PROBES = (0x241B, 0x2407, 0x240D, 0x2400)
"""Control pictures probed: ESC, BEL, CR, NUL."""


def has_control_pictures(font: QFont) -> bool:
    """True when ``font`` itself has a glyph for each of :data:`PROBES`."""
    metrics = QFontMetrics(font)
    return all(metrics.inFontUcs4(cp) for cp in PROBES)


def choose_control_markers(font: QFont | None = None) -> bool:
    """Use named markers (``⟨ESC⟩``) when ``font`` (default: the application font) lacks a control
    picture, else the pictures. Returns the previous setting, for
    :func:`ctxviewer.util.visible.use_control_names` to restore."""
    if font is None:
        font = QApplication.font()
    return use_control_names(not has_control_pictures(font))
