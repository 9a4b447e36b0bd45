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

The model is built from two parts: :mod:`~ctxviewer.gui.trace_list_queries` (a query's generation:
first page, count, key chunks) over :mod:`~ctxviewer.gui.trace_list_pages` (the page cache and the
last page); this module holds the public API, the Qt overrides and the state both share.

``data()`` never raises: a broken or not-yet-read row shows as empty. A store failure is reported
by ``sig_error(str)`` with the store's message (which names the file).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from typing import Any, Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal

from ctxviewer.gui.stale_refresh import StaleRefresher
from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.gui.trace_list_pages import CACHE_PAGES, NCOLS, PAGE_ROWS, Cell
from ctxviewer.gui.trace_list_queries import KeyRelay, TraceListQueries
from ctxviewer.gui.worker import Task
from ctxviewer.present.columns import TRACE_COLUMNS
from ctxviewer.store import SORTABLE, TraceQuery, TraceSource

__all__ = ["CACHE_PAGES", "PAGE_ROWS", "RowRole", "TraceIdRole", "TraceListModel"]

TraceIdRole = Qt.ItemDataRole.UserRole + 1
"""``data(index, TraceIdRole)`` -> the row's trace id (``str``)."""
RowRole = Qt.ItemDataRole.UserRole + 2
"""``data(index, RowRole)`` -> the row's :class:`~ctxviewer.store.TraceRow`."""

_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole.value)
_ROW_ROLES = frozenset({int(Qt.ItemDataRole.ToolTipRole.value), int(TraceIdRole), int(RowRole)})
_ALIGNMENTS = tuple(
    int(((Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft)
         | Qt.AlignmentFlag.AlignVCenter).value)
    for col in TRACE_COLUMNS
)



class TraceListModel(TraceListQueries):
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
        self._pages: OrderedDict[int, list[Cell | None]] = OrderedDict()
        self._recent = -1
        self._tail: dict[int, Cell] = {}
        self._tail_read = False
        self._empty_pages: set[int] = set()  # pages asked for (painted) before their keys came
        self._tasks: set[Task] = set()
        self._bound: int | None = None
        self._readers: dict[int, Any] = {}  # generation -> the worker's store handle (cancelled on requery)
        self._relay = KeyRelay(self)
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
            return cell[1][c] if 0 <= c < NCOLS else None
        if role == _ALIGN:
            c = index.column()
            return _ALIGNMENTS[c] if 0 <= c < NCOLS else None
        if role not in _ROW_ROLES or not index.isValid():
            return None
        cell = self._cell(index.row())
        c = index.column()
        if cell is None or not 0 <= c < NCOLS:
            return None
        row, texts = cell
        if role == TraceIdRole:
            return row.trace_id
        if role == RowRole:
            return row
        try:
            col = TRACE_COLUMNS[c]
            if row.damaged and c == 0:  # a row another program wrote: what could not be read
                return plain_tooltip(f"{texts[c]}: {row.damaged}")
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


    # ------------------------------------------------------------------ internals: refresh





    # ------------------------------------------------------------------ internals: queries













