"""The position test's curve: accuracy per position with its Wilson 95 % interval as error bars
(pyqtgraph), drawn from :func:`ctxviewer.replay.position_report.curve` -- every number comes from
the core. The y axis is accuracy 0-1; the x axis the positions tested.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QSizePolicy

from ctxviewer.replay.position_report import curve
from ctxviewer.replay.stats import Analysis

LINE = "#2563eb"
"""The curve's colour; the error bars are drawn in :data:`BARS`."""
BARS = "#374151"


class PositionChart:
    """A white :class:`pg.PlotWidget` (:attr:`widget`); :meth:`draw` shows one analysis."""

    def __init__(self) -> None:
        self.widget = pg.PlotWidget(background="w")
        self.widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.widget.setMinimumHeight(220)
        self.plot = self.widget.getPlotItem()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setLabel("left", "accuracy")
        self.plot.setLabel("bottom", "position")
        self.plot.setYRange(0, 1.05, padding=0)
        self.points: list[tuple[int, float, float, float]] = []
        """What is drawn: ``(position, accuracy, low, high)`` per position."""

    def draw(self, analysis: Analysis | None, title: str = "") -> None:
        """Draw ``analysis`` (``None``: clear)."""
        self.plot.clear()
        self.points = curve(analysis) if analysis is not None else []
        self.plot.setTitle(title, color="#111827")
        if not self.points:
            return
        xs = [float(p[0]) for p in self.points]
        ys = [p[1] for p in self.points]
        import numpy as np  # pyqtgraph's own dependency

        self.plot.addItem(pg.ErrorBarItem(x=np.array(xs), y=np.array(ys), top=np.array([p[3] - p[1] for p in self.points]),
                                          bottom=np.array([p[1] - p[2] for p in self.points]), beam=0.3,
                                          pen=pg.mkPen(BARS, width=1.5)))
        self.plot.plot(xs, ys, pen=pg.mkPen(LINE, width=2), symbol="o", symbolBrush=LINE, symbolPen=LINE)
        self.plot.getAxis("bottom").setTicks([[(x, f"{int(x)}") for x in xs]])
        pad = max(1.0, (max(xs) - min(xs)) * 0.05)
        self.plot.setXRange(min(xs) - pad, max(xs) + pad, padding=0)
