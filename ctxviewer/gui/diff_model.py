"""Qt models of a diff: its aligned rows (:attr:`ctxviewer.diff.TraceDiff.items`) side by side,
and its evidence order (:attr:`ctxviewer.diff.TraceDiff.evidence`).

Cell text comes from :data:`ctxviewer.diff.cells.DIFF_COLUMNS`; each row's background colour
says its change (with the symbol in the text, so colour is never the only cue). ``data()`` never
raises.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ctxviewer.diff import Change, ItemDiff, TraceDiff
from ctxviewer.diff.cells import DIFF_COLUMNS, EVIDENCE_COLUMNS
from ctxviewer.diff.result import EvidencePlace
from ctxviewer.gui.tables import plain_tooltip

ItemDiffRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, ItemDiffRole)`` -> the row's :class:`~ctxviewer.diff.ItemDiff`."""
ChangeRole = Qt.ItemDataRole.UserRole + 2
"""``data(index, ChangeRole)`` -> the row's primary change value (``"moved"``, ...)."""

CHANGE_COLORS: dict[Change, str] = {
    Change.ADDED: "#dcfce7",
    Change.REMOVED: "#fee2e2",
    Change.MOVED: "#dbeafe",
    Change.CONTENT_CHANGED: "#fef3c7",
    Change.STATUS_CHANGED: "#fde68a",
    Change.PRIORITY_CHANGED: "#ede9fe",
    Change.RETOKENIZED: "#f1f5f9",
}
"""Row background per primary change (unchanged rows keep the view's own colours)."""

_Index = QModelIndex | QPersistentModelIndex


class DiffItemModel(QAbstractTableModel):
    """The aligned rows of one :class:`~ctxviewer.diff.TraceDiff` (or none)."""

    def __init__(self, diff: TraceDiff | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: tuple[ItemDiff, ...] = ()
        self._brushes = {c: QBrush(QColor(v)) for c, v in CHANGE_COLORS.items()}
        self._dark = QBrush(QColor("#111827"))
        self.set_diff(diff)

    def set_diff(self, diff: TraceDiff | None) -> None:
        """Show the rows of ``diff`` (``None`` clears)."""
        self.beginResetModel()
        self._rows = diff.items if diff is not None else ()
        self.endResetModel()

    def row_diff(self, row: int) -> ItemDiff | None:
        """The :class:`ItemDiff` of ``row``, or ``None`` when out of range."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def change_rows(self) -> list[int]:
        """Rows that are not unchanged, in order (for next / previous change)."""
        return [n for n, d in enumerate(self._rows) if d.is_change]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(DIFF_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(DIFF_COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return DIFF_COLUMNS[section].title
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)) or not (0 <= index.column() < len(DIFF_COLUMNS)):
            return None
        d = self._rows[index.row()]
        col = DIFF_COLUMNS[index.column()]
        try:
            if role == Qt.ItemDataRole.DisplayRole:
                return col.format(d)
            if role == Qt.ItemDataRole.ToolTipRole and col.tooltip is not None:
                return plain_tooltip(col.tooltip(d))
            if role == Qt.ItemDataRole.TextAlignmentRole:
                h = Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft
                return int(h | Qt.AlignmentFlag.AlignVCenter)
            if role == Qt.ItemDataRole.BackgroundRole:
                return self._brushes.get(d.change)
            if role == Qt.ItemDataRole.ForegroundRole and d.change in self._brushes:
                return self._dark
            if role == ItemDiffRole:
                return d
            if role == ChangeRole:
                return d.change.value
        except Exception:  # data() never raises into Qt
            return None
        return None


class EvidenceOrderModel(QAbstractTableModel):
    """Each evidence document's rank and position in A and B (:data:`EVIDENCE_COLUMNS`), in B's
    order; documents whose rank changed are tinted, the needed document is bold. ``data()`` never
    raises."""

    def __init__(self, diff: TraceDiff | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: tuple[EvidencePlace, ...] = ()
        self._moved = QBrush(QColor(CHANGE_COLORS[Change.MOVED]))
        self._bold = QFont()
        self._bold.setBold(True)
        self.set_diff(diff)

    def set_diff(self, diff: TraceDiff | None) -> None:
        """Show ``diff.evidence`` (``None`` clears)."""
        self.beginResetModel()
        self._rows = diff.evidence if diff is not None else ()
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(EVIDENCE_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if (orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole
                and 0 <= section < len(EVIDENCE_COLUMNS)):
            return EVIDENCE_COLUMNS[section].title
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)) or not (0 <= index.column() < len(EVIDENCE_COLUMNS)):
            return None
        e = self._rows[index.row()]
        col = EVIDENCE_COLUMNS[index.column()]
        try:
            if role == Qt.ItemDataRole.DisplayRole:
                return col.format(e)
            if role == Qt.ItemDataRole.TextAlignmentRole:
                h = Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft
                return int(h | Qt.AlignmentFlag.AlignVCenter)
            if role == Qt.ItemDataRole.BackgroundRole and e.rank_a != e.rank_b:
                return self._moved
            if role == Qt.ItemDataRole.FontRole and e.needed:
                return self._bold
            if role == Qt.ItemDataRole.ToolTipRole and col.tooltip is not None:
                return plain_tooltip(col.tooltip(e)) or None
        except Exception:  # data() never raises into Qt
            return None
        return None
