"""The findings panel: an expert-info list of the trace's findings, and the user's observed failure.

Top: "Observed failure" -- the Table 3.1 row the user saw go wrong (stored beside the database by
:mod:`ctxviewer.marks`, never in it); when set, that row's first evidence to inspect and typical
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
    QLabel,
    QScrollArea,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ..findings import Finding
from ..table31 import rows as table_rows
from ..visible import one_line
from .findings_model import FindingsModel


def _plain(name: str) -> QLabel:
    lab = QLabel()
    lab.setTextFormat(Qt.TextFormat.PlainText)
    lab.setWordWrap(True)
    lab.setObjectName(name)
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return lab


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
        self.view.selectionModel().currentRowChanged.connect(self._on_row)
        self.detail = _plain("findingDetail")
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # the selected finding in full: three lines, then it scrolls (never clipped mid-line)
        self.detail_scroll = QScrollArea()
        self.detail_scroll.setWidgetResizable(True)
        self.detail_scroll.setWidget(self.detail)
        self.detail_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.detail_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.detail_scroll.setFixedHeight(self.detail.fontMetrics().lineSpacing() * 3 + 6)
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
        for c, w in enumerate((max(160, min(rule_width, 320)), advance("Table 3.1") + 20, 520)):
            self.view.setColumnWidth(c, w)
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

    def _on_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        f = self.model.finding(current)
        if f is not None:
            self._show_detail(f)
            self.sig_finding_selected.emit(f)

    def _on_observed(self, _index: int) -> None:
        row = self.observed_row()
        self._regroup(row)
        self.sig_observed_changed.emit(row)
