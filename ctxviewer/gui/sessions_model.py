"""The Qt models of the Sessions dialog (:mod:`ctxviewer.gui.sessions_view`), over the store:

* :class:`SessionListModel` -- the sessions with a call matching the trace list's filter, in
  session-id order, read a page at a time as the view scrolls (``canFetchMore`` / ``fetchMore``:
  :meth:`ctxviewer.store.TraceStore.sessions` after the last id shown);
* :class:`SessionCallsModel` -- one session's calls in send order
  (:meth:`~ctxviewer.store.TraceStore.session_calls`, narrow rows, never a payload).

Cells are :mod:`ctxviewer.present.session_cells`' words (what ``ctxviewer sessions`` / ``session``
print); a failure call's state is red. Plain text only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.present.session_cells import CALL_HEADERS, SESSION_HEADERS, call_cells, session_cells
from ctxviewer.store import StoreError, TraceQuery, TraceRow
from ctxviewer.store.filters import FilterError

PAGE_SIZE = 200
"""Sessions read per page."""
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
"""``data(index, ROW_ROLE)``: the row's :class:`~ctxviewer.store.sessions.SessionSummary` or
:class:`~ctxviewer.store.TraceRow`."""
_NUMBERS = frozenset({"#", "calls", "counted input", "output", "cost", "ms", "models"})
_STATE_COLOURS = {"failure": QColor("#b91c1c"), "warning": QColor("#b45309")}
_Index = QModelIndex | QPersistentModelIndex


class _Table(QAbstractTableModel):
    """Rows of cells with :data:`ROW_ROLE` and right-aligned numbers."""

    headers: tuple[str, ...] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Any] = []
        self.cells: list[list[str]] = []

    def row(self, n: int) -> Any:
        """The stored row ``n`` (``None`` when out of range)."""
        return self.rows[n] if 0 <= n < len(self.rows) else None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        text = self.cells[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(text)
        if role == Qt.ItemDataRole.TextAlignmentRole and self.headers[index.column()] in _NUMBERS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ROW_ROLE:
            return self.rows[index.row()]
        return self.style(index, role)

    def style(self, index: _Index, role: int) -> Any:
        """Extra roles of a cell (colours); ``None`` by default."""
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(self.headers):
            return self.headers[section]
        return None


class SessionListModel(_Table):
    """The sessions of one store and filter, read lazily (module docstring). ``sig_error(str)``:
    the store or the filter failed (the rows read so far stay)."""

    headers = SESSION_HEADERS
    sig_error = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.store: Any = None
        self.query: TraceQuery | None = None
        self._more = False

    def set_source(self, store: Any, filter_text: str = "") -> None:
        """Show the sessions of ``store`` (a :class:`~ctxviewer.store.TraceStore`; ``None``: none)
        with a call ``filter_text`` keeps, reading the first page."""
        self.beginResetModel()
        self.store, self.rows, self.cells, self._more = store, [], [], store is not None
        error = None
        try:
            self.query = TraceQuery(text=filter_text)
        except FilterError as exc:
            self.query, self._more, error = None, False, f"filter: {exc.message}"
        page = self._page() if self._more else []
        self._add(page)
        self.endResetModel()
        if error:
            self.sig_error.emit(error)

    def _page(self) -> list[Any]:
        after = self.rows[-1].session_id if self.rows else None
        try:
            page = list(self.store.sessions(self.query, after, PAGE_SIZE))
        except (StoreError, FilterError) as exc:
            self._more = False
            self.sig_error.emit(str(exc))
            return []
        self._more = len(page) == PAGE_SIZE
        return page

    def _add(self, page: list[Any]) -> None:
        self.rows.extend(page)
        self.cells.extend(session_cells(s) for s in page)

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self._more

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        page = self._page()
        if page:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(page) - 1)
            self._add(page)
            self.endInsertRows()

    def find(self, session_id: str) -> int | None:
        """The row of ``session_id``, reading further pages until it is shown or none are left
        (session-id order: the pages stop once past it); ``None`` when it is not listed."""
        while True:
            for n, s in enumerate(self.rows):
                if s.session_id == session_id:
                    return n
            if not self._more or (self.rows and self.rows[-1].session_id > session_id):
                return None
            self.fetchMore()


class SessionCallsModel(_Table):
    """One session's calls in send order (module docstring)."""

    headers = CALL_HEADERS
    sig_error = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.session_id: str | None = None

    def set_session(self, store: Any, session_id: str | None) -> None:
        """Show the calls of ``session_id`` in ``store`` (``None``: none)."""
        self.beginResetModel()
        self.session_id, self.rows, self.cells = session_id, [], []
        error = None
        if store is not None and session_id is not None:
            try:
                self.rows = list(store.session_calls(session_id))
            except StoreError as exc:
                error = str(exc)
        self.cells = [call_cells(n, r) for n, r in enumerate(self.rows, 1)]
        self.endResetModel()
        if error:
            self.sig_error.emit(error)

    def trace_row(self, n: int) -> TraceRow | None:
        """The call of row ``n``."""
        row = self.row(n)
        return row if isinstance(row, TraceRow) else None

    def style(self, index: _Index, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and self.headers[index.column()] == "state":
            colour = _STATE_COLOURS.get(self.rows[index.row()].state or "")
            return QBrush(colour) if colour is not None else None
        return None
