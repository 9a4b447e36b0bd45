"""The budget chart: a trace's tokens per category as stacked horizontal bars against capacity C.

The chart paints a core :class:`~ctxviewer.assess.assessment.BudgetFigure` (bars, C line or note, x
range) and the assessment's state, verdict and numbers; it derives nothing itself. It shows:

* ``used``: each input category's retained tokens, then the reserved output, then the margin up to
  C -- or, past C, an "over capacity" segment in red;
* ``declared`` (only when the trace declares a budget): B_sys ... B_out;
* a vertical line at C labelled ``C = 8,000``; no line at all when C is not recorded (the figure's
  note "capacity not recorded" instead -- a missing C is never drawn as a guess); with separate
  limits a line at the input limit;
* zoomed to the categories (:attr:`~ctxviewer.assess.assessment.BudgetFigure.zoom_x_max`, on by
  default, Items > Zoom Chart to the Items, Ctrl+Shift+B) when they fill under a tenth of the range:
  168 tokens against C = 128,000 are otherwise under a pixel; C is then named at the right edge
  (``C = 128,000 →``) and the margin's label ends in an arrow;
* a legend, and above the plot the state (OK / WARNING / FAILURE), the verdict in words
  (:attr:`ctxviewer.assess.assessment.Assessment.verdict`) and the numbers, two lines each.

:meth:`BudgetChart.segments` returns what was drawn (the bar values), :meth:`~BudgetChart.tooltips` their hover texts.

Start-up: the words, numbers and legend are Qt widgets painted at once; the pyqtgraph plot
(:mod:`ctxviewer.gui.budget_plot`: pyqtgraph and numpy, 0.4 to 0.7 s) is imported in a background
thread after the first paint (:func:`~ctxviewer.gui.background_import.import_in_background`) and
built then, or at once by :meth:`BudgetChart.ensure_plot`; a blank placeholder holds its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QFontMetrics, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from ctxviewer.assess.assessment import Assessment, BudgetFigure
from ctxviewer.assess.bars import BarSegment
from ctxviewer.gui.background_import import import_in_background
from ctxviewer.gui.chart_legend import ChartLegend
from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.model.words import fmt_int
from ctxviewer.present.finding_view import state_headline
from ctxviewer.util.visible import one_line

if TYPE_CHECKING:
    import pyqtgraph as pg

    from ctxviewer.gui.budget_plot import BudgetPlot

COLORS: dict[str, str] = {
    "sys": "#2563eb",
    "hist": "#059669",
    "memory": "#0d9488",
    "evidence": "#d97706",
    "tools": "#7c3aed",
    "user": "#db2777",
    "out": "#475569",
    "margin": "#e5e7eb",
    "unaccounted": "#a8a29e",
    "over": "#dc2626",
}
"""Fill colour per segment key (category value, ``margin`` or ``over``)."""

LEGEND_ORDER: tuple[str, ...] = ("sys", "hist", "memory", "evidence", "tools", "user", "out", "unaccounted", "margin", "over",
                                 "omitted")
"""Legend entries always in this order (those present), whatever the trace: categories in eq. 3.1
order, reserved output, margin, overflow, then the hatched "omitted" swatch."""
OMITTED_LEGEND = "omitted (hatched)"
"""Legend label of the omitted row's swatch."""
EMPTY_TEXT = "No trace selected."
"""What the chart says when it shows no trace."""
PLOT_MODULE = "ctxviewer.gui.budget_plot"
"""The module of the pyqtgraph plot (imports pyqtgraph and numpy)."""
PLOT_MIN_PX = 150
"""The plot's height in pixels (up to three bars and the axis)."""
ZOOM_SHORTCUT = "Ctrl+Shift+B"
"""Items > Zoom Chart to the Items (:attr:`BudgetChart.act_zoom`)."""
VERDICT_LINES = 2
"""Lines the verdict may take; a longer verdict is elided there and said in full in its tooltip."""
NUMBERS_LINES = 2
"""Lines the numbers (input + output of C, the declared safety margin) may take; then elided."""


class BudgetChart(QWidget):
    """Stacked-bar chart of one trace's token budget (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._segments: dict[str, list[BarSegment]] = {"used": [], "omitted": [], "declared": []}
        self._tooltips: list[str] = []
        self._figure: BudgetFigure | None = None
        self._plotter: BudgetPlot | None = None  # built after the first paint (ensure_plot)
        self._build_pending = False
        self._draw_due = False  # the plot shows an older figure; drawn on the next loop turn (_flush)
        self._placeholder = QWidget()  # holds the plot's place until it is built
        self._placeholder.setMinimumHeight(PLOT_MIN_PX)
        self._placeholder.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._placeholder.setStyleSheet("background: white;")
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
        self.numbers_label.setWordWrap(True), self.numbers_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self._verdict_text = ""  # in full; the label may show it elided (_elide)
        self._numbers_text = ""

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(6)
        top.addWidget(self.state_label, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.verdict_label, 1)
        lay.addLayout(top)
        self.act_zoom = QAction("&Zoom Chart to the Items", self)
        self.act_zoom.setIconText("Zoom to items")  # the button's words (the menu says the whole name)
        self.act_zoom.setCheckable(True)
        self.act_zoom.setChecked(True)
        self.act_zoom.setShortcut(QKeySequence(ZOOM_SHORTCUT))
        self.act_zoom.setStatusTip("When the items fill under a tenth of the chart, show them across it "
                                   "(C is then named at the right edge)")
        self.act_zoom.toggled.connect(lambda _on: self._redraw_later())
        self.zoom_button = QToolButton()
        self.zoom_button.setDefaultAction(self.act_zoom)
        self.zoom_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        numbers = QHBoxLayout()
        numbers.setContentsMargins(0, 0, 0, 0)
        numbers.addWidget(self.numbers_label, 1)
        numbers.addWidget(self.zoom_button, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(numbers)
        self.empty_label = QLabel(EMPTY_TEXT)
        self.empty_label.setObjectName("chartEmpty")
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._placeholder)
        self._stack.addWidget(self.empty_label)
        lay.addWidget(self._stack, 1)
        lay.addWidget(self.legend)
        self.installEventFilter(self)  # the first paint schedules the plot
        self.set_assessment(None)

    # ------------------------------------------------------------------ the plot, after the first paint

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """After the chart's first paint (on the next turn of the event loop), import the plot's
        module in a background thread, then build the plot."""
        if watched is self and event.type() == QEvent.Type.Paint and self._plotter is None and not self._build_pending:
            self._build_pending = True
            QTimer.singleShot(0, self, lambda: import_in_background((PLOT_MODULE,), self, self.ensure_plot))
        return False

    def ensure_plot(self) -> pg.PlotItem:
        """Build the pyqtgraph plot now if it is not built yet (imports pyqtgraph), draw the current
        figure into it and return its ``PlotItem``."""
        if self._plotter is None:
            from ctxviewer.gui.budget_plot import BudgetPlot

            self._plotter = BudgetPlot(PLOT_MIN_PX)
            self._plotter.draw(self._figure, COLORS, segment_tooltip, self.zoomed())
            self._draw_due = False
            showing = self._stack.currentWidget() is self._placeholder
            self._stack.insertWidget(0, self._plotter.widget)  # the placeholder stays, unused
            if showing:
                self._stack.setCurrentWidget(self._plotter.widget)
        self._flush()
        return self._plotter.plot

    def _redraw_later(self) -> None:
        """Draw the current figure on the next turn of the event loop (the words, numbers
        and legend are painted first; a quick run of selections draws only the last figure). Until
        then the plain placeholder stands in for the plot, never the previous trace's bars."""
        if self._plotter is None:
            return  # built later, with the figure current then
        if self._stack.currentWidget() is self._plotter.widget:
            self._stack.setCurrentWidget(self._placeholder)
        if not self._draw_due:
            self._draw_due = True
            QTimer.singleShot(0, self, self._flush)

    def _flush(self) -> None:
        """Draw a figure waiting for :meth:`_redraw_later` now."""
        if not self._draw_due or self._plotter is None:
            return
        self._draw_due = False
        self._plotter.draw(self._figure, COLORS, segment_tooltip, self.zoomed())
        if self._stack.currentWidget() is self._placeholder:
            self._stack.setCurrentWidget(self._plotter.widget)

    @property
    def plot_built(self) -> bool:
        """True once the pyqtgraph plot exists (after the first paint or :meth:`ensure_plot`)."""
        return self._plotter is not None

    # ------------------------------------------------------------------ public API

    def segments(self) -> dict[str, list[BarSegment]]:
        """What is drawn: ``{"used": [...], "omitted": [...], "declared": [...]}`` (``omitted`` and
        ``declared`` empty if the trace has none)."""
        return {k: list(v) for k, v in self._segments.items()}

    def tooltips(self) -> list[str]:
        """The hover text of each drawn bar segment, in drawing order (exact token counts)."""
        return list(self._tooltips)

    def fixed_height(self, width: int | None = None) -> int:
        """The chart's height in pixels at ``width`` (default: its own), the same for every trace:
        :data:`VERDICT_LINES` lines of verdict, :data:`NUMBERS_LINES` of numbers, :data:`PLOT_MIN_PX` of plot and the
        legend's rows for all of its entries (:data:`LEGEND_ORDER`) at that width."""
        w = max(200, self.width() if width is None else width)
        lay = self.layout()
        spacing = lay.spacing() if lay is not None else 2
        top = max(self.state_label.sizeHint().height(), self._verdict_height())
        numbers = self._numbers_height()
        return top + numbers + PLOT_MIN_PX + self.legend.height_for(len(LEGEND_ORDER), w) + 3 * spacing + 2

    def _verdict_height(self) -> int:
        """Pixels of :data:`VERDICT_LINES` lines of the verdict in its (style-sheet) font; the label
        is held at that height so no verdict moves the plot."""
        self.verdict_label.ensurePolished()
        m = self.verdict_label.contentsMargins()
        h = (self.verdict_label.fontMetrics().lineSpacing() * VERDICT_LINES + m.top() + m.bottom()
             + 2 * self.verdict_label.margin() + 2)
        self.verdict_label.setFixedHeight(h)
        return h

    def _numbers_height(self) -> int:
        """Pixels of :data:`NUMBERS_LINES` lines of numbers; the label is held there (the plot never moves)."""
        self.numbers_label.ensurePolished()
        h = self.numbers_label.fontMetrics().lineSpacing() * NUMBERS_LINES + 2
        self.numbers_label.setFixedHeight(h)
        return h

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # Qt override
        """Elide the verdict and numbers again for the new width."""
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        """Show the verdict in at most :data:`VERDICT_LINES` lines and the numbers in :data:`NUMBERS_LINES`, each cut
        with "…" when longer (the full text is then the label's tooltip)."""
        self.verdict_label.ensurePolished()  # the style sheet's bold font and padding
        metrics = self.verdict_label.fontMetrics()
        # the label's width in the row beside the state word, less its padding (style sheet: 4 px)
        # and a little slack, so that a fitted text never wraps to one more line than counted
        width = max(100, self.width() - self.state_label.sizeHint().width() - 6 - 2 * 4 - 6)
        self.verdict_label.setText(_fit_lines(self._verdict_text, metrics, width, VERDICT_LINES))
        self.verdict_label.setToolTip((plain_tooltip(self._verdict_text) or "") if self.verdict_label.text() != self._verdict_text else "")
        room = self.width() - (self.zoom_button.sizeHint().width() + 6 if self.zoom_button.isVisibleTo(self) else 0) - 6
        numbers = _fit_lines(self._numbers_text, self.numbers_label.fontMetrics(), max(100, room), NUMBERS_LINES)
        self.numbers_label.setText(numbers)
        self.numbers_label.setToolTip((plain_tooltip(self._numbers_text) or "") if numbers != self._numbers_text else "")

    def is_empty(self) -> bool:
        """True while the chart shows its empty state (no plot, no axis) instead of a trace."""
        return self._stack.currentWidget() is self.empty_label

    @property
    def capacity_line(self) -> float | None:
        """x position (tokens) of the capacity line, or ``None`` when C is not drawn (builds the
        plot if needed)."""
        self.ensure_plot()
        return self._plotter.capacity_line if self._plotter is not None else None

    def verdict(self) -> str:
        """The verdict in full, invisible characters revealed (:func:`ctxviewer.util.visible.one_line`;
        the label shows it elided to :data:`VERDICT_LINES` lines when longer)."""
        return self._verdict_text

    def numbers(self) -> str:
        """The numbers line in full (the label elides it after :data:`NUMBERS_LINES` lines)."""
        return self._numbers_text

    def state(self) -> str:
        """The state symbol and word shown before the verdict (``"✔ OK"``, ``"⚠ WARNING"``, ``"✖ FAILURE"``; ``""`` if empty)."""
        return self.state_label.text()

    @property
    def figure(self) -> BudgetFigure | None:
        """The figure drawn (from the core), or ``None`` when empty."""
        return self._figure

    def set_assessment(self, assessment: Assessment | None, empty_text: str = EMPTY_TEXT) -> None:
        """Paint ``assessment.figure`` and its verdict, state and numbers; ``None`` shows the empty
        state (``empty_text`` in place of the plot, no axis). Derives nothing: every position and
        word comes from the core."""
        self._offer_zoom(assessment.figure if assessment is not None else None)
        if assessment is None:
            self._figure = None
            self._segments = {"used": [], "omitted": [], "declared": []}
            self._tooltips = []
            self.legend.set_entries([])
            self._set_verdict("", "", "")
            self._numbers_text = ""
            self._elide()
            self.empty_label.setText(empty_text)
            self._stack.setCurrentWidget(self.empty_label)
            self._redraw_later()
            return
        fig = assessment.figure
        self._figure = fig
        self._segments = {"used": list(fig.used), "omitted": list(fig.omitted), "declared": list(fig.declared)}
        # trace text (item ids) shown as every cell shows it: invisible characters as markers
        self._set_verdict(one_line(assessment.verdict), assessment.state.value, state_headline(assessment.state))
        self._numbers_text = one_line(assessment.numbers)
        self._elide()
        legend: dict[str, tuple[str, str, str]] = {}
        self._tooltips = []
        for row, segs in fig.rows:
            for s in segs:
                self._tooltips.append(segment_tooltip(s, row))
                legend.setdefault(s.key, (s.label, COLORS.get(s.key, "#9ca3af"), "dashed" if s.key == "margin" else "solid"))
        if fig.omitted:
            legend["omitted"] = (OMITTED_LEGEND, "#6b7280", "hatched")
        self.legend.set_entries([legend[k] for k in LEGEND_ORDER if k in legend])
        # the plot appears with its figure on the next turn (_flush): showing it here would lay
        # it out (a resize of the pyqtgraph view: 40 ms the first time) inside this call
        self._stack.setCurrentWidget(self._placeholder)
        self._redraw_later()

    def zoomed(self) -> bool:
        """True when the plot ends at the figure's zoomed range (it offers one and
        :attr:`act_zoom` is checked)."""
        return self._figure is not None and self._figure.zoom_x_max is not None and self.act_zoom.isChecked()

    @property
    def x_end(self) -> float:
        """Right end (tokens) of the drawn x range (builds the plot if needed; 0 when empty)."""
        self.ensure_plot()
        return self._plotter.x_end if self._plotter is not None else 0.0

    def _offer_zoom(self, fig: BudgetFigure | None) -> None:
        """Show the zoom button, and enable its action, only for a figure that offers a zoom."""
        offered = fig is not None and fig.zoom_x_max is not None
        self.act_zoom.setEnabled(offered)
        self.zoom_button.setVisible(offered)

    @property
    def input_limit_line(self) -> float | None:
        """Separate limits: x position (tokens) of the input-limit line, or ``None`` (builds the
        plot if needed)."""
        self.ensure_plot()
        return self._plotter.input_limit_line if self._plotter is not None else None

    # ------------------------------------------------------------------ internals

    def _set_verdict(self, text: str, state: str, word: str) -> None:
        self._verdict_text = text
        self.state_label.setText(word)
        self._elide()
        for label in (self.verdict_label, self.state_label):
            label.setProperty("state", state)
            style = label.style()
            style.unpolish(label)
            style.polish(label)


def _fit_lines(text: str, metrics: QFontMetrics, width: int, lines: int) -> str:
    """``text`` as it fits ``lines`` word-wrapped lines of ``width`` pixels: whole, or cut at a word
    with "…" appended. A word longer than a line is cut inside."""
    flags = int(Qt.TextFlag.TextWordWrap)
    limit = lines * metrics.lineSpacing()

    def fits(t: str) -> bool:
        return metrics.boundingRect(0, 0, width, 100_000, flags, t).height() <= limit

    if not text or fits(text):
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if fits(text[:mid].rstrip() + "…"):
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo]
    space = cut.rfind(" ")
    if space > lo // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def segment_tooltip(s: BarSegment, row: str) -> str:
    """The hover text of segment ``s`` in figure row ``row`` (``used`` / ``omitted`` /
    ``declared``), with the exact token count: ``"evidence: 1,500 tokens omitted"``."""
    what = {"omitted": " omitted", "declared": " declared",
            "used": "" if s.key in ("margin", "over", "out", "unaccounted") else " retained"}[row]
    return f"{s.label}: {fmt_int(s.tokens)} tokens{what}"
