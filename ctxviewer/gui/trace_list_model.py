"""Qt model of the trace list: an array of row keys and a bounded cache of formatted pages.

Built for a million traces. The model never holds the rows themselves:

* **count, then keys** -- off the GUI thread (one :class:`~ctxviewer.gui.worker.Task` per query)
  the exact count comes first (``SELECT count(*)``: tens of milliseconds on a million traces),
  announced by ``sig_counted(int)``; then every matching row key in list order, read in chunks
  (:meth:`TraceSource.key_chunks <ctxviewer.store.TraceSource.key_chunks>`) into an
  ``array('q')`` allocated once at the counted size (8 bytes per trace); rows become readable as
  their chunk arrives, and ``sig_keys_ready()`` says when all are there;
* **pages** -- at most :data:`CACHE_PAGES` pages of :data:`PAGE_ROWS` rows, each row kept as its
  :class:`~ctxviewer.store.TraceRow` and the formatted cell texts of
  :data:`ctxviewer.present.columns.TRACE_COLUMNS`; a page is read when it is first painted, by key
  (:meth:`~ctxviewer.store.TraceSource.rows_by_key`: a ``rowid IN (...)`` lookup -- never
  ``OFFSET``, never payload columns), and the least recently painted page is dropped.

Opening, filtering and sorting: the first page comes from a keyset query
(:meth:`~ctxviewer.store.TraceSource.first_rows`, an index walk) on the GUI thread when the order
walks an index and there is no filter; otherwise it too is read off the GUI thread. Until the keys
arrive, ``rowCount()`` is the store's estimate (the largest row key, for no filter) so the scroll
bar spans all rows from the first paint; the last page is then read by the reverse keyset query,
so End shows the real end at once. Rows in between show empty until the keys arrive.

The filter is display-filter text (:meth:`set_filter`, the grammar of :mod:`ctxviewer.store.filters`),
planned by the store (:meth:`TraceSource.filter_where <ctxviewer.store.TraceSource.filter_where>`,
as ``ctxviewer list --filter`` does) in the worker, or a SQL WHERE fragment over ``traces`` with
``?`` parameters (:meth:`set_where`); the order is a member of :data:`ctxviewer.store.SORTABLE`.

Stale rows (facts stored in another assessment context: a ``ctxviewer.toml`` written after the
import, new marks, an older ctxviewer; :func:`ctxviewer.present.columns.is_stale`) are shown with
their State marked ``*`` when first painted, then refreshed in the background: a worker recomputes
each painted stale row in the window's context (:class:`~ctxviewer.gui.stale_refresh.StaleRefresher`,
:func:`ctxviewer.pipeline.fresh_rows.refreshed_row`,
the assessment ``show`` runs), in memory -- the database stays read-only -- and the row is repainted
with what ``show`` says; ``sig_refreshed(int)`` counts them. Filters and sorts still read the stored
facts (``ctxviewer upgrade`` rewrites them).

``data()`` never raises: a broken or not-yet-read row shows as empty. A store failure is reported
by ``sig_error(str)`` with the store's message (which names the file).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from typing import Any, Callable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from ctxviewer.gui.stale_refresh import StaleRefresher
from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.gui.worker import Task
from ctxviewer.present.columns import TRACE_COLUMNS, is_stale, row_texts
from ctxviewer.store import SORTABLE, TraceQuery, TraceRow, TraceSource
from ctxviewer.store.query import INDEXED_SORTS

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


def _runs(pages: list[int]) -> list[tuple[int, int]]:
    """Ascending page numbers as runs of consecutive pages: ``[1, 2, 3, 7]`` -> ``[(1, 3), (7, 7)]``."""
    runs: list[tuple[int, int]] = []
    for p in pages:
        if runs and runs[-1][1] == p - 1:
            runs[-1] = (runs[-1][0], p)
        else:
            runs.append((p, p))
    return runs


def _plan(st: TraceSource, text: str, where: str, params: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """The filter to run on ``st``: display-filter ``text`` planned by the store, else the fragment."""
    if not text:
        return where, params
    planned, planned_params = st.filter_where(TraceQuery(text=text))
    return ("" if planned == "1" else planned), tuple(planned_params)


class _Relay(QObject):
    """Carries a worker's partial results (the first page, the count, key chunks) to the GUI
    thread: it lives there, so a signal emitted from the worker is queued to its receivers."""

    sig_part = Signal(object)


class TraceListModel(QAbstractTableModel):
    """The traces of one store; empty when no store is set. See the module docstring.

    ``threaded=False`` reads every row key on the calling thread before a query returns (the
    benchmarks that time painting or scrolling with every key read); the window uses the default,
    which never counts or sorts on the GUI thread.
    """

    sig_error = Signal(str)
    sig_counted = Signal(int)
    """The exact number of matching traces (before the keys are read)."""
    sig_keys_ready = Signal()
    """Every row key is read: every row can be shown and :meth:`row_of` finds any trace."""
    sig_refreshed = Signal(int)
    """How many stale rows have been recomputed in the window's context so far (in memory)."""

    def __init__(self, store: TraceSource | None = None, parent: Any = None, *, threaded: bool = True) -> None:
        super().__init__(parent)
        self._threaded = threaded
        self.context: str | None = None
        """The fingerprint of the context the window assesses in: rows stored in another are marked
        stale (:func:`ctxviewer.present.columns.is_stale`); set before :meth:`set_store`."""
        self.assess_context: Any = None
        """The :class:`~ctxviewer.assess.context.AssessContext` whose fingerprint is :attr:`context`:
        stale rows are recomputed in it in the background; ``None`` = no refresh (set before
        :meth:`set_store`)."""
        self._refresher = StaleRefresher(self)  # stale rows recomputed in the background
        self._refresher.sig_rows.connect(self._on_fresh)
        self._store: TraceSource | None = None
        self._text = ""
        self._where = ""
        self._params: tuple[Any, ...] = ()
        self._sort = "created"
        self._desc = False
        self._gen = 0
        self._keys: array[int] | None = None
        self._filled = 0  # keys[:_filled] are read
        self._count: int | None = None
        self._n = 0
        self._pages: OrderedDict[int, list[_Cell | None]] = OrderedDict()
        self._recent = -1
        self._tail: dict[int, _Cell] = {}
        self._tail_read = False
        self._empty_pages: set[int] = set()  # pages asked for (painted) before their keys came
        self._tasks: set[Task] = set()
        self._bound: int | None = None
        self._readers: dict[int, Any] = {}  # generation -> the worker's store handle (cancelled on requery)
        self._relay = _Relay(self)
        self._relay.sig_part.connect(self._on_part)
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
    def bound(self) -> int | None:
        """The store's fast upper bound of the rows (:meth:`TraceSource.estimate_count
        <ctxviewer.store.TraceSource.estimate_count>`), shown as "≤ N" until :attr:`counted`;
        ``None`` when the store gave none for this query."""
        return self._bound

    @property
    def counted(self) -> bool:
        """True once the exact count is known (``sig_counted``); the keys may still be arriving."""
        return self._count is not None

    @property
    def keys_ready(self) -> bool:
        """True once every row key is read (``sig_keys_ready``)."""
        return self._keys is not None and self._filled >= self._n and self._count is not None

    @property
    def filter_text(self) -> str:
        """The display-filter text of :meth:`set_filter` ("" after :meth:`set_where`)."""
        return self._text

    def set_store(self, store: TraceSource | None) -> None:
        """Show ``store`` (or nothing). Keeps the current filter and sort."""
        self._store = store
        self._refresher.reset(store, self.assess_context)
        self._requery()

    @property
    def refreshed(self) -> int:
        """How many stale rows have been recomputed in the window's context (see the module docstring)."""
        return len(self._refresher.fresh)

    @property
    def refreshing(self) -> bool:
        """True while stale rows are queued or being recomputed."""
        return self._refresher.busy

    def set_where(self, where: str, params: Sequence[Any] = ()) -> None:
        """Filter by a SQL WHERE fragment over ``traces`` (without ``WHERE``; "" = all) with ``?``
        parameters, used as given (not planned). Re-queries the store."""
        if (where, tuple(params), "") != (self._where, self._params, self._text):
            self._where, self._params, self._text = where, tuple(params), ""
            self._requery()

    def set_filter(self, text: str) -> None:
        """Filter by display-filter ``text`` (:mod:`ctxviewer.store.filters`; "" = all), planned by the
        store's :meth:`~ctxviewer.store.TraceSource.filter_where` off the GUI thread, as ``ctxviewer
        list --filter`` plans it. Raises ``FilterError`` (a ``ValueError``) for text that does not
        parse, before anything changes."""
        where, params = TraceQuery(text=text).filter_sql()
        if (where, tuple(params), text if where else "") != (self._where, self._params, self._text):
            self._where, self._params, self._text = where, tuple(params), text if where else ""
            self._requery()

    def set_sort(self, key: str, descending: bool = False) -> None:
        """Sort by the store's sort ``key`` (a member of ``SORTABLE``). Unknown keys are ignored."""
        if key not in SORTABLE or (key, descending) == (self._sort, self._desc):
            return
        self._sort, self._desc = key, descending
        self._requery()

    def stop(self, ms: int = 30_000) -> bool:
        """Cancel the count and key reads still running and wait for them (at most ``ms``
        milliseconds each), without processing events: the window is closing. Late results are
        dropped. Returns whether every worker had ended."""
        self._gen += 1
        ok = True
        refresh = self._refresher.reset()  # nothing more is recomputed
        if refresh is not None:
            ok = refresh.wait_job(ms)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            ok = task.wait_job(ms) and ok
        self._tasks.clear()
        return ok

    def trace_id(self, row: int) -> str | None:
        """Trace id of row ``row``, or ``None`` if out of range or not read yet."""
        cell = self._cell(row)
        return None if cell is None else cell[0].trace_id

    def row_of(self, trace_id: str) -> int | None:
        """Row of ``trace_id`` in the current list, or ``None`` (not matching, or keys not read yet
        and the row not among those already shown)."""
        if self._store is None:
            return None
        if self._keys is not None and self._filled:
            try:
                key = self._store.key_of(trace_id)
                return None if key is None else self._keys.index(key, 0, self._filled)
            except ValueError:
                if self.keys_ready:
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

    def _format(self, row: TraceRow) -> _Cell:
        """The row (its refreshed version once recomputed) and its cell texts; a stale row's State
        is marked and the row queued for the background refresh."""
        fresh = self._refresher.fresh.get(row.trace_id)
        if fresh is not None:
            return fresh, row_texts(fresh, self.context)
        if self.assess_context is not None and self._threaded and is_stale(row, self.context):
            self._refresher.want(row)
        return row, row_texts(row, self.context)  # a stale State marked (the context the window assesses in)

    # ------------------------------------------------------------------ internals: refresh

    def _on_fresh(self, rows: list[TraceRow]) -> None:
        if not rows:
            return
        cells = {r.trace_id: (r, row_texts(r, self.context)) for r in rows}
        for page, page_cells in self._pages.items():
            for i, old in enumerate(page_cells):
                if old is not None and old[0].trace_id in cells:
                    page_cells[i] = cells[old[0].trace_id]
                    r = page * PAGE_ROWS + i
                    self.dataChanged.emit(self.index(r, 0), self.index(r, _NCOLS - 1))
        for r, old in list(self._tail.items()):
            if old[0].trace_id in cells:
                self._tail[r] = cells[old[0].trace_id]
                self.dataChanged.emit(self.index(r, 0), self.index(r, _NCOLS - 1))
        self.sig_refreshed.emit(len(self._refresher.fresh))

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
        end = min((page + 1) * PAGE_ROWS, self._n)
        if self._keys is None or self._filled < end:
            if self._tail_allowed() and row >= self._n - PAGE_ROWS:
                self._read_tail()
                return self._tail.get(row)
            self._empty_pages.add(page)  # painted empty: repainted when its keys come
            return None
        try:
            rows = self._store.rows_by_key(self._keys[page * PAGE_ROWS:end])
        except Exception as exc:
            self._keys = array("q")
            self._n = 0
            self.sig_error.emit(str(exc))
            return None
        self._pages[page] = [None if r is None else self._format(r) for r in rows]
        self._recent = page
        while len(self._pages) > CACHE_PAGES:
            self._pages.popitem(last=False)
        i = row - page * PAGE_ROWS
        return self._pages[page][i] if i < len(self._pages[page]) else None

    def _tail_allowed(self) -> bool:
        # also while the keys are arriving: End shows the real end until its chunk is there
        return not self._where and not self._tail_read and self._n > PAGE_ROWS

    def _read_tail(self) -> None:
        """Before the keys arrive: the last page by the reverse keyset query (End shows the end)."""
        assert self._store is not None
        self._tail_read = True
        try:
            last = self._store.first_rows(self._where, self._params, self._sort, not self._desc, PAGE_ROWS)
        except Exception as exc:
            self.sig_error.emit(str(exc))
            return
        self._tail = {self._n - 1 - i: self._format(r) for i, (_k, r) in enumerate(last)}

    # ------------------------------------------------------------------ internals: queries

    def _requery(self) -> None:
        self._gen += 1
        for task in self._tasks:
            task.cancel()
        self._cancel_readers()
        self._bound = None
        self.beginResetModel()
        self._keys, self._filled, self._count, self._n = None, 0, None, 0  # the old array is freed here
        self._pages.clear()
        self._tail.clear()
        self._tail_read = False
        self._empty_pages.clear()
        error = None
        need_first = False
        st = self._store
        if st is None:
            self._keys, self._count = array("q"), 0
        else:
            args = (self._where, self._params, self._sort, self._desc)
            try:
                if not self._threaded:
                    where, params = self._planned(st)
                    self._keys = st.row_keys(where, params, self._sort, self._desc)
                    self._n = self._count = self._filled = len(self._keys)
                elif not self._where and self._sort in INDEXED_SORTS:
                    first = st.first_rows(*args, limit=PAGE_ROWS)
                    self._pages[0] = [self._format(r) for _k, r in first]
                    if len(first) < PAGE_ROWS:
                        self._keys = array("q", (k for k, _r in first))
                        self._n = self._count = self._filled = len(first)
                    else:
                        self._bound = st.estimate_count(self._where)
                        self._n = max(len(first), self._bound or 0)
                else:
                    need_first = True
            except Exception as exc:
                self._keys, self._filled, self._count, self._n = array("q"), 0, 0, 0
                self._pages.clear()
                error = str(exc)
        self.endResetModel()
        if error:
            self.sig_error.emit(error)
        elif self._count is not None:
            self.sig_counted.emit(self._n)
            self.sig_keys_ready.emit()
        else:
            self._start(self._list_job(need_first))

    def _planned(self, st: TraceSource) -> tuple[str, tuple[Any, ...]]:
        return _plan(st, self._text, self._where, self._params)

    def _start(self, job: Callable[[Any, Any], Any]) -> None:
        task = Task(job, self)
        self._tasks.add(task)
        task.sig_finished.connect(lambda _r, t=task: self._tasks.discard(t))
        task.sig_failed.connect(lambda msg, t=task, g=self._gen: self._on_failed(g, t, msg))
        task.start()

    def _list_job(self, need_first: bool) -> Callable[[Any, Any], Any]:
        """The worker's part of a query: plan the filter, the first page (when the GUI thread did
        not read it), the exact count, then the keys chunk by chunk -- each sent to
        :meth:`_on_part` as soon as it is read."""
        assert self._store is not None
        store, gen, order, desc = self._store, self._gen, self._sort, self._desc
        send = self._relay.sig_part.emit
        text, where0, params0 = self._text, self._where, self._params  # this query's, not the model's later ones

        readers = self._readers

        def job(_progress: Any, cancelled: Callable[[], bool]) -> None:
            st = store.reader()  # a connection of this thread
            readers[gen] = st  # so a new query stops this one's on the server (_cancel_readers)
            try:
                where, params = _plan(st, text, where0, params0)
                if need_first:
                    first = st.first_rows(where, params, order, desc, limit=PAGE_ROWS)
                    send((gen, "first", first))
                    if len(first) < PAGE_ROWS:  # the whole list: its count and keys are known
                        return
                if cancelled():
                    return
                send((gen, "count", st.count_where(where, params)))
                for chunk in st.key_chunks(where, params, order, desc):
                    if cancelled():
                        return
                    send((gen, "keys", chunk))
                send((gen, "done", None))
            finally:
                readers.pop(gen, None)
                st.close()

        return job

    def _cancel_readers(self) -> None:
        """Stop the superseded queries' running statements where they run: a store handle with a
        ``cancel()`` (:meth:`ClickHouseSource.cancel <ctxviewer.pipeline.clickhouse.source.ClickHouseSource.cancel>`:
        ``KILL QUERY`` by query id) is told on a thread of its own, so the GUI thread never waits
        for the server; the worker then ends with the store's error, which is dropped as late."""
        import threading

        for gen, reader in list(self._readers.items()):
            cancel = getattr(reader, "cancel", None)
            if gen != self._gen and callable(cancel):
                threading.Thread(target=cancel, name="ctxviewer-cancel", daemon=True).start()

    def _on_failed(self, gen: int, task: Task, message: str) -> None:
        self._tasks.discard(task)
        if gen == self._gen:
            self.sig_error.emit(message)

    def _on_part(self, part: tuple[int, str, Any]) -> None:
        gen, what, value = part
        if gen != self._gen:
            return  # a cancelled query's late result
        if what == "first":
            self._on_first(value)
        elif what == "count":
            self._on_count(int(value))
        elif what == "keys":
            self._on_chunk(value)
        else:
            self._on_done()

    def _on_first(self, first: list[tuple[int, TraceRow]]) -> None:
        if self._count is not None:
            return
        if first:
            self.beginInsertRows(QModelIndex(), 0, len(first) - 1)
            self._pages[0] = [self._format(r) for _k, r in first]
            self._n = len(first)
            self.endInsertRows()
        if len(first) < PAGE_ROWS:  # the whole list: its keys and count are known now
            self._keys = array("q", (k for k, _r in first))
            self._count = self._filled = len(first)
            self.sig_counted.emit(self._n)
            self.sig_keys_ready.emit()

    def _resize(self, n_new: int) -> None:
        n_old = self._n
        if n_new > n_old:
            self.beginInsertRows(QModelIndex(), n_old, n_new - 1)
            self._n = n_new
            self.endInsertRows()
        elif n_new < n_old:
            self.beginRemoveRows(QModelIndex(), n_new, n_old - 1)
            self._n = n_new
            self.endRemoveRows()

    def _on_count(self, n: int) -> None:
        if n != self._n:
            self._tail.clear()  # its rows were placed by the estimate
            self._tail_read = False
        self._count = n
        self._keys = array("q", [0]) * n  # allocated once; filled chunk by chunk
        self._filled = 0
        self._resize(n)
        self.sig_counted.emit(n)

    def _on_chunk(self, chunk: array[int]) -> None:
        keys = self._keys
        if keys is None:
            return
        start = self._filled
        end = start + len(chunk)
        if end > len(keys):  # rows were added since the count: grow (rare)
            keys.extend(array("q", [0]) * (end - len(keys)))
            self._count = end
            self._resize(end)
        keys[start:end] = chunk
        self._filled = end
        # Rows shown before their keys came (the first page, pages painted empty) are read again,
        # by key, and repainted whole; rows never painted need nothing (a dataChanged over every
        # chunk repainted the list about 60 times while 1M keys arrived). A page is readable only
        # once all its keys are here (_cell): one this chunk leaves incomplete (chunks are not
        # page-aligned) waits for the next chunk.
        first_page, last_page = start // PAGE_ROWS, (end - 1) // PAGE_ROWS
        if end < len(keys) and (last_page + 1) * PAGE_ROWS > end:
            last_page -= 1  # still incomplete
        changed = [p for p in range(first_page, last_page + 1)
                   if self._pages.pop(p, None) is not None or p in self._empty_pages]
        self._empty_pages.difference_update(changed)
        self._repaint_pages(changed)

    def _repaint_pages(self, pages: list[int]) -> None:
        """``dataChanged`` over the rows of ``pages`` (ascending), one signal per run of pages."""
        for lo, hi in _runs(pages):
            top, bottom = lo * PAGE_ROWS, min(self._n, (hi + 1) * PAGE_ROWS) - 1
            self.dataChanged.emit(self.index(top, 0), self.index(bottom, _NCOLS - 1))

    def _on_done(self) -> None:
        if self._keys is None:
            return
        if self._filled < len(self._keys):  # rows were removed since the count
            del self._keys[self._filled:]
            self._count = self._filled
            self._resize(self._filled)
            self._repaint_pages(sorted(p for p in self._empty_pages if p * PAGE_ROWS < self._n))
        self._empty_pages.clear()
        if self._tail:
            self._tail.clear()
            if self._n:
                self.dataChanged.emit(self.index(0, 0), self.index(self._n - 1, _NCOLS - 1))
        self.sig_keys_ready.emit()
