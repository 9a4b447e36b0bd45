"""**Trace › What-if…** (Ctrl+Shift+W): the menu entry and the what-if window on the main window's
selected trace (:class:`~ctxviewer.gui.whatif_panel.WhatIfPanel`).

The window, and with it the trimming builder and :mod:`ctxviewer.builder.whatif`, is built when first
opened, not with the main window (start-up time). The controller talks to the window through
:class:`~ctxviewer.gui.window_api.WindowApi`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence

from ctxviewer.gui.window_api import WindowApi
from ctxviewer.gui.window_keys import add_close_keys

if TYPE_CHECKING:
    from ctxviewer.gui.whatif_panel import WhatIfPanel


class WhatIfController(QObject):
    """**Trace › What-if…** (Ctrl+Shift+W): a what-if window on the main window's selected trace."""

    sig_replay = Signal(object)
    """The what-if window's Replay… (``RequestTrace``: the re-trimmed request to send)."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self._panel: WhatIfPanel | None = None
        menu = window.menu("&Trace")
        self.act = QAction("&What-if…", window.host)
        self.act.setShortcut(QKeySequence("Ctrl+Shift+W"))
        self.act.triggered.connect(self.open)
        menu.addAction(self.act)
        window.sig_trace_selected.connect(
            lambda _tid: self._panel is not None and self._panel.isVisible() and self._load())

    @property
    def panel(self) -> WhatIfPanel:
        """The what-if window (built on first use)."""
        if self._panel is None:
            from ctxviewer.gui.whatif_panel import WhatIfPanel

            self._panel = WhatIfPanel()
            self._panel.setWindowTitle("ctxviewer — what-if")
            self._panel.resize(1280, 800)
            add_close_keys(self._panel)  # Esc / Ctrl+W close the what-if window
            self._panel.sig_replay.connect(self.sig_replay)
        return self._panel

    def _load(self) -> None:
        store = self.window.store
        self.panel.set_trace(self.window.trace, Path(store.path) if store is not None else None)

    def open(self) -> None:
        """Show the what-if window on the selected trace."""
        if self.window.trace is None:
            self.window.show_status("Select a trace first.")
            return
        self._load()
        self.panel.show()
        self.panel.raise_()
