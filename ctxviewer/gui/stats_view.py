"""**Trace › Statistics…** (Ctrl+Alt+S): sums over the trace list's current filter, by model, session
or day -- the numbers of ``ctxviewer stats`` (:meth:`ctxviewer.store.TraceStore.aggregate`, one SQL
pass over the list columns) as a table with every figure exact, a pyqtgraph bar chart of one
measure per group (calls, tokens, cost, errors) whose bars say their exact value on hover, and
**Export CSV…** of the table. Of many groups (a million traces have hundreds of thousands of
sessions) the table and chart show the :data:`SHOWN_GROUPS` with the most calls and say so (the
controller asks the store for just those, :meth:`~ctxviewer.store.TraceStore.aggregate_top`); the
CSV holds every group (read again in the background when the window holds only the top ones). Built on first use by :mod:`ctxviewer.gui.stats_controller` (the
menu entry), so pyqtgraph is not loaded before the window's first paint. Plain text only.
"""

from __future__ import annotations

import csv
import heapq
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.present.stats_cells import cost_sum, token_sum
from ctxviewer.store.aggregates import GROUP_KEYS
from ctxviewer.store.group_sums import WINDOW_BANDS, Group
from ctxviewer.tokens.cost import NOT_KNOWN
from ctxviewer.util.visible import one_line

HEADERS = ("group", "calls", "counted input tokens", "output tokens", "cost (USD)", "cost known", "mean ms", "max ms",
           "ok", "warning", "failure", "span errors", *(f"C used {b[0]}" for b in WINDOW_BANDS))
"""Table and CSV columns (the CSV has the same cells, numbers unformatted)."""
MEASURES = {"calls": lambda g: g.calls, "counted input tokens": lambda g: g.input_tokens,
            "output tokens": lambda g: g.output_tokens, "cost (USD)": lambda g: g.cost, "span errors": lambda g: g.errors}
"""What the chart can draw, per group."""
AXIS_LABELS = 16
"""Group names written under the chart at most (every n-th bar's); the others say theirs on hover."""
GROUP_WORDS = {"model": "models", "session": "sessions", "day": "days"}
"""What the groups are called in the window's note, by grouping."""
SHOWN_GROUPS = 200
"""Groups the table and the chart show at most: those with the most calls (ties: the first in key
order), in key order. Export CSV writes every group."""


def shown_groups(groups: list[Group]) -> list[Group]:
    """The groups to show (:data:`SHOWN_GROUPS`): all when that many or fewer, else the ones with
    the most calls, kept in ``groups``' (key) order."""
    if len(groups) <= SHOWN_GROUPS:
        return groups
    keep = set(heapq.nsmallest(SHOWN_GROUPS, range(len(groups)), key=lambda i: (-groups[i].calls, i)))  # not a sort of all
    return [g for i, g in enumerate(groups) if i in keep]


def row_values(label: str, g: Group) -> list[Any]:
    """The :data:`HEADERS` values of group ``g`` (raw numbers; ``None`` = not recorded: a token sum
    or cost no call of the group recorded)."""
    return [label, g.calls, g.input_tokens if g.input_known else None, g.output_tokens if g.output_known else None,
            g.cost if g.cost_known else None, g.cost_known,
            g.duration_mean_ms, g.duration_max_ms, g.ok, g.warning, g.failure, g.errors, *g.window]


def _cell(header: str, value: Any, g: Group) -> str:
    if header.startswith("C used") and not sum(g.window):
        return "not recorded"  # no call of the group recorded both its input and its capacity C: not 0
    if value is None:
        return NOT_KNOWN if header == "cost (USD)" else "not recorded"
    if header == "cost (USD)":  # a sum some calls did not record is a lower bound: how many, as `stats` says
        return cost_sum(value, g.cost_known, g.calls)
    if header in ("counted input tokens", "output tokens"):
        return token_sum(value, g.input_known if header == "counted input tokens" else g.output_known, g.calls)
    if isinstance(value, float):
        return f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else one_line(str(value))


class StatsView(QWidget):
    """The statistics window: grouping and measure pickers, the chart, the table, Export CSV, and
    Cancel while a computation runs (:mod:`ctxviewer.gui.stats_controller` runs it)."""

    closed = Signal()
    """The window was closed (a computation still running is cancelled)."""
    export_all = Signal(object)
    """Export CSV was asked for ``Path`` while the window holds only the groups it shows: the
    controller reads every group in the background and writes them (:func:`write_groups_csv`)."""

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("ctxviewer — statistics")
        self.by = QComboBox()
        self.by.addItems(list(GROUP_KEYS))
        self.measure = QComboBox()
        self.measure.addItems(list(MEASURES))
        self.export = QPushButton("Export CSV…")
        self.cancel = QPushButton("Cancel")
        self.cancel.setVisible(False)
        self.note = QLabel("")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(180)
        self.plot.setMouseEnabled(x=False, y=False)
        self.bars: Any = None
        self.bar_tips: list[str] = []
        self.plot.scene().sigMouseMoved.connect(self._hover)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        for c, h in enumerate(HEADERS):
            if h.startswith("C used"):
                self.table.horizontalHeaderItem(c).setToolTip(
                    "calls by (input + reserved output) / C as the header decided eq. 3.1 (C recorded or "
                    "assumed; the provider's count when it decided); calls where it was not decided are in none")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)  # row numbers say nothing here
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.horizontalHeader().setStretchLastSection(False)
        top = QHBoxLayout()
        for w in (QLabel("by"), self.by, QLabel("chart"), self.measure, self.export, self.cancel):
            top.addWidget(w)
        top.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.note)
        lay.addWidget(self.plot, 2)
        lay.addWidget(self.table, 3)
        self.groups: list[Group] = []
        """The groups of the last computation the window was given (every group, or the top ones)."""
        self.n_groups = 0
        """How many groups the last computation had (more than :attr:`groups` when given the top ones)."""
        self.shown: list[Group] = []
        """The groups the table and chart show (:func:`shown_groups`)."""
        self.total: Group | None = None
        self.measure.currentTextChanged.connect(lambda _t: self._draw())
        self.export.clicked.connect(self._ask_export)

    def computing(self, what: str) -> None:
        """Say that a computation runs (``what``), with Cancel; the figures shown stay until it ends."""
        self.note.setText(what)
        self.cancel.setVisible(True)

    def stopped(self, why: str) -> None:
        """The computation ended without figures (cancelled, or failed: ``why``)."""
        self.note.setText(why)
        self.cancel.setVisible(False)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the window cancels a computation still running (:attr:`closed`)."""
        self.closed.emit()
        super().closeEvent(event)

    def show_groups(self, total: Group, groups: list[Group], what: str, n_groups: int | None = None) -> None:
        """Show ``groups`` (at most :data:`SHOWN_GROUPS` of them, :func:`shown_groups`) and the
        ``total`` row; ``what`` says which traces (the filter). ``n_groups``: how many groups there
        are when ``groups`` holds only the top ones (default ``len(groups)``)."""
        n = len(groups) if n_groups is None else n_groups
        self.total, self.groups, self.shown, self.n_groups = total, groups, shown_groups(groups), n
        self.cancel.setVisible(False)
        if len(self.shown) < n:
            word = GROUP_WORDS.get(self.by.currentText(), "groups")
            what += (f"; the {len(self.shown):,} of {n:,} {word} with the most calls are shown "
                     f"(Export CSV writes all {n:,})")
        self.note.setText(what)
        rows = [(g.key if g.key is not None else "not recorded", g) for g in self.shown] + [("total", total)]
        self.table.setRowCount(len(rows))
        for r, (label, g) in enumerate(rows):
            for c, (header, value) in enumerate(zip(HEADERS, row_values(label, g))):
                item = QTableWidgetItem(_cell(header, value, g))
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if g is total:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()  # a group's name is never elided; the user may resize after
        self._draw()

    def _draw(self) -> None:
        self.plot.clear()
        self.bars, self.bar_tips = None, []
        measure = MEASURES[self.measure.currentText()]
        values = [float(measure(g)) for g in self.shown]
        labels = [one_line(g.key) if g.key is not None else "not recorded" for g in self.shown]
        if not values:
            return
        self.bars = pg.BarGraphItem(x=list(range(len(values))), height=values, width=0.7, brush="#2563eb")
        self.plot.addItem(self.bars)
        step = max(1, -(-len(labels) // AXIS_LABELS))  # labels that do not overlap; every bar says its name on hover
        self.plot.getAxis("bottom").setTicks([[(i, labels[i]) for i in range(0, len(labels), step)]])
        name = self.measure.currentText()
        self.bars.setToolTip("")
        self.bar_tips = [f"{label}: {_cell(name, measure(g) if name != 'cost (USD)' or g.cost_known else None, g)} {name}"
                         for label, g in zip(labels, self.shown)]

    def _hover(self, pos: Any) -> None:
        """The bar under the mouse says its exact value (a tooltip)."""
        if self.bars is None:
            return
        x = self.plot.getPlotItem().vb.mapSceneToView(pos).x()
        n = round(x)
        if 0 <= n < len(self.bar_tips) and abs(x - n) <= 0.35:
            self.plot.setToolTip(self.bar_tips[n])
        else:
            self.plot.setToolTip("")

    def tip_for(self, n: int) -> str:
        """The hover text of bar ``n`` (the group's exact value of the measure drawn)."""
        return self.bar_tips[n]

    def write_csv(self, path: Path) -> None:
        """Write the groups the window holds, then the total, to ``path`` as CSV
        (:func:`write_groups_csv`). Raises ``OSError``."""
        write_groups_csv(path, self.total, self.groups)

    def export_to(self, path: Path) -> None:
        """Export CSV to ``path``: written here when the window holds every group, else asked of
        the controller (:attr:`export_all`); a write that fails says so in the note."""
        if self.n_groups > len(self.groups):
            self.export_all.emit(path)
            return
        try:
            self.write_csv(path)
        except OSError as exc:
            self.note.setText(one_line(f"cannot write {path}: {exc}"))

    def _ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export statistics", "stats.csv", "CSV (*.csv)")
        if path:
            self.export_to(Path(path))


def write_groups_csv(path: Path, total: Group | None, groups: list[Group]) -> None:
    """Write ``groups``, then ``total`` (when given), to ``path`` as CSV: :data:`HEADERS`, raw
    numbers, empty for not recorded / not known. Raises ``OSError``."""
    rows = [(g.key if g.key is not None else "", g) for g in groups]
    if total is not None:
        rows.append(("total", total))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADERS)
        for label, g in rows:
            w.writerow(["" if v is None else v for v in row_values(label, g)])
