"""Qt model of one trace's context items, in final order, retained and omitted.

Rows are ``RequestTrace.items`` in the order the trace records them (the request's order, with
omitted items at the place they held among the candidates); sorting and filtering happen in
:class:`~ctxviewer.gui.item_table.ItemProxy` above this model, which keeps that order. Cell text
comes from :data:`ctxviewer.present.columns.ITEM_COLUMNS`.

Every cell's tooltip holds its full text (a clipped cell can always be read), plus the column's
longer words (token provenance). Omitted rows have a distinct style served through roles -- grey
foreground, italic font -- and every cell of an omitted row also names the omission reason in its
tooltip. ``data()`` never raises.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.model.trace import ContextItem, RequestTrace, Status
from ctxviewer.present.columns import ITEM_COLUMNS, item_status_tooltip

ItemRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, ItemRole)`` -> the row's :class:`~ctxviewer.model.trace.ContextItem`."""
ItemIdRole = Qt.ItemDataRole.UserRole + 2
"""``data(index, ItemIdRole)`` -> the item id (``str``)."""
OmittedRole = Qt.ItemDataRole.UserRole + 3
"""``data(index, OmittedRole)`` -> ``True`` for an omitted item."""

OMITTED_COLOR = QColor("#6b7280")
"""Foreground of omitted rows (grey, still readable on white: contrast 4.8:1)."""

_Index = QModelIndex | QPersistentModelIndex


class ItemTableModel(QAbstractTableModel):
    """The items of one :class:`~ctxviewer.model.trace.RequestTrace` (or none)."""

    def __init__(self, trace: RequestTrace | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._trace: RequestTrace | None = None
        self._items: tuple[ContextItem, ...] = ()
        self._italic = QFont()
        self._italic.setItalic(True)
        self._grey = QBrush(OMITTED_COLOR)
        self.set_trace(trace)

    @property
    def trace(self) -> RequestTrace | None:
        """The trace shown, or ``None``."""
        return self._trace

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the items of ``trace`` (``None`` clears the table)."""
        self.beginResetModel()
        self._trace = trace
        self._items = trace.items if trace is not None else ()
        self.endResetModel()

    def item(self, row: int) -> ContextItem | None:
        """The item of ``row``, or ``None`` if out of range."""
        return self._items[row] if 0 <= row < len(self._items) else None

    def row_of(self, item_id: str) -> int | None:
        """Row of the item with ``item_id``, or ``None``."""
        for i, it in enumerate(self._items):
            if it.id == item_id:
                return i
        return None

    # ------------------------------------------------------------------ Qt overrides

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(ITEM_COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        if not 0 <= index.column() < len(ITEM_COLUMNS):
            return None
        item = self._items[index.row()]
        col = ITEM_COLUMNS[index.column()]
        omitted = item.status is Status.OMITTED
        try:
            if role == Qt.ItemDataRole.DisplayRole:
                return col.format(item)
            if role == Qt.ItemDataRole.ToolTipRole:
                parts = [col.format(item)]
                extra = col.tooltip(item) if col.tooltip else None
                if omitted:
                    extra = item_status_tooltip(item) if extra in (None, item_status_tooltip(item)) else \
                        f"{extra}\n{item_status_tooltip(item)}"
                if extra and parts[0] in extra:  # the longer words already hold the cell's text
                    parts = [extra]
                elif extra:
                    parts.append(extra)
                return plain_tooltip("\n".join(parts))
            if role == Qt.ItemDataRole.ForegroundRole:
                return self._grey if omitted else None
            if role == Qt.ItemDataRole.FontRole:
                return self._italic if omitted else None
            if role == Qt.ItemDataRole.TextAlignmentRole:
                h = Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft
                return int(h | Qt.AlignmentFlag.AlignVCenter)
            if role == ItemRole:
                return item
            if role == ItemIdRole:
                return item.id
            if role == OmittedRole:
                return omitted
        except Exception:  # data() never raises
            return None
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return ITEM_COLUMNS[section].title if 0 <= section < len(ITEM_COLUMNS) else None
        return None
