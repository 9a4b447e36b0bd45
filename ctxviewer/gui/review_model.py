"""Qt model of the review queue: one row per finding of the current filter.

Cell text comes from :func:`ctxviewer.review.queue.cells` (the core decides what a cell says);
``EntryRole`` serves the :class:`~ctxviewer.review.ReviewEntry`. ``data()`` never raises.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.review import ReviewEntry, ReviewQueue
from ctxviewer.review.queue import COLUMN_TITLES, UNREVIEWED, cells

EntryRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, EntryRole)`` -> the row's :class:`~ctxviewer.review.ReviewEntry`."""

_SEVERITY_COLORS = {"critical": QColor("#991b1b"), "failure": QColor("#b91c1c"), "warning": QColor("#92400e")}
_DONE = QColor("#6b7280")

Index = QModelIndex | QPersistentModelIndex


class ReviewTableModel(QAbstractTableModel):
    """Rows: the entries of one filter of a :class:`ReviewQueue`, in queue order."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.queue: ReviewQueue | None = None
        self.rows: list[ReviewEntry] = []

    def set_rows(self, queue: ReviewQueue | None, rows: list[ReviewEntry]) -> None:
        """Show ``rows`` of ``queue`` (a reset)."""
        self.beginResetModel()
        self.queue, self.rows = queue, rows
        self.endResetModel()

    def row_changed(self, row: int) -> None:
        """Repaint ``row`` after its review changed."""
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMN_TITLES) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMN_TITLES)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMN_TITLES):
            return COLUMN_TITLES[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.queue is None or not 0 <= index.row() < len(self.rows):
            return None
        entry = self.rows[index.row()]
        try:
            if role == EntryRole:
                return entry
            if role == Qt.ItemDataRole.DisplayRole:
                return cells(self.queue, entry)[index.column()]
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tooltip(entry.finding.message)
            if role == Qt.ItemDataRole.ForegroundRole:
                if self.queue.status(entry) != UNREVIEWED:
                    return QBrush(_DONE)
                color = _SEVERITY_COLORS.get(entry.finding.severity.value)
                return QBrush(color) if color is not None else None
        except Exception:  # data() never raises
            return None
        return None
