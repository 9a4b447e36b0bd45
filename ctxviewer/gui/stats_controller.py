"""**Trace › Statistics…** (Ctrl+Alt+S): the menu entry, and the statistics window
(:class:`~ctxviewer.gui.stats_view.StatsView`, built on first use) over the trace list's current
filter. The controller talks to the window through :class:`~ctxviewer.gui.window_api.WindowApi`;
the aggregate (:meth:`ctxviewer.store.TraceStore.aggregate`) runs on a read-only connection of its
own.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from ctxviewer.gui.window_api import WindowApi
from ctxviewer.gui.window_keys import add_close_keys
from ctxviewer.store import StoreError, TraceQuery, TraceStore
from ctxviewer.store.filters import FilterError
from ctxviewer.util.visible import one_line

if TYPE_CHECKING:
    from ctxviewer.gui.stats_view import StatsView


class StatsController(QObject):
    """**Trace › Statistics…** (Ctrl+Alt+S): the statistics window over the list's current filter."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.view: StatsView | None = None
        self.act = QAction("&Statistics…", window.host)
        self.act.setShortcut(QKeySequence("Ctrl+Alt+S"))
        self.act.triggered.connect(self.open)
        window.menu("&Trace").addAction(self.act)

    def open(self) -> None:
        """Compute and show the statistics of the current filter (grouped as the window's picker says)."""
        source = self.window.store
        if source is None:
            self.window.show_status("Open a database first.")
            return
        if self.view is None:
            from ctxviewer.gui.stats_view import StatsView  # pyqtgraph: on first use, not at start-up

            self.view = StatsView()
            self.view.resize(1100, 700)
            add_close_keys(self.view)
            self.view.by.currentTextChanged.connect(lambda _t: self.refresh())
        self.refresh()
        self.view.show()
        self.view.raise_()

    def refresh(self) -> None:
        """Recompute the statistics (the filter box's text, the picked grouping)."""
        source, view = self.window.store, self.view
        if source is None or view is None:
            return
        text = self.window.filter_text
        try:
            with TraceStore.open(Path(source.path)) as store:
                total, groups = store.aggregate(TraceQuery(text=text), view.by.currentText())
        except (FilterError, StoreError, OSError) as exc:
            view.note.setText(one_line(f"cannot compute: {exc}"))
            return
        view.show_groups(total, groups, one_line(f"{total.calls:,} traces" + (f" matching {text}" if text else "")))
