"""The trace list's queries: for each filter or sort, a new generation -- the first page by a keyset
query (on the GUI thread when the order walks an index and there is no filter), then off the GUI
thread the exact count, then every row key in list order, chunk by chunk, into one ``array('q')``
allocated at the counted size; late results of a superseded generation are dropped, and its
statement cancelled where the store can. A part of
:class:`~ctxviewer.gui.trace_list_model.TraceListModel` (:class:`TraceListQueries`), over its pages
(:mod:`~ctxviewer.gui.trace_list_pages`).
"""

from __future__ import annotations

from array import array
from typing import Any, Callable

from PySide6.QtCore import QModelIndex, QObject, Signal

from ctxviewer.gui.trace_list_pages import NCOLS, PAGE_ROWS, TraceListPages
from ctxviewer.gui.worker import Task
from ctxviewer.store import TraceQuery, TraceRow, TraceSource
from ctxviewer.store.query import INDEXED_SORTS


def _plan(st: TraceSource, text: str, where: str, params: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """The filter to run on ``st``: display-filter ``text`` planned by the store, else the fragment."""
    if not text:
        return where, params
    planned, planned_params = st.filter_where(TraceQuery(text=text))
    return ("" if planned == "1" else planned), tuple(planned_params)


class KeyRelay(QObject):
    """Carries a worker's partial results (the first page, the count, key chunks) to the GUI
    thread: it lives there, so a signal emitted from the worker is queued to its receivers."""

    sig_part = Signal(object)


class TraceListQueries(TraceListPages):
    """The queries of :class:`~ctxviewer.gui.trace_list_model.TraceListModel` (module docstring):
    :meth:`_requery` starts a generation, :meth:`_on_part` takes its parts on the GUI thread."""

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
                self.dataChanged.emit(self.index(0, 0), self.index(self._n - 1, NCOLS - 1))
        self.sig_keys_ready.emit()
