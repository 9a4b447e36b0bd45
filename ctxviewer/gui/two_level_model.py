"""A read-only two-level tree model: groups at the top, their children under them.

The shape of the Findings tab (severity groups, findings) and the Tool calls tab (calls, their
checks). Index scheme: a group row has internal id 0; a child row of group ``g`` has internal id
``g + 1``, so ``parent()`` needs no stored objects. Subclasses give the counts, the columns and
``_data``; ``data()`` never raises (trace text is untrusted: a bad value shows as nothing).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt

_Index = QModelIndex | QPersistentModelIndex


class TwoLevelModel(QAbstractItemModel):
    """Groups (top level) and children. Subclasses implement :meth:`group_count`,
    :meth:`child_count`, :meth:`column_total` and :meth:`_data`."""

    def group_count(self) -> int:
        """Number of top-level rows."""
        raise NotImplementedError

    def child_count(self, group: int) -> int:
        """Number of child rows under top-level row ``group`` (0 <= group < group_count())."""
        raise NotImplementedError

    def column_total(self) -> int:
        """Number of columns."""
        raise NotImplementedError

    def _data(self, index: _Index, role: int) -> Any:
        raise NotImplementedError

    # ------------------------------------------------------------------ Qt overrides

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not 0 <= column < self.column_total() or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row < self.group_count() else QModelIndex()
        g = parent.row()
        if parent.internalId() == 0 and 0 <= g < self.group_count() and row < self.child_count(g):
            return self.createIndex(row, column, g + 1)
        return QModelIndex()

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return self.group_count()
        g = parent.row()
        if parent.internalId() == 0 and parent.column() == 0 and 0 <= g < self.group_count():
            return self.child_count(g)
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return self.column_total()

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        try:
            return self._data(index, role)
        except Exception:  # data() never raises
            return None
