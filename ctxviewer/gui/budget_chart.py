"""The budget chart: a trace's tokens per category as stacked horizontal bars against capacity C.

The chart paints a core :class:`~ctxviewer.assessment.BudgetFigure` (bars, C line or note, x
range) and the assessment's state, verdict and numbers; it derives nothing itself. It shows:

* ``used``: each input category's retained tokens, then the reserved output, then the margin up to
  C -- or, past C, an "over capacity" segment in red;
* ``declared`` (only when the trace declares a budget): B_sys ... B_out;
* a vertical line at C labelled ``C = 8,000``; no line at all when C is not recorded (the figure's
  note "capacity not recorded" instead -- a missing C is never drawn as a guess); with separate
  limits a line at the input limit;
* a legend, and above the plot the state (OK / WARNING / FAILURE) and the verdict in words
  (:attr:`ctxviewer.assessment.Assessment.verdict`), then the numbers line.

:meth:`BudgetChart.segments` returns what was drawn, so tests assert bar values, not pixels.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from ..assessment import Assessment, BudgetFigure, assess
from ..axis_labels import tick_labels
from ..budget import BarSegment
from ..columns import fmt_int
from ..finding_view import state_headline
from ..model import RequestTrace
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

LEGEND_ORDER: tuple[str, ...] = ("sys", "hist", "memory", "evidence", "tools", "user", "out", "margin", "over", "omitted")
"""Legend entries always in this order (those present), whatever the trace: categories in eq. 3.1
order, reserved output, margin, overflow, then the hatched "omitted" swatch."""
OMITTED_LEGEND = "omitted (hatched)"
"""Legend label of the omitted row's swatch."""
EMPTY_TEXT = "No trace selected."
PLOT_MIN_PX = 150
"""The plot's minimum height in pixels (three bars and the axis)."""
"""What the chart says when it shows no trace."""

_DARK_TEXT = {"margin"}
_BAR_HEIGHT = 0.6
_MIN_LABEL_FRACTION = 0.06
"""A segment narrower than this share of the x range gets no value label (it would not fit)."""


class TokenAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """A token axis labelled ``2k 4k`` / ``0.5M 1M`` with separators (:mod:`ctxviewer.axis_labels`)."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return tick_labels([v * scale for v in values], spacing * scale)


class BudgetChart(QWidget):
    """Stacked-bar chart of one trace's token budget (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._segments: dict[str, list[BarSegment]] = {"used": [], "omitted": [], "declared": []}
        self._tooltips: list[str] = []
        self._capacity_line: pg.InfiniteLine | None = None
        self._input_limit_line: pg.InfiniteLine | None = None
        self._figure: BudgetFigure | None = None

        self._layout_widget = pg.GraphicsLayoutWidget()
        self._layout_widget.setBackground("w")
        self._layout_widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._layout_widget.setMinimumHeight(PLOT_MIN_PX)
        self._plot: pg.PlotItem = self._layout_widget.addPlot(
            row=0, col=0, axisItems={"bottom": TokenAxis(orientation="bottom")})
        self._plot.setMenuEnabled(False)
        self._plot.setMouseEnabled(x=False, y=False)
        self._plot.hideButtons()
        for axis in ("left", "bottom"):
            self._plot.getAxis(axis).setTextPen("#374151")
            self._plot.getAxis(axis).setPen("#9ca3af")
        self.legend = ChartLegend()

        self.state_label = QLabel()
        self.state_label.setObjectName("state")
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
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
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(6)
        top.addWidget(self.state_label, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.verdict_label, 1)
        lay.addLayout(top)
        lay.addWidget(self.numbers_label)
        self.empty_label = QLabel(EMPTY_TEXT)
        self.empty_label.setObjectName("chartEmpty")
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._layout_widget)
        self._stack.addWidget(self.empty_label)
        lay.addWidget(self._stack, 1)
        lay.addWidget(self.legend)
        self.set_trace(None)

    # ------------------------------------------------------------------ public API

    def segments(self) -> dict[str, list[BarSegment]]:
        """What is drawn: ``{"used": [...], "omitted": [...], "declared": [...]}`` (``omitted`` and
        ``declared`` empty if the trace has none)."""
        return {k: list(v) for k, v in self._segments.items()}

    def tooltips(self) -> list[str]:
        """The hover text of each drawn bar segment, in drawing order (exact token counts)."""
        return list(self._tooltips)

    def needed_height(self) -> int:
        """Pixels the chart needs at its current width: the verdict as wrapped, the numbers line,
        :data:`PLOT_MIN_PX` of plot and the legend."""
        w = max(200, self.width())
        lay = self.layout()
        spacing = lay.spacing() if lay is not None else 2
        verdict = self.verdict_label.heightForWidth(max(100, w - self.state_label.sizeHint().width() - 6))
        numbers = self.numbers_label.heightForWidth(w) if self.numbers_label.text() else 0
        legend = self.legend.sizeHint().height() if self.legend.labels() else 0
        return max(verdict, 0) + max(numbers, 0) + PLOT_MIN_PX + legend + 4 * spacing

    def is_empty(self) -> bool:
        """True while the chart shows its empty state (no plot, no axis) instead of a trace."""
        return self._stack.currentWidget() is self.empty_label

    @property
    def capacity_line(self) -> float | None:
        """x position (tokens) of the capacity line, or ``None`` when C is not drawn."""
        return None if self._capacity_line is None else float(self._capacity_line.value())

    def verdict(self) -> str:
        """The verdict text shown under the chart."""
        return self.verdict_label.text()

    def state(self) -> str:
        """The state symbol and word shown before the verdict (``"✔ OK"``, ``"⚠ WARNING"``, ``"✖ FAILURE"``; ``""`` if empty)."""
        return self.state_label.text()

    @property
    def figure(self) -> BudgetFigure | None:
        """The figure drawn (from the core), or ``None`` when empty."""
        return self._figure

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Draw ``trace``'s budget (``None`` clears the chart); assesses it. Prefer
        :meth:`set_assessment` when the assessment is already at hand."""
        self.set_assessment(assess(trace) if trace is not None else None)

    def set_assessment(self, assessment: Assessment | None, empty_text: str = EMPTY_TEXT) -> None:
        """Paint ``assessment.figure`` and its verdict, state and numbers; ``None`` shows the empty
        state (``empty_text`` in place of the plot, no axis). Derives nothing: every position and
        word comes from the core."""
        self._plot.clear()
        self._capacity_line = None
        self._input_limit_line = None
        self._tooltips = []
        if assessment is None:
            self._figure = None
            self._segments = {"used": [], "omitted": [], "declared": []}
            self.legend.set_entries([])
            self._set_verdict("", "", "")
            self.numbers_label.setText("")
            self.empty_label.setText(empty_text)
            self._stack.setCurrentWidget(self.empty_label)
            return
        self._stack.setCurrentWidget(self._layout_widget)
        fig = assessment.figure
        self._figure = fig
        self._segments = {"used": list(fig.used), "omitted": list(fig.omitted), "declared": list(fig.declared)}
        self._set_verdict(assessment.verdict, assessment.state.value, state_headline(assessment.state))  # symbol + word (issue 9)
        self.numbers_label.setText(assessment.numbers)

        legend: dict[str, tuple[str, str, str]] = {}
        n = len(fig.rows)
        for r, (row, segs) in enumerate(fig.rows):
            y = n - 1 - r  # first row on top
            for s in segs:
                self._draw_segment(s, y, row=row, x_max=fig.x_max)
                legend.setdefault(s.key, (s.label, COLORS.get(s.key, "#9ca3af"), "dashed" if s.key == "margin" else "solid"))
        if fig.omitted:
            legend["omitted"] = (OMITTED_LEGEND, "#6b7280", "hatched")
        if fig.capacity_line is not None:
            self._capacity_line = self._vline(fig.capacity_line, f"C = {fmt_int(fig.capacity_line)}")
        if fig.input_limit_line is not None:
            self._input_limit_line = self._vline(
                fig.input_limit_line, f"input limit = {fmt_int(fig.input_limit_line)}")
        if fig.note is not None:
            note = pg.TextItem(fig.note, color="#6b7280", anchor=(1, 0))  # hangs below the top edge
            note.setPos(fig.x_max, n - 0.5)
            self._plot.addItem(note)
        self._plot.getAxis("left").setTicks([[(n - 1 - r, name) for r, (name, _) in enumerate(fig.rows)]])
        self.legend.set_entries([legend[k] for k in LEGEND_ORDER if k in legend])
        self._plot.setXRange(0, fig.x_max, padding=0)
        self._plot.setYRange(-0.5, n - 0.5, padding=0.05)

    @property
    def input_limit_line(self) -> float | None:
        """Separate limits: x position (tokens) of the input-limit line, or ``None``."""
        return None if self._input_limit_line is None else float(self._input_limit_line.value())

    # ------------------------------------------------------------------ internals

    def _vline(self, x: int, label: str) -> pg.InfiniteLine:
        line = pg.InfiniteLine(
            pos=x, angle=90, movable=False, pen=pg.mkPen("#111827", width=2, style=Qt.PenStyle.DashLine),
            label=label,
            labelOpts={"position": 0.93, "color": "#111827", "fill": (255, 255, 255, 220),
                       "anchors": [(1, 0.5), (1, 0.5)]},
        )
        self._plot.addItem(line)
        return line

    def _set_verdict(self, text: str, state: str, word: str) -> None:
        self.verdict_label.setText(text)
        self.state_label.setText(word)
        for label in (self.verdict_label, self.state_label):
            label.setProperty("state", state)
            style = label.style()
            style.unpolish(label)
            style.polish(label)

    def _draw_segment(self, s: BarSegment, y: int, *, row: str, x_max: float) -> None:
        color = QColor(COLORS.get(s.key, "#9ca3af"))
        declared, omitted = row == "declared", row == "omitted"
        if declared:
            color.setAlpha(120)
        pen: Any = pg.mkPen("#ffffff", width=1)
        brush: Any = color
        if s.key == "margin":
            pen = pg.mkPen("#6b7280", width=1, style=Qt.PenStyle.DashLine)
        if omitted:  # what was dropped: outlined in the category's colour, hatched inside
            pen = pg.mkPen(color, width=1.5)
            brush = QBrush(color, Qt.BrushStyle.BDiagPattern)
        bar = pg.BarGraphItem(x0=[s.start], width=[s.tokens], y=[y], height=[_BAR_HEIGHT], brush=brush, pen=pen)
        what = {"omitted": " omitted", "declared": " declared", "used": "" if s.key in ("margin", "over", "out") else " retained"}[row]
        tip = f"{s.label}: {fmt_int(s.tokens)} tokens{what}"
        bar.setToolTip(tip)
        self._tooltips.append(tip)
        self._plot.addItem(bar)
        if s.tokens / x_max >= _MIN_LABEL_FRACTION:
            dark = s.key in _DARK_TEXT or declared or omitted
            label = pg.TextItem(fmt_int(s.tokens), color="#111827" if dark else "#ffffff", anchor=(0.5, 0.5))
            label.setPos(s.start + s.tokens / 2, y)
            self._plot.addItem(label)
