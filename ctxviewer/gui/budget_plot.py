"""The pyqtgraph part of the budget chart: the plot of one :class:`~ctxviewer.assess.assessment.BudgetFigure`.

:class:`~ctxviewer.gui.budget_chart.BudgetChart` keeps its words, numbers and legend in ordinary Qt
widgets and builds this plot only after the first screen has been painted (importing
pyqtgraph, and with it numpy, takes a third of a second), or at once when a caller needs what was
drawn. :func:`draw` paints a figure and derives nothing: every position comes from the core.
"""

from __future__ import annotations

from typing import Any, Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QSizePolicy

from ctxviewer.assess.assessment import BudgetFigure
from ctxviewer.assess.bars import BarSegment
from ctxviewer.model.words import fmt_int
from ctxviewer.util.axis_labels import tick_labels

DARK_TEXT = {"margin", "over"}
"""Segment keys whose value label is dark (drawn on a light fill)."""
LEFT_EDGE_SHARE = 0.2
"""A limit line left of this share of the range has its label on its right (else on its left)."""
OVER_ALPHA = 110
"""Opacity (of 255) of the "over capacity" segment: it lies on the categories and the reserved
output past C, which stay visible beneath it (an opaque red hid the 500 reserved tokens of a call
over C by 112,319)."""
BAR_HEIGHT = 0.6
"""Bar thickness in row units."""
MIN_LABEL_FRACTION = 0.06
"""A segment narrower than this share of the x range gets no value label (it would not fit); a
label longer than :data:`LABEL_CHARS` characters needs that much more room in proportion."""
LABEL_CHARS = 5
"""Characters of a value label that :data:`MIN_LABEL_FRACTION` holds ("1,200")."""
LABEL_ROOM = 0.7
"""Room above the top bar (in rows) for the ``C = 16,000`` label and the note, so they never
cover a bar or its value (in ``history-16k`` the label hid the reserved output's value)."""


class TokenAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """A token axis labelled ``2k 4k`` / ``0.5M 1M`` with separators (:mod:`ctxviewer.util.axis_labels`)."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return tick_labels([v * scale for v in values], spacing * scale)


class BudgetPlot:
    """A white ``pg.GraphicsLayoutWidget`` (:attr:`widget`, at least ``min_height`` pixels) with
    one plot (:attr:`plot`), token x axis, no mouse interaction."""

    def __init__(self, min_height: int) -> None:
        self.widget = pg.GraphicsLayoutWidget()
        self.widget.setBackground("w")
        self.widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.widget.setMinimumHeight(min_height)
        self.plot: pg.PlotItem = self.widget.addPlot(row=0, col=0, axisItems={"bottom": TokenAxis(orientation="bottom")})
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTextPen("#374151")
            self.plot.getAxis(axis).setPen("#9ca3af")
        self.capacity_line: float | None = None
        """x (tokens) of the drawn capacity line, or ``None``."""
        self.input_limit_line: float | None = None
        """x (tokens) of the drawn input-limit line, or ``None``."""
        self.x_end = 0.0
        """Right end (tokens) of the drawn x range (0 when nothing is drawn)."""

    def draw(self, fig: BudgetFigure | None, colors: dict[str, str], tooltip: Callable[[BarSegment, str], str],
             zoomed: bool = False) -> None:
        """Clear the plot and draw ``fig`` (nothing for ``None``): each row's segments in
        ``colors`` (omitted rows hatched, declared rows translucent) with hover text
        ``tooltip(segment, row name)``, C and the input limit as dashed vertical lines, the
        figure's note, row names on the left axis. ``zoomed`` (honoured when the figure offers
        :attr:`~ctxviewer.assess.assessment.BudgetFigure.zoom_x_max`) ends the x range there: the
        lines past it are named at the right edge with an arrow (``C = 128,000 →``)."""
        self.plot.clear()
        self.capacity_line = self.input_limit_line = None
        self.x_end = 0.0
        if fig is None:
            return
        x_end = fig.zoom_x_max if zoomed and fig.zoom_x_max is not None else fig.x_max
        self.x_end = x_end
        n = len(fig.rows)
        for r, (row, segs) in enumerate(fig.rows):
            over = next((s.start for s in segs if s.key == "over"), None)  # C, where the overflow starts
            for s in segs:
                label_end = over if over is not None and s.key != "over" else x_end
                self._segment(s, n - 1 - r, row, x_end, colors, tooltip, label_end)  # first row on top
        past = [f"{name} = {fmt_int(x)} \u2192" for name, x in (("C", fig.capacity_line),
                                                                  ("input limit", fig.input_limit_line))
                if x is not None and x > x_end]
        if past:  # off the zoomed range: named at its right edge, never drawn where they are not
            off = pg.TextItem("   ".join(past), color="#111827", fill=(255, 255, 255, 220), anchor=(1, 0))
            off.setPos(x_end, n - 0.5 + LABEL_ROOM)
            self.plot.addItem(off)
        if fig.capacity_line is not None:
            self.capacity_line = float(self._vline(fig.capacity_line, f"C = {fmt_int(fig.capacity_line)}").value())
        if fig.input_limit_line is not None:
            line = self._vline(fig.input_limit_line, f"input limit = {fmt_int(fig.input_limit_line)}")
            self.input_limit_line = float(line.value())
        if fig.note is not None:
            note = pg.TextItem(fig.note, color="#6b7280", anchor=(1, 0))  # hangs below the top edge
            note.setPos(x_end, n - 0.5 + LABEL_ROOM)
            self.plot.addItem(note)
        self.plot.getAxis("left").setTicks([[(n - 1 - r, name) for r, (name, _) in enumerate(fig.rows)]])
        self.plot.setXRange(0, x_end, padding=0)
        self.plot.setYRange(-0.5, n - 0.5 + LABEL_ROOM, padding=0)

    def _vline(self, x: int, label: str) -> pg.InfiniteLine:
        # the label hangs from the top, in the room above the bars: left of the line, or right of it
        # when the line is near the left edge (C = 8,192 of a 120,511-token bar read "8,192" there)
        side = (1, 0) if x >= LEFT_EDGE_SHARE * self.x_end else (0, 0)
        line = pg.InfiniteLine(
            pos=x, angle=90, movable=False, pen=pg.mkPen("#111827", width=2, style=Qt.PenStyle.DashLine),
            label=label,
            labelOpts={"position": 1.0, "color": "#111827", "fill": (255, 255, 255, 220), "anchors": [side, side]},
        )
        self.plot.addItem(line)
        return line

    def _segment(self, s: BarSegment, y: int, row: str, x_max: float, colors: dict[str, str],
                 tooltip: Callable[[BarSegment, str], str], label_end: float) -> None:
        """Draw ``s`` in row ``y`` of a range ending at ``x_max``; its value label is centred on the
        part before ``label_end`` (C for a segment the overflow lies on), and left out when that part
        is narrower than :data:`MIN_LABEL_FRACTION` of the range."""
        color = QColor(colors.get(s.key, "#9ca3af"))
        declared, omitted = row == "declared", row == "omitted"
        if declared:
            color.setAlpha(120)
        pen: Any = pg.mkPen("#ffffff", width=1)
        brush: Any = color
        if s.key == "margin":
            pen = pg.mkPen("#6b7280", width=1, style=Qt.PenStyle.DashLine)
        if s.key == "over":  # laid over the input and B_out past C: translucent, so they still show through
            over = QColor(color)
            over.setAlpha(OVER_ALPHA)
            pen, brush = pg.mkPen(color, width=2), over
        if omitted:  # what was dropped: outlined in the category's colour, hatched inside
            pen = pg.mkPen(color, width=1.5)
            brush = QBrush(color, Qt.BrushStyle.BDiagPattern)
        bar = pg.BarGraphItem(x0=[s.start], width=[s.tokens], y=[y], height=[BAR_HEIGHT], brush=brush, pen=pen)
        bar.setToolTip(tooltip(s, row))
        self.plot.addItem(bar)
        shown = min(s.start + s.tokens, x_max, label_end) - s.start  # a zoomed range may cut the margin
        text = fmt_int(s.tokens) + (" \u2192" if s.start + s.tokens > x_max else "")
        if shown / x_max >= MIN_LABEL_FRACTION * max(1.0, len(text) / LABEL_CHARS):
            dark = s.key in DARK_TEXT or declared or omitted
            label = pg.TextItem(text, color="#111827" if dark else "#ffffff", anchor=(0.5, 0.5))
            label.setPos(s.start + shown / 2, y)
            self.plot.addItem(label)

