"""Per-category tokens of A and B as paired horizontal bars, with each delta written beside them.

Paints :attr:`ctxviewer.diff.TraceDiff.allocations` (computed in the core); :meth:`DeltaChart.bars`
returns what was drawn (category, tokens of A and B, delta text). A category whose use is not recorded
gets no bar and the delta "not recorded".
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from ctxviewer.assess.budget import CATEGORY_LABELS
from ctxviewer.diff import TraceDiff
from ctxviewer.diff.result import CategoryDelta
from ctxviewer.gui.budget_chart import COLORS

_H = 0.38
"""Bar height (rows are 1 apart): A above, B below."""


def delta_text(c: CategoryDelta) -> str:
    """``"+0"``, ``"-120"`` or ``"not recorded"``."""
    return "not recorded" if c.delta is None else f"{c.delta:+,}"


class DeltaChart(QWidget):
    """Tokens used per eq. 3.1 category in A (grey) and B (category colour), delta as text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._widget = pg.PlotWidget(background="w")
        self._widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._widget.setMinimumHeight(140)
        self._plot = self._widget.getPlotItem()
        self._plot.setMenuEnabled(False)
        self._plot.setMouseEnabled(x=False, y=False)
        self._plot.hideButtons()
        self._plot.setTitle("tokens: A grey, B colour, B − A", color="#374151", size="9pt")
        for axis in ("left", "bottom"):
            self._plot.getAxis(axis).setTextPen("#374151")
            self._plot.getAxis(axis).setPen("#9ca3af")
        self._plot.getViewBox().invertY(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._widget)
        self._bars: list[tuple[str, int | None, int | None, str]] = []

    def bars(self) -> list[tuple[str, int | None, int | None, str]]:
        """What is drawn: ``(category value, used A, used B, delta text)`` top to bottom."""
        return list(self._bars)

    def set_diff(self, diff: TraceDiff | None) -> None:
        """Draw ``diff.allocations`` (``None`` clears)."""
        self._plot.clear()
        self._bars = []
        if diff is None:
            return
        cats = list(diff.allocations)
        x_max = max([v for c in cats for v in (c.used_a, c.used_b) if v is not None] + [1])
        ticks = []
        for n, c in enumerate(cats):
            self._bars.append((c.category.value, c.used_a, c.used_b, delta_text(c)))
            ticks.append((n, CATEGORY_LABELS[c.category]))
            if c.used_a is not None:
                self._plot.addItem(pg.BarGraphItem(x0=[0], y=[n - _H / 2], height=_H, width=[c.used_a],
                                                   brush="#9ca3af", pen=pg.mkPen("#6b7280")))
            if c.used_b is not None:
                color = COLORS.get(c.category.value, "#2563eb")
                self._plot.addItem(pg.BarGraphItem(x0=[0], y=[n + _H / 2], height=_H, width=[c.used_b],
                                                   brush=color, pen=pg.mkPen(color)))
            end = max(v for v in (c.used_a, c.used_b, 0) if v is not None)
            label = pg.TextItem(delta_text(c), color="#111827" if c.delta else "#6b7280", anchor=(0, 0.5))
            label.setPos(end + x_max * 0.01, n)
            self._plot.addItem(label)
        self._plot.getAxis("left").setTicks([ticks])
        self._plot.setXRange(0, x_max * 1.15, padding=0)
        self._plot.setYRange(-0.6, max(len(cats) - 0.4, 0.6), padding=0)
