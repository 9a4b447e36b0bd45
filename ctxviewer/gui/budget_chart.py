"""The budget chart: a trace's tokens per category as stacked horizontal bars against capacity C.

The bars are computed in the core (:func:`ctxviewer.budget.used_bar`, :func:`~ctxviewer.budget.declared_bar`);
this widget only paints them with pyqtgraph:

* ``used``: each input category's retained tokens, then the reserved output, then the margin up to
  C -- or, past C, an "over capacity" segment in red;
* ``declared`` (only when the trace declares a budget): B_sys ... B_out;
* a vertical line at C labelled ``C = 8,000``; no line at all when C is not recorded (the verdict
  then says "capacity not recorded" -- a missing C is never drawn as a guess);
* a legend, and under the plot the eq. 3.1 verdict in words (:func:`ctxviewer.budget.verdict_text`)
  plus "before trimming: over by N" when the candidates did not fit before trimming.

:meth:`BudgetChart.segments` returns what was drawn, so tests assert bar values, not pixels.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..budget import BarSegment, declared_bar, used_bar
from ..columns import fmt_int
from ..model import NOT_RECORDED, LimitMode, RequestTrace
from ..trace_header import numbers_line, verdict_line
from .chart_legend import ChartLegend

COLORS: dict[str, str] = {
    "sys": "#2563eb",
    "hist": "#059669",
    "memory": "#0d9488",
    "evidence": "#d97706",
    "tools": "#7c3aed",
    "user": "#db2777",
    "out": "#475569",
    "margin": "#e5e7eb",
    "over": "#dc2626",
}
"""Fill colour per segment key (category value, ``margin`` or ``over``)."""

_DARK_TEXT = {"margin"}
_BAR_HEIGHT = 0.6
_MIN_LABEL_FRACTION = 0.06
"""A segment narrower than this share of the x range gets no value label (it would not fit)."""


class BudgetChart(QWidget):
    """Stacked-bar chart of one trace's token budget (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._segments: dict[str, list[BarSegment]] = {"used": [], "declared": []}
        self._capacity_line: pg.InfiniteLine | None = None

        self._layout_widget = pg.GraphicsLayoutWidget()
        self._layout_widget.setBackground("w")
        self._layout_widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._layout_widget.setMinimumHeight(150)
        self._plot: pg.PlotItem = self._layout_widget.addPlot(row=0, col=0)
        self._plot.setMenuEnabled(False)
        self._plot.setMouseEnabled(x=False, y=False)
        self._plot.hideButtons()
        for axis in ("left", "bottom"):
            self._plot.getAxis(axis).setTextPen("#374151")
            self._plot.getAxis(axis).setPen("#9ca3af")
        self.legend = ChartLegend()

        self.verdict_label = QLabel()
        self.verdict_label.setObjectName("verdict")
        self.verdict_label.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict_label.setWordWrap(True)
        self.numbers_label = QLabel()
        self.numbers_label.setObjectName("budgetNumbers")
        self.numbers_label.setTextFormat(Qt.TextFormat.PlainText)
        self.numbers_label.setWordWrap(True)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.verdict_label)
        lay.addWidget(self.numbers_label)
        lay.addWidget(self._layout_widget, 1)
        lay.addWidget(self.legend)
        self.set_trace(None)

    # ------------------------------------------------------------------ public API

    def segments(self) -> dict[str, list[BarSegment]]:
        """What is drawn: ``{"used": [...], "declared": [...]}`` (``declared`` empty if none)."""
        return {k: list(v) for k, v in self._segments.items()}

    @property
    def capacity_line(self) -> float | None:
        """x position (tokens) of the capacity line, or ``None`` when C is not drawn."""
        return None if self._capacity_line is None else float(self._capacity_line.value())

    def verdict(self) -> str:
        """The verdict text shown under the chart."""
        return self.verdict_label.text()

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Draw ``trace``'s budget (``None`` clears the chart)."""
        self._plot.clear()
        legend: list[tuple[str, str, bool]] = []
        self._capacity_line = None
        if trace is None:
            self._segments = {"used": [], "declared": []}
            self.legend.set_entries([])
            self._set_verdict("", "unknown")
            self.numbers_label.setText("")
            return
        used = used_bar(trace)
        declared = declared_bar(trace)
        self._segments = {"used": used, "declared": declared}
        text, state = verdict_line(trace)
        self._set_verdict(text, state)
        self.numbers_label.setText(numbers_line(trace))

        rows: list[tuple[str, list[BarSegment]]] = [("used", used)]
        if declared:
            rows.append(("declared", declared))
        ends = [s.start + s.tokens for _, segs in rows for s in segs]
        cap = trace.endpoint.capacity if trace.endpoint.limit_mode is not LimitMode.SEPARATE else None
        x_max = max([*ends, cap or 0, 1]) * 1.03
        n = len(rows)
        seen: set[str] = set()
        for r, (_, segs) in enumerate(rows):
            y = n - 1 - r  # first row on top
            for s in segs:
                self._draw_segment(s, y, declared=r > 0, x_max=x_max)
                if s.key not in seen:
                    legend.append((s.label, COLORS.get(s.key, "#9ca3af"), s.key == "margin"))
                seen.add(s.key)
        if cap is not None:
            self._capacity_line = pg.InfiniteLine(
                pos=cap, angle=90, movable=False, pen=pg.mkPen("#111827", width=2, style=Qt.PenStyle.DashLine),
                label=f"C = {fmt_int(cap)}",
                labelOpts={"position": 0.93, "color": "#111827", "fill": (255, 255, 255, 220), "anchors": [(1, 0.5), (1, 0.5)]},
            )
            self._plot.addItem(self._capacity_line)
        elif trace.endpoint.limit_mode is not LimitMode.SEPARATE:
            note = pg.TextItem(f"capacity {NOT_RECORDED}", color="#6b7280", anchor=(1, 0))  # hangs below the top edge
            note.setPos(x_max, n - 0.5)
            self._plot.addItem(note)
        self._plot.getAxis("left").setTicks([[(n - 1 - r, name) for r, (name, _) in enumerate(rows)]])
        self.legend.set_entries(legend)
        self._plot.setXRange(0, x_max, padding=0)
        self._plot.setYRange(-0.5, n - 0.5, padding=0.05)

    # ------------------------------------------------------------------ internals

    def _set_verdict(self, text: str, state: str) -> None:
        self.verdict_label.setText(text)
        self.verdict_label.setProperty("state", state)
        style = self.verdict_label.style()
        style.unpolish(self.verdict_label)
        style.polish(self.verdict_label)

    def _draw_segment(self, s: BarSegment, y: int, *, declared: bool, x_max: float) -> None:
        color = QColor(COLORS.get(s.key, "#9ca3af"))
        if declared:
            color.setAlpha(120)
        pen: Any = pg.mkPen("#ffffff", width=1)
        if s.key == "margin":
            pen = pg.mkPen("#6b7280", width=1, style=Qt.PenStyle.DashLine)
        bar = pg.BarGraphItem(x0=[s.start], width=[s.tokens], y=[y], height=[_BAR_HEIGHT], brush=color, pen=pen)
        bar.setToolTip(f"{s.label}: {fmt_int(s.tokens)} tokens")
        self._plot.addItem(bar)
        if s.tokens / x_max >= _MIN_LABEL_FRACTION:
            dark = s.key in _DARK_TEXT or declared
            label = pg.TextItem(fmt_int(s.tokens), color="#111827" if dark else "#ffffff", anchor=(0.5, 0.5))
            label.setPos(s.start + s.tokens / 2, y)
            self._plot.addItem(label)
