"""The findings panel: an expert-info list of the trace's findings, and the user's observed failure.

Top: "Observed failure" -- the Table 3.1 row the user saw go wrong (stored beside the database by
:mod:`ctxviewer.assess.marks`, never in it); when set, that row's first evidence to inspect and typical
repair lead the panel and its findings come first. Then the findings tree
(:class:`~ctxviewer.gui.findings_model.FindingsModel`), then the selected finding in full: message,
what to inspect first, the typical repair. All text is plain text.

Signals: ``sig_finding_selected(object finding)`` when a finding row becomes current;
``sig_observed_changed(object row)`` (``int`` or ``None``) when the user picks an observed failure.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.findings_model import FindingsModel
from ctxviewer.model.findings import Finding
from ctxviewer.model.table31 import rows as table_rows
from ctxviewer.util.visible import one_line


def _plain(name: str) -> QLabel:
    lab = QLabel()
    lab.setTextFormat(Qt.TextFormat.PlainText)
    lab.setWordWrap(True)
    lab.setObjectName(name)
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return lab


LIST_ROWS = 6
"""Rows the finding list keeps when the detail below it needs room (a group and five findings)."""


class FindingsPanel(QWidget):
    """Findings of one trace grouped by severity, led by the observed failure (see module docstring)."""

    sig_finding_selected = Signal(object)
    sig_observed_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = FindingsModel(self)
        self.observed = QComboBox()
        self.observed.addItem("(not marked)", None)
        for r in table_rows():
            self.observed.addItem(f"row {r.row}: {r.failure}", r.row)
        self.observed.setToolTip("The failure you observed in this answer (Table 3.1); stored beside the database")
        self.observed.currentIndexChanged.connect(self._on_observed)
        self.lead = _plain("findingsLead")
        self.view = QTreeView()
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        # the message column stretches and elides (the detail below says it in full): no horizontal
        # scroll bar eating a row of the panel's height
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.header().setStretchLastSection(False)
        self.view.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # Message
        # a small minimum: the detail grows only into the list's rows (_fit_detail), so the panel's
        # minimum height stays below the height the user's splitters give it
        self.view.setMinimumHeight(self.view.header().sizeHint().height() + self.view.fontMetrics().lineSpacing() + 8)
        self.view.selectionModel().currentRowChanged.connect(self._on_row)
        self.detail = _plain("findingDetail")
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # the selected finding in full: as many lines as it needs while the list keeps its rows
        # (at least two: a group and its first finding), then it scrolls (never clipped
        # mid-line); :meth:`_fit_detail`
        self.detail_scroll = QScrollArea()
        self.detail_scroll.setWidgetResizable(True)
        self.detail_scroll.setWidget(self.detail)
        self.detail_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.detail_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.detail_scroll.setFixedHeight(self.detail.fontMetrics().lineSpacing() * 3 + 2)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel("Observed failure:"))
        bar.addWidget(self.observed, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(3)
        lay.addLayout(bar)
        lay.addWidget(self.lead)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.detail_scroll)
        self._findings: tuple[Finding, ...] = ()
        self.set_findings((), None)

    def set_findings(self, findings: tuple[Finding, ...] | list[Finding], observed_row: int | None) -> None:
        """Show ``findings`` with the observed Table 3.1 row ``observed_row`` (``None``: not marked)."""
        self._findings = tuple(findings)
        self.observed.blockSignals(True)
        self.observed.setCurrentIndex(max(0, self.observed.findData(observed_row)) if observed_row else 0)
        self.observed.blockSignals(False)
        self._regroup(observed_row)

    def observed_row(self) -> int | None:
        """The Table 3.1 row chosen as observed, or ``None``."""
        data = self.observed.currentData()
        return int(data) if data is not None else None

    def _regroup(self, observed_row: int | None) -> None:
        self.model.set_findings(self._findings, observed_row)
        self.view.expandAll()
        advance = self.view.fontMetrics().horizontalAdvance
        rule_width = max((advance(f"\u26a0 {f.rule}") for f in self._findings), default=0) + 48  # + indent
        for c, w in enumerate((max(160, min(rule_width, 320)), advance("Table 3.1") + 20)):
            self.view.setColumnWidth(c, w)
        where = [str(self.model.data(self.model.index(r, 3, self.model.index(g, 0))) or "")
                 for g in range(self.model.rowCount()) for r in range(self.model.rowCount(self.model.index(g, 0)))]
        self.view.setColumnWidth(3, min(max((advance(w) for w in where), default=0) + 16, 220) if where else 60)
        if observed_row is not None:
            r = next(x for x in table_rows() if x.row == observed_row)
            n = sum(1 for f in self._findings if f.table_row == observed_row)
            self.lead.setText(f"Inspect first: {r.first_evidence}.  Typical repair: {r.repair}.  "
                              f"({n} finding(s) of this row)")
            self.lead.show()
        else:
            self.lead.hide()
        self.detail.setText("" if self._findings else "No findings: no check found anything to report.")
        first = self.model.first_finding()
        if first.isValid():
            self.view.selectionModel().blockSignals(True)
            self.view.setCurrentIndex(first)
            self.view.selectionModel().blockSignals(False)
            self._show_detail(self.model.finding(first))

    def select_finding(self, finding: Finding) -> None:
        """Make ``finding`` current (emits ``sig_finding_selected``)."""
        idx = self.model.finding_index(finding)
        if idx.isValid():
            self.view.setCurrentIndex(idx)

    def _show_detail(self, f: Finding | None) -> None:
        if f is None:
            return
        lines = []
        if f.first_evidence:
            lines.append(f"Inspect first: {f.first_evidence}")
        if f.repair:
            lines.append(f"Typical repair: {f.repair}")
        lines.append(f"{f.severity.value}: {one_line(f.message)}")  # trace text in a message stays inert
        self.detail.setText("\n".join(lines))
        self._fit_detail()

    def _list_height(self, rows: int) -> int:
        """Pixels the finding list needs to show ``rows`` rows under its header."""
        row = self.view.sizeHintForRow(0) if self.model.rowCount() else self.view.fontMetrics().lineSpacing() + 4
        return self.view.header().sizeHint().height() + rows * max(row, 1) + 2 * self.view.frameWidth()

    def _fit_detail(self) -> None:
        """Give the detail the height its text needs at the current width, leaving the finding
        list the rows it has (at least two, when it has them: a group and its first finding); three lines at least, the rest
        scrolls."""
        line = self.detail.fontMetrics().lineSpacing()
        width = self.detail_scroll.viewport().width()
        need = self.detail.heightForWidth(width) if width > 50 else -1
        if need < 0:
            need = self.detail.sizeHint().height()
        rows = sum(1 + self.model.rowCount(self.model.index(r, 0)) for r in range(self.model.rowCount()))
        keep = min(rows, LIST_ROWS) * max(self.view.sizeHintForRow(0), 1) if rows else 0
        if self.isVisible() and self.view.viewport().height() > 0:  # laid out: share what the two have
            room = self.detail_scroll.height() + self.view.viewport().height() - keep
        else:  # not laid out yet: estimate from the panel's height
            lay = self.layout()
            spacing = lay.spacing() if lay is not None else 0
            others = sum(w.sizeHint().height() + spacing for w in (self.observed, self.lead) if w.isVisibleTo(self))
            room = self.height() - others - self._list_height(min(rows, LIST_ROWS)) - 4 * spacing - 4
        lines = max(3, min(-(-need // line), (room - 2) // line))  # whole lines: none cut in half
        self.detail_scroll.setFixedHeight(lines * line + 2)  # no part of a next line shows

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # Qt override
        """Refit the detail to the new width and height."""
        super().resizeEvent(event)
        self._fit_detail()

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # Qt override
        """Refit the detail once the panel is laid out (its tab made current)."""
        super().showEvent(event)
        self._fit_detail()

    def _on_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        f = self.model.finding(current)
        if f is not None:
            self._show_detail(f)
            self.sig_finding_selected.emit(f)

    def _on_observed(self, _index: int) -> None:
        row = self.observed_row()
        self._regroup(row)
        self.sig_observed_changed.emit(row)
