"""The trace list's pages: the bounded cache of formatted pages of :data:`PAGE_ROWS` rows (at most
:data:`CACHE_PAGES`, the least recently painted dropped), each read by key when first painted
(:meth:`~ctxviewer.store.TraceSource.rows_by_key`), the last page read by the reverse keyset query
before the keys arrive (End shows the real end), stale rows queued for the background refresh and
repainted once recomputed. A part of :class:`~ctxviewer.gui.trace_list_model.TraceListModel`
(:class:`TraceListPages`); the keys it reads by come from :mod:`~ctxviewer.gui.trace_list_queries`.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel

from ctxviewer.gui.stale_refresh import StaleRefresher
from ctxviewer.gui.worker import Task
from ctxviewer.present.columns import TRACE_COLUMNS, is_stale, row_texts
from ctxviewer.store import TraceRow, TraceSource

PAGE_ROWS = 100
"""Rows per cached page (one ``rowid IN (...)`` lookup)."""
CACHE_PAGES = 48
"""Pages kept formatted; the least recently painted one is dropped beyond this (4,800 rows)."""

Cell = tuple[TraceRow, tuple[str, ...]]
"""A cached row: its :class:`~ctxviewer.store.TraceRow` and the texts of its cells (one per column)."""
NCOLS = len(TRACE_COLUMNS)
"""Columns of the list (:data:`ctxviewer.present.columns.TRACE_COLUMNS`)."""


def _runs(pages: list[int]) -> list[tuple[int, int]]:
    """Ascending page numbers as runs of consecutive pages: ``[1, 2, 3, 7]`` -> ``[(1, 3), (7, 7)]``."""
    runs: list[tuple[int, int]] = []
    for p in pages:
        if runs and runs[-1][1] == p - 1:
            runs[-1] = (runs[-1][0], p)
        else:
            runs.append((p, p))
    return runs


class TraceListPages(QAbstractTableModel):
    """The page cache of :class:`~ctxviewer.gui.trace_list_model.TraceListModel` (module docstring):
    :meth:`_cell` is a row's ``(TraceRow, cell texts)`` or ``None`` (not read yet, out of range)."""

    # the state the parts share, set in TraceListModel.__init__ (documented there)
    context: str | None
    assess_context: Any
    _threaded: bool
    _refresher: StaleRefresher
    _store: TraceSource | None
    _text: str
    _where: str
    _params: tuple[Any, ...]
    _sort: str
    _desc: bool
    _gen: int
    _keys: array[int] | None
    _filled: int
    _count: int | None
    _n: int
    _pages: OrderedDict[int, list[Cell | None]]
    _recent: int
    _tail: dict[int, Cell]
    _tail_read: bool
    _empty_pages: set[int]
    _tasks: set[Task]
    _bound: int | None
    _readers: dict[int, Any]

    if TYPE_CHECKING:  # the model's signals (declared on TraceListModel) and its relay
        def __getattr__(self, name: str) -> Any: ...

    def _format(self, row: TraceRow) -> Cell:
        """The row (its refreshed version once recomputed) and its cell texts; a stale row's State
        is marked and the row queued for the background refresh."""
        fresh = self._refresher.fresh.get(row.trace_id)
        if fresh is not None:
            return fresh, row_texts(fresh, self.context)
        if self.assess_context is not None and self._threaded and is_stale(row, self.context):
            self._refresher.want(row)
        return row, row_texts(row, self.context)  # a stale State marked (the context the window assesses in)

    def _on_fresh(self, rows: list[TraceRow]) -> None:
        if not rows:
            return
        cells = {r.trace_id: (r, row_texts(r, self.context)) for r in rows}
        for page, page_cells in self._pages.items():
            for i, old in enumerate(page_cells):
                if old is not None and old[0].trace_id in cells:
                    page_cells[i] = cells[old[0].trace_id]
                    r = page * PAGE_ROWS + i
                    self.dataChanged.emit(self.index(r, 0), self.index(r, NCOLS - 1))
        for r, old in list(self._tail.items()):
            if old[0].trace_id in cells:
                self._tail[r] = cells[old[0].trace_id]
                self.dataChanged.emit(self.index(r, 0), self.index(r, NCOLS - 1))
        self.sig_refreshed.emit(len(self._refresher.fresh))

    def _cell(self, row: int) -> Cell | None:
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

    def _repaint_pages(self, pages: list[int]) -> None:
        """``dataChanged`` over the rows of ``pages`` (ascending), one signal per run of pages."""
        for lo, hi in _runs(pages):
            top, bottom = lo * PAGE_ROWS, min(self._n, (hi + 1) * PAGE_ROWS) - 1
            self.dataChanged.emit(self.index(top, 0), self.index(bottom, NCOLS - 1))
