"""Qt model of the trace list: an array of row keys and a bounded cache of formatted pages.

Built for a million traces (issue 11). The model never holds the rows themselves:

* **keys** -- every matching row key in list order, an ``array('q')`` (8 bytes per trace) read by
  :meth:`TraceSource.row_keys <ctxviewer.store.TraceSource.row_keys>` *off the GUI thread*
  (:class:`~ctxviewer.gui.worker.Task`); its length is the exact count, announced by
  ``sig_counted(int)``;
* **pages** -- at most :data:`CACHE_PAGES` pages of :data:`PAGE_ROWS` rows, each row kept as its
  :class:`~ctxviewer.store.TraceRow` and the formatted cell texts of
  :data:`ctxviewer.columns.TRACE_COLUMNS`; a page is read when it is first painted, by key
  (:meth:`~ctxviewer.store.TraceSource.rows_by_key`: a ``rowid IN (...)`` lookup -- never
  ``OFFSET``, never payload columns), and the least recently painted page is dropped.

Opening, filtering and sorting: the first page comes from a keyset query
(:meth:`~ctxviewer.store.TraceSource.first_rows`, an index walk) on the GUI thread when the order
walks an index and there is no filter; otherwise it too is read off the GUI thread. Until the keys
arrive, ``rowCount()`` is the store's estimate (the largest row key, for no filter) so the scroll
bar spans all rows from the first paint; the last page is then read by the reverse keyset query,
so End shows the real end at once. Rows in between show empty until the keys arrive.

The filter is a SQL WHERE fragment over the ``traces`` table with ``?`` parameters
(:meth:`set_where`; the display-filter grammar compiles to it) or the old substring filter
(:meth:`set_filter`); the order is a member of :data:`ctxviewer.store.SORTABLE`.

``data()`` never raises: a broken or not-yet-read row shows as empty. A store failure is reported
by ``sig_error(str)`` with the store's message (which names the file).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from typing import Any, Callable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from ..columns import TRACE_COLUMNS
from ..store import SORTABLE, TraceQuery, TraceRow, TraceSource
from ..store.query import INDEXED_SORTS
from .tables import plain_tooltip
from .worker import Task

PAGE_ROWS = 100
"""Rows per cached page (one ``rowid IN (...)`` lookup)."""
CACHE_PAGES = 48
"""Pages kept formatted; the least recently painted one is dropped beyond this (4,800 rows)."""

TraceIdRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, TraceIdRole)`` -> the row's trace id (``str``)."""
RowRole = Qt.ItemDataRole.UserRole + 2
"""``data(index, RowRole)`` -> the row's :class:`~ctxviewer.store.TraceRow`."""

_Index = QModelIndex | QPersistentModelIndex
_Cell = tuple[TraceRow, tuple[str, ...]]
_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole.value)
_ROW_ROLES = frozenset({int(Qt.ItemDataRole.ToolTipRole.value), int(TraceIdRole), int(RowRole)})
_NCOLS = len(TRACE_COLUMNS)
_ALIGNMENTS = tuple(
    int(((Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft)
         | Qt.AlignmentFlag.AlignVCenter).value)
    for col in TRACE_COLUMNS
)


def _format(row: TraceRow) -> _Cell:
    texts = []
    for col in TRACE_COLUMNS:
        try:
            texts.append(col.format(row))
        except Exception:  # a broken value shows empty; data() never raises
            texts.append("")
    return row, tuple(texts)


class TraceListModel(QAbstractTableModel):
    """The traces of one store; empty when no store is set. See the module docstring.

    ``threaded=False`` reads the keys on the calling thread (tests, scripts); the window uses the
    default, which never counts or sorts on the GUI thread.
    """

    sig_error = Signal(str)
    sig_counted = Signal(int)
    """The exact number of matching traces, once the keys have been read."""

    def __init__(self, store: TraceSource | None = None, parent: Any = None, *, threaded: bool = True) -> None:
        super().__init__(parent)
        self._threaded = threaded
        self._store: TraceSource | None = None
        self._text = ""
        self._where = ""
        self._params: tuple[Any, ...] = ()
        self._sort = "created"
        self._desc = False
        self._gen = 0
        self._keys: array[int] | None = None
        self._n = 0
        self._pages: OrderedDict[int, list[_Cell | None]] = OrderedDict()
        self._recent = -1
        self._tail: dict[int, _Cell] = {}
        self._tasks: set[Task] = set()
        self.set_store(store)

    # ------------------------------------------------------------------ public API

    @property
    def where(self) -> tuple[str, tuple[Any, ...]]:
        """The current filter: ``(WHERE fragment, params)``; ``("", ())`` for all traces."""
        return self._where, self._params

    @property
    def sort_order(self) -> tuple[str, bool]:
        """The current order: ``(SORTABLE key, descending)``."""
        return self._sort, self._desc

    @property
    def total(self) -> int:
        """Number of rows the list has now: the exact count once :attr:`counted`, else the estimate."""
        return self._n

    @property
    def counted(self) -> bool:
        """True once the row keys (and so the exact count) are known."""
        return self._keys is not None

    def set_store(self, store: TraceSource | None) -> None:
        """Show ``store`` (or nothing). Keeps the current filter and sort."""
        self._store = store
        self._requery()

    def set_where(self, where: str, params: Sequence[Any] = ()) -> None:
        """Filter by a SQL WHERE fragment over ``traces`` (without ``WHERE``; "" = all) with ``?``
        parameters, as compiled by the display-filter grammar. Re-queries the store."""
        if (where, tuple(params)) != (self._where, self._params):
            self._where, self._params = where, tuple(params)
            self._text = ""
            self._requery()

    def set_filter(self, text: str) -> None:
        """Filter by ``text``: every word a substring of trace id, model, service or provider
        (:class:`~ctxviewer.store.TraceQuery`)."""
        where, params = TraceQuery(text=text).filter_sql()
        self.set_where(where, params)
        self._text = text

    def set_sort(self, key: str, descending: bool = False) -> None:
        """Sort by the store's sort ``key`` (a member of ``SORTABLE``). Unknown keys are ignored."""
        if key not in SORTABLE or (key, descending) == (self._sort, self._desc):
            return
        self._sort, self._desc = key, descending
        self._requery()

    def trace_id(self, row: int) -> str | None:
        """Trace id of row ``row``, or ``None`` if out of range or not read yet."""
        cell = self._cell(row)
        return None if cell is None else cell[0].trace_id

    def row_of(self, trace_id: str) -> int | None:
        """Row of ``trace_id`` in the current list, or ``None`` (not matching, or keys not read yet
        and the row not among those already shown)."""
        if self._store is None:
            return None
        if self._keys is not None:
            try:
                key = self._store.key_of(trace_id)
                return None if key is None else self._keys.index(key)
            except ValueError:
                return None
            except Exception as exc:
                self.sig_error.emit(str(exc))
                return None
        for page, cells in self._pages.items():
            for i, cell in enumerate(cells):
                if cell is not None and cell[0].trace_id == trace_id:
                    return page * PAGE_ROWS + i
        return next((r for r, cell in self._tail.items() if cell[0].trace_id == trace_id), None)

    # ------------------------------------------------------------------ Qt overrides

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._n

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(TRACE_COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Called for every role of every painted cell (about 1,400 calls a frame): plain int
        # comparisons, the page looked up once, alignments precomputed.
        if role == _DISPLAY:
            cell = self._cell(index.row())
            if cell is None:
                return None
            c = index.column()
            return cell[1][c] if 0 <= c < _NCOLS else None
        if role == _ALIGN:
            c = index.column()
            return _ALIGNMENTS[c] if 0 <= c < _NCOLS else None
        if role not in _ROW_ROLES or not index.isValid():
            return None
        cell = self._cell(index.row())
        c = index.column()
        if cell is None or not 0 <= c < _NCOLS:
            return None
        row, texts = cell
        if role == TraceIdRole:
            return row.trace_id
        if role == RowRole:
            return row
        try:
            col = TRACE_COLUMNS[c]
            return plain_tooltip(col.tooltip(row) if col.tooltip else texts[c])
        except Exception:  # data() never raises; a broken row shows empty
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

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(TRACE_COLUMNS):
            return
        key = TRACE_COLUMNS[column].sort_key
        if key is None:
            return
        self.set_sort(key, order == Qt.SortOrder.DescendingOrder)

    # ------------------------------------------------------------------ internals: rows

    def _cell(self, row: int) -> _Cell | None:
        if not 0 <= row < self._n:
            return None
        page = row // PAGE_ROWS
        cells = self._pages.get(page)
        if cells is not None:
            if page != self._recent:
                self._pages.move_to_end(page)
                self._recent = page
            i = row - page * PAGE_ROWS
            return cells[i] if i < len(cells) else None
        if row in self._tail:
            return self._tail[row]
        if self._store is None:
            return None
        if self._keys is None:
            if self._tail_allowed() and row >= self._n - PAGE_ROWS:
                self._read_tail()
                return self._tail.get(row)
            return None
        try:
            rows = self._store.rows_by_key(self._keys[page * PAGE_ROWS:(page + 1) * PAGE_ROWS])
        except Exception as exc:
            self._keys = array("q")
            self._n = 0
            self.sig_error.emit(str(exc))
            return None
        self._pages[page] = [None if r is None else _format(r) for r in rows]
        self._recent = page
        while len(self._pages) > CACHE_PAGES:
            self._pages.popitem(last=False)
        i = row - page * PAGE_ROWS
        return self._pages[page][i] if i < len(self._pages[page]) else None

    def _tail_allowed(self) -> bool:
        return not self._where and not self._tail and self._n > PAGE_ROWS

    def _read_tail(self) -> None:
        """Before the keys arrive: the last page by the reverse keyset query (End shows the end)."""
        assert self._store is not None
        try:
            last = self._store.first_rows(self._where, self._params, self._sort, not self._desc, PAGE_ROWS)
        except Exception as exc:
            self.sig_error.emit(str(exc))
            return
        self._tail = {self._n - 1 - i: _format(r) for i, (_k, r) in enumerate(last)}

    # ------------------------------------------------------------------ internals: queries

    def _requery(self) -> None:
        self._gen += 1
        for task in self._tasks:
            task.cancel()
        self.beginResetModel()
        self._keys, self._n = None, 0
        self._pages.clear()
        self._tail.clear()
        error = None
        need_first = False
        st = self._store
        if st is None:
            self._keys = array("q")
        else:
            args = (self._where, self._params, self._sort, self._desc)
            try:
                if not self._threaded:
                    self._keys = st.row_keys(*args)
                    self._n = len(self._keys)
                elif not self._where and self._sort in INDEXED_SORTS:
                    first = st.first_rows(*args, limit=PAGE_ROWS)
                    self._pages[0] = [_format(r) for _k, r in first]
                    if len(first) < PAGE_ROWS:
                        self._keys = array("q", (k for k, _r in first))
                        self._n = len(first)
                    else:
                        self._n = max(len(first), st.estimate_count(self._where) or 0)
                else:
                    need_first = True
            except Exception as exc:
                self._keys, self._n = array("q"), 0
                self._pages.clear()
                error = str(exc)
        self.endResetModel()
        if error:
            self.sig_error.emit(error)
        elif self._keys is not None:
            self.sig_counted.emit(self._n)
        else:
            if need_first:
                self._start(self._first_job(), self._on_first)
            self._start(self._keys_job(), self._on_keys)

    def _start(self, job: Callable[[Any, Any], Any], done: Callable[[Any], None]) -> None:
        task = Task(job, self)
        self._tasks.add(task)
        task.sig_finished.connect(done)
        task.sig_finished.connect(lambda _r, t=task: self._tasks.discard(t))
        task.sig_failed.connect(lambda msg, t=task, g=self._gen: self._on_failed(g, t, msg))
        task.start()

    def _reader_args(self) -> tuple[TraceSource, int, tuple[str, tuple[Any, ...], str, bool]]:
        assert self._store is not None
        return self._store, self._gen, (self._where, self._params, self._sort, self._desc)

    def _first_job(self) -> Callable[[Any, Any], Any]:
        store, gen, args = self._reader_args()

        def job(_progress: Any, _cancelled: Any) -> tuple[int, list[tuple[int, TraceRow]]]:
            st = store.reader()  # a connection of this thread
            try:
                return gen, st.first_rows(*args, limit=PAGE_ROWS)
            finally:
                st.close()

        return job

    def _keys_job(self) -> Callable[[Any, Any], Any]:
        store, gen, args = self._reader_args()

        def job(_progress: Any, cancelled: Callable[[], bool]) -> tuple[int, array[int]]:
            st = store.reader()
            try:
                return gen, st.row_keys(*args, cancelled=cancelled)
            finally:
                st.close()

        return job

    def _on_failed(self, gen: int, task: Task, message: str) -> None:
        self._tasks.discard(task)
        if gen == self._gen:
            self.sig_error.emit(message)

    def _on_first(self, result: tuple[int, list[tuple[int, TraceRow]]]) -> None:
        gen, first = result
        if gen != self._gen or self._keys is not None:
            return
        if first:
            self.beginInsertRows(QModelIndex(), 0, len(first) - 1)
            self._pages[0] = [_format(r) for _k, r in first]
            self._n = len(first)
            self.endInsertRows()
        if len(first) < PAGE_ROWS:  # the whole list: its keys and count are known now
            self._keys = array("q", (k for k, _r in first))
            self.sig_counted.emit(self._n)

    def _on_keys(self, result: tuple[int, array[int]]) -> None:
        gen, keys = result
        if gen != self._gen or (self._keys is not None and self._keys == keys):
            return
        n_old, n_new = self._n, len(keys)
        self._keys = keys
        self._tail.clear()
        if n_new > n_old:
            self.beginInsertRows(QModelIndex(), n_old, n_new - 1)
            self._n = n_new
            self.endInsertRows()
        elif n_new < n_old:
            self.beginRemoveRows(QModelIndex(), n_new, n_old - 1)
            self._n = n_new
            self.endRemoveRows()
        if n_new:
            self._pages.clear()  # rows shown before the keys came are read again, by key
            self.dataChanged.emit(self.index(0, 0), self.index(n_new - 1, len(TRACE_COLUMNS) - 1))
        self.sig_counted.emit(n_new)
