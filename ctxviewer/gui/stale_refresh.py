"""Stale trace-list rows recomputed in the background, in the window's assessment context.

A row whose stored facts come from another context (:func:`ctxviewer.present.columns.is_stale`)
is queued when first painted; a worker recomputes queued rows in batches of
:data:`REFRESH_BATCH` (:func:`ctxviewer.pipeline.fresh_rows.refreshed_row`, the assessment
``show`` runs), in memory -- the database stays read-only -- and hands each batch back to the GUI
thread in one ``sig_rows(list[TraceRow])``, so the list scans its page cache once per batch.
Rows of a store that keeps no facts (a ClickHouse table) are assessed the same way, a batch at a
time (:func:`ctxviewer.pipeline.fresh_rows.refreshed_rows`), through the store's local sidecar of
assessed rows (:mod:`ctxviewer.pipeline.clickhouse.assessed`), so a row assessed once is read back.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from ctxviewer.gui.worker import Task
from ctxviewer.store import TraceRow, TraceSource

REFRESH_BATCH = 25
"""Stale rows one background refresh job recomputes before the next queued ones are taken."""


class StaleRefresher(QObject):
    """The queue, the worker and the recomputed rows (by trace id) of one trace list.

    ``sig_rows(list[TraceRow])``: a batch of recomputed rows, emitted on the GUI thread (the
    refresher lives there; the worker's emission is queued to it). Rows of an earlier store or
    context (after :meth:`reset`) are never emitted.
    """

    sig_rows = Signal(object)
    _sig_batch = Signal(object)  # (generation, rows) from the worker

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.fresh: dict[str, TraceRow] = {}
        """Trace id -> its row recomputed in the context (in memory)."""
        self._queue: OrderedDict[str, TraceRow] = OrderedDict()
        self._task: Task | None = None
        self._gen = 0
        self._store: TraceSource | None = None
        self._context: Any = None
        self._sig_batch.connect(self._on_batch)

    @property
    def busy(self) -> bool:
        """True while rows are queued or being recomputed."""
        return self._task is not None or bool(self._queue)

    def reset(self, store: TraceSource | None = None, context: Any = None) -> Task | None:
        """Forget every queued and recomputed row and cancel the running batch; later rows are
        recomputed from ``store`` in ``context`` (an :class:`~ctxviewer.assess.context.AssessContext`).
        Returns the cancelled task (to wait for when closing), or ``None``."""
        self._gen += 1
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        self._queue.clear()
        self.fresh.clear()
        self._store, self._context = store, context
        return task

    def want(self, row: TraceRow) -> None:
        """Queue the stale ``row`` (painted now) for recomputing, once."""
        if row.trace_id not in self.fresh:
            self._queue.setdefault(row.trace_id, row)
            self._schedule()

    def _schedule(self) -> None:
        if self._task is not None or not self._queue or self._store is None:
            return
        batch: list[TraceRow] = []
        while self._queue and len(batch) < REFRESH_BATCH:
            batch.append(self._queue.popitem(last=False)[1])
        from ctxviewer.pipeline.fresh_rows import refreshed_row, refreshed_rows

        store, context, gen = self._store, self._context, self._gen
        send = self._sig_batch.emit

        def job(_progress: Any, cancelled: Callable[[], bool]) -> None:
            st = store.reader()
            fresh: list[TraceRow] = []
            try:
                try:
                    fresh = refreshed_rows(st, batch, context, cancelled)
                except Exception:  # rows that cannot be re-read keep their stored, marked facts
                    fresh = []
                    for row in batch:
                        if cancelled():
                            return
                        try:
                            fresh.append(refreshed_row(st, row, context))
                        except Exception:
                            continue
                if cancelled():
                    return
                send((gen, fresh))  # one repaint per batch, not one scan of the cache per row
            finally:
                if st is not store:
                    st.close()

        task = Task(job, self)
        self._task = task
        task.sig_finished.connect(lambda _r, t=task: self._done(t))
        task.sig_failed.connect(lambda _msg, t=task: self._done(t))
        task.start()

    def _done(self, task: Task) -> None:
        if task is self._task:
            self._task = None
            self._schedule()

    def _on_batch(self, part: tuple[int, list[TraceRow]]) -> None:
        gen, rows = part
        if gen != self._gen or not rows:
            return
        self.fresh.update((r.trace_id, r) for r in rows)
        self.sig_rows.emit(rows)
