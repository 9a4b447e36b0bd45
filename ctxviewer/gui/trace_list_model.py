"""Qt model of the trace list: a lazy, SQL-sorted window over a :class:`~ctxviewer.store.TraceStore`.

Rows are the store's narrow :class:`~ctxviewer.store.TraceRow` objects (no payloads), fetched in
pages of :data:`PAGE_SIZE` through ``canFetchMore``/``fetchMore`` so a database of a million traces
opens at once. Sorting and filtering build a new :class:`~ctxviewer.store.TraceQuery` and re-query
the store (SQL); rows are never sorted in Python. Cell text comes from
:data:`ctxviewer.columns.TRACE_COLUMNS`.

``data()`` never raises: a broken row shows as empty. A store failure while paging is reported by
``sig_error(str)`` with the store's message (which names the file).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from ..columns import TRACE_COLUMNS
from ..store import SORTABLE, TraceQuery, TraceRow, TraceStore
from .tables import plain_tooltip

PAGE_SIZE = 200
"""Rows fetched from the store per ``fetchMore`` call."""

TraceIdRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, TraceIdRole)`` -> the row's trace id (``str``)."""
RowRole = Qt.ItemDataRole.UserRole + 2
"""``data(index, RowRole)`` -> the row's :class:`~ctxviewer.store.TraceRow`."""

_Index = QModelIndex | QPersistentModelIndex


class TraceListModel(QAbstractTableModel):
    """The traces of one store; empty when no store is set. See the module docstring."""

    sig_error = Signal(str)

    def __init__(self, store: TraceStore | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._store: TraceStore | None = None
        self._query = TraceQuery()
        self._rows: list[TraceRow] = []
        self._total = 0
        self.set_store(store)

    # ------------------------------------------------------------------ public API

    @property
    def query(self) -> TraceQuery:
        """The current filter and sort."""
        return self._query

    @property
    def total(self) -> int:
        """Number of traces matching the filter (loaded or not)."""
        return self._total

    def set_store(self, store: TraceStore | None) -> None:
        """Show ``store`` (or nothing). Keeps the current filter and sort; loads the first page."""
        self._store = store
        self._requery()

    def set_filter(self, text: str) -> None:
        """Filter by ``text`` (the store decides what matches: trace id, model, service, ...)."""
        if text != self._query.text:
            self._query = TraceQuery(text=text, sort=self._query.sort, descending=self._query.descending)
            self._requery()

    def set_sort(self, key: str, descending: bool = False) -> None:
        """Sort by the store's sort ``key`` (a member of ``SORTABLE``). Unknown keys are ignored."""
        if key not in SORTABLE:
            return
        self._query = TraceQuery(text=self._query.text, sort=key, descending=descending)
        self._requery()

    def trace_id(self, row: int) -> str | None:
        """Trace id of loaded row ``row``, or ``None`` if out of range."""
        return self._rows[row].trace_id if 0 <= row < len(self._rows) else None

    def row_of(self, trace_id: str) -> int | None:
        """Row of ``trace_id`` among the loaded rows, or ``None``."""
        for i, r in enumerate(self._rows):
            if r.trace_id == trace_id:
                return i
        return None

    # ------------------------------------------------------------------ Qt overrides

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(TRACE_COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if not 0 <= index.column() < len(TRACE_COLUMNS):
            return None
        row = self._rows[index.row()]
        col = TRACE_COLUMNS[index.column()]
        try:
            if role == Qt.ItemDataRole.DisplayRole:
                return col.format(row)
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tooltip(col.tooltip(row) if col.tooltip else col.format(row))
            if role == Qt.ItemDataRole.TextAlignmentRole:
                h = Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft
                return int(h | Qt.AlignmentFlag.AlignVCenter)
            if role == TraceIdRole:
                return row.trace_id
            if role == RowRole:
                return row
        except Exception:  # data() never raises; a broken row shows empty
            return None
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(TRACE_COLUMNS):
            return None
        col = TRACE_COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return col.title.replace(" / ", " /\n")  # two short header lines keep the list narrow
        if role == Qt.ItemDataRole.ToolTipRole:
            return col.title + ("" if col.sort_key in SORTABLE else " (not sortable)")
        return None

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self._store is not None and len(self._rows) < self._total

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        assert self._store is not None
        try:
            page = self._store.list(self._query, offset=len(self._rows), limit=PAGE_SIZE)
        except Exception as exc:
            self._total = len(self._rows)
            self.sig_error.emit(str(exc))
            return
        if not page:
            self._total = len(self._rows)  # the store shrank under us; stop asking
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(page) - 1)
        self._rows.extend(page)
        self.endInsertRows()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(TRACE_COLUMNS):
            return
        key = TRACE_COLUMNS[column].sort_key
        if key is None:
            return
        self.set_sort(key, order == Qt.SortOrder.DescendingOrder)

    # ------------------------------------------------------------------ internals

    def _requery(self) -> None:
        self.beginResetModel()
        self._rows = []
        self._total = 0
        error = None
        if self._store is not None:
            try:
                self._total = self._store.count(self._query)
                self._rows = self._store.list(self._query, offset=0, limit=PAGE_SIZE)
            except Exception as exc:
                self._rows, self._total = [], 0
                error = str(exc)
        self.endResetModel()
        if error:
            self.sig_error.emit(error)
