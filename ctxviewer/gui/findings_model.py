"""Qt model of a trace's findings as an expert-info tree: severity groups (with counts), then findings.

Rows and words come from :mod:`ctxviewer.present.finding_view` (the core decides what a cell says): a group
row reads ``"✖ failure (2)"``; a finding row gives the rule with its severity symbol, the Table 3.1
row, the message and what it points at. Colour is never the only cue (the symbol and the word are
in the text). ``data()`` never raises.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.gui.two_level_model import TwoLevelModel
from ctxviewer.model.findings import Finding
from ctxviewer.present.finding_view import SEVERITY_COLOR, SEVERITY_SYMBOL, FindingGroup, groups, row_label, where
from ctxviewer.util.visible import one_line

FindingRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, FindingRole)`` -> the row's :class:`~ctxviewer.model.findings.Finding` (``None`` on a group row)."""
COLUMNS = ("Finding", "Table 3.1", "Message", "Where")
"""Column titles."""

_Index = QModelIndex | QPersistentModelIndex


class FindingsModel(TwoLevelModel):
    """Findings of one trace grouped by severity, worst first (the observed row's first in a group)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._groups: tuple[FindingGroup, ...] = ()
        self._bold = QFont()
        self._bold.setBold(True)

    def set_findings(self, findings: tuple[Finding, ...] | list[Finding], observed_row: int | None = None) -> None:
        """Show ``findings`` (empty clears), leading with Table 3.1 row ``observed_row``."""
        self.beginResetModel()
        self._groups = groups(findings, observed_row)
        self.endResetModel()

    def finding_index(self, finding: Finding) -> QModelIndex:
        """The index (column 0) of ``finding``; invalid if it is not shown."""
        for g, group in enumerate(self._groups):
            for r, f in enumerate(group.findings):
                if f is finding or f == finding:
                    return self.createIndex(r, 0, g + 1)
        return QModelIndex()

    def first_finding(self) -> QModelIndex:
        """The index of the first finding (the worst, or the observed row's); invalid if none."""
        return self.createIndex(0, 0, 1) if self._groups else QModelIndex()

    def finding(self, index: _Index) -> Finding | None:
        """The finding of a finding row, else ``None``."""
        g = index.internalId() - 1 if index.isValid() else -1
        if 0 <= g < len(self._groups) and 0 <= index.row() < len(self._groups[g].findings):
            return self._groups[g].findings[index.row()]
        return None

    # ------------------------------------------------------------------ Qt overrides

    def group_count(self) -> int:
        return len(self._groups)

    def child_count(self, group: int) -> int:
        return len(self._groups[group].findings)

    def column_total(self) -> int:
        return len(COLUMNS)

    def _data(self, index: _Index, role: int) -> Any:
        if not index.isValid():
            return None
        if index.internalId() == 0:
            if not 0 <= index.row() < len(self._groups):
                return None
            group = self._groups[index.row()]
            if role == Qt.ItemDataRole.DisplayRole and index.column() == 0:
                return group.title
            if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
                return QBrush(QColor(SEVERITY_COLOR[group.severity]))
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
            return None
        f = self.finding(index)
        if f is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (f"{SEVERITY_SYMBOL[f.severity]} {f.rule}", row_label(f), one_line(f.message), where(f))[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == 0:
            return QBrush(QColor(SEVERITY_COLOR[f.severity]))
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [f"{f.severity.value}: {f.message}"]
            if f.first_evidence:
                lines.append(f"Inspect first: {f.first_evidence}")
            if f.repair:
                lines.append(f"Typical repair: {f.repair}")
            return plain_tooltip("\n".join(lines))
        if role == FindingRole:
            return f
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None
