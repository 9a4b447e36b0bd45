"""The Run tab's reads, off the GUI thread: whatever the source (a SQLite file, a ClickHouse store
near or far), the tab never waits for it.

:func:`read_run` is the job's part for one trace (plain Python, no Qt): the branch from its run's
root down to its step (``step_path``), the children of every step on that branch (``children``:
the tree opens down to the step) -- or, for a source that reads a run whole anyway
(``reads_runs_whole``: a ClickHouse store, :mod:`ctxviewer.pipeline.clickhouse.runs`), every step
grouped by parent, so expanding a row reads nothing more -- and the run's time bounds
(``run_bounds``). Assessing the run's model calls (a ClickHouse store's first view) happens there
too.

:class:`RunReads` runs those reads in :class:`~ctxviewer.gui.worker.Task` jobs, one at a time, on
one read handle of its own per source: a SQLite file opened in the worker (a connection used by one
thread at a time), a ClickHouse store's
:meth:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource.own_reader` (a client of its own; chDB:
the one in-process engine under a handle of its own), else the source's
:meth:`~ctxviewer.store.TraceSource.reader`. A newer trace wins (a generation count): a queued
older request is dropped, the running one is told to stop (``cancelled()`` between reads, and
``cancel()`` on the handle -- ``KILL QUERY`` by its own query ids, so a slow server stops too --
unless the handle is the window's source itself, whose other readers' queries it would kill), and
its late result is never delivered. Children of a row expanded later are read the same way,
after any read already running.

Signals (GUI thread): ``sig_run(RunRead | None)`` -- the latest requested trace's run (``None``:
no run holds it); ``sig_failed(str)`` -- reading it failed (the message, one line for the tab);
``sig_children(object token, str parent_id, list[RunStep])`` and ``sig_children_failed(object
token, str parent_id, str message)`` -- a row's children (``token``: the caller's, e.g. which tree
asked).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from ctxviewer.gui.worker import Task, pump_until
from ctxviewer.store import StoreError, TraceStore
from ctxviewer.store.runs import RunStep
from ctxviewer.store.source import private_reader


@dataclass(frozen=True)
class RunRead:
    """What the Run tab shows of one trace's run (:func:`read_run`)."""

    trace_id: str
    """The trace asked for (a model call's)."""
    run_id: str
    path: tuple[str, ...]
    """Span ids from the run's root down to the trace's step."""
    bounds: tuple[datetime, datetime] | None
    """The run's first start and last end (aware UTC; ``None``: no step has a start)."""
    levels: dict[str | None, list[RunStep]]
    """Children by parent span id (``None``: the roots), in the store's order: the parents on
    :attr:`path` at least; every parent when the source reads runs whole."""


def read_run(st: Any, trace_id: str, cancelled: Callable[[], bool] = lambda: False) -> RunRead | None:
    """The run of ``trace_id`` on store handle ``st`` (module docstring), or ``None`` when no run
    holds it or ``cancelled()`` turned true between two reads. Raises
    :class:`~ctxviewer.store.StoreError` when a read fails (a killed query included)."""
    found = st.step_path(trace_id)
    if found is None or cancelled():
        return None
    run_id, path = found
    levels: dict[str | None, list[RunStep]] = {}
    if getattr(st, "reads_runs_whole", False):
        for step in st.run_steps(run_id):  # already in memory: grouped, the order kept
            levels.setdefault(step.span.parent_id, []).append(step)
    else:
        for parent in [None, *path[:-1]]:
            levels[parent] = st.children(run_id, parent)
            if cancelled():
                return None
    levels.setdefault(None, [])
    return RunRead(trace_id, run_id, tuple(path), st.run_bounds(run_id), levels)


class _Handle:
    """The jobs' read handle on one source: opened by the first job (in its thread), then used by
    one job at a time; ``shared`` is a handle never closed or cancelled here (the window's own)."""

    def __init__(self, opener: Callable[[], Any], shared: Any = None) -> None:
        self._opener = opener
        self.shared = shared
        self.st: Any = None
        self._opened = False

    def get(self) -> Any:
        """The handle (``None``: the source cannot be opened: no runs to read)."""
        if not self._opened:
            self._opened = True
            self.st = self._opener()
        return self.st

    def cancel(self) -> None:
        """Stop the running statement where the handle can (on a thread of its own: the GUI thread
        never waits for a server)."""
        cancel = getattr(self.st, "cancel", None)
        if self.st is not None and self.st is not self.shared and callable(cancel):
            threading.Thread(target=cancel, name="ctxviewer-run-cancel", daemon=True).start()

    def close(self) -> None:
        st, self.st = self.st, None
        if st is not None and st is not self.shared:
            try:
                st.close()
            except Exception:  # closing a spare handle must never fail the window
                pass


def _open_file(path: Path) -> TraceStore | None:
    try:
        return TraceStore.open(path)
    except (StoreError, OSError):
        return None  # an older schema or a damaged file: no runs to show (the tab says so)


class RunReads(QObject):
    """Runs the Run tab's reads off the GUI thread (module docstring)."""

    sig_run = Signal(object)
    sig_failed = Signal(str)
    sig_children = Signal(object, str, object)
    sig_children_failed = Signal(object, str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._handle: _Handle | None = None
        self._gen = 0
        self._task: Task | None = None
        self._running: tuple[str, _Handle] | None = None  # the running job's kind and handle
        self._queue: list[tuple[str, tuple[Any, ...]]] = []
        self.wanted: str | None = None
        """The trace whose run was asked for last and not delivered yet."""

    # -- sources
    def set_path(self, path: Path | str | None) -> None:
        """Read runs from the trace database at ``path`` (opened read-only by the first job;
        ``None``: no source)."""
        self._switch(None if path is None else _Handle(partial(_open_file, Path(path))))

    def set_source(self, source: Any) -> None:
        """Read runs from ``source`` (``run_of``, ``children``, ``run_bounds``, ``step_path``),
        through a handle whose queries are its own (:func:`ctxviewer.store.source.private_reader`),
        opened by the first job; ``source`` itself is never closed, nor cancelled."""
        self._switch(_Handle(partial(private_reader, source), shared=source))

    def _switch(self, handle: _Handle | None) -> None:
        self.cancel()
        self._queue.clear()
        old, self._handle = self._handle, handle
        if old is not None and (self._running is None or self._running[1] is not old):
            old.close()  # else closed when its job has returned (_next)

    # -- requests
    def request_run(self, trace_id: str) -> None:
        """Read the run of ``trace_id`` (``sig_run`` or ``sig_failed``); a newer request replaces
        it. Nothing arrives without a source."""
        if self.wanted == trace_id:
            return  # already on its way
        self.cancel()
        if self._handle is None:
            return
        self.wanted = trace_id
        self._queue.append(("run", (self._gen, trace_id)))
        self._pump()

    def request_children(self, token: object, run_id: str, parent_id: str) -> None:
        """Read the steps of ``run_id`` under ``parent_id`` (``sig_children`` with ``token``)."""
        if self._handle is not None:
            self._queue.append(("children", (token, run_id, parent_id)))
            self._pump()

    def cancel(self) -> None:
        """Drop the run asked for: its result never arrives; its read stops (module docstring)."""
        self._gen += 1
        self.wanted = None
        self._queue = [q for q in self._queue if q[0] != "run"]
        if self._task is not None and self._running is not None and self._running[0] == "run":
            self._task.cancel()
            self._running[1].cancel()

    @property
    def busy(self) -> bool:
        """True while a read runs or waits."""
        return self._task is not None or bool(self._queue)

    def wait(self, ms: int = 30_000) -> bool:
        """Block until no read runs or waits (at most ``ms`` milliseconds), processing events (a
        caller without an event loop: the screenshot command, tests). Returns whether none does."""
        return pump_until(lambda: self.busy, lambda: self._task, ms)

    def stop(self) -> None:
        """Drop every request, wait for the running read, close the handle (the window closes)."""
        self.cancel()
        self._queue.clear()
        if self._task is not None:
            self._task.wait_job()
        self._task = self._running = None
        self._switch(None)

    # -- jobs
    def _pump(self) -> None:
        if self._task is not None or not self._queue or self._handle is None:
            return
        kind, args = self._queue.pop(0)
        handle = self._handle
        if kind == "run":
            gen, trace_id = args

            def job(_progress: Any, cancelled: Callable[[], bool]) -> Any:
                st = handle.get()
                return None if st is None or cancelled() else read_run(st, trace_id, cancelled)

            done: Callable[[Any], None] = partial(self._run_done, gen)
            failed: Callable[[str], None] = partial(self._run_failed, gen)
        else:
            token, run_id, parent_id = args

            def job(_progress: Any, cancelled: Callable[[], bool]) -> Any:
                st = handle.get()
                return [] if st is None else st.children(run_id, parent_id)

            done = partial(self.sig_children.emit, token, parent_id)
            failed = partial(self.sig_children_failed.emit, token, parent_id)
        task = Task(job, self)
        self._task, self._running = task, (kind, handle)
        task.sig_finished.connect(lambda result, t=task, f=done: self._next(t, f, result))
        task.sig_failed.connect(lambda message, t=task, f=failed: self._next(t, f, message))
        task.start()

    def _next(self, task: Task, deliver: Callable[[Any], None], value: Any) -> None:
        if task is not self._task:
            return
        handle = self._running[1] if self._running is not None else None
        self._task = self._running = None
        if handle is not None and handle is not self._handle:
            handle.close()  # the source changed while the job ran
        deliver(value)
        self._pump()

    def _run_done(self, gen: int, result: RunRead | None) -> None:
        if gen == self._gen:
            self.wanted = None
            self.sig_run.emit(result)

    def _run_failed(self, gen: int, message: str) -> None:
        if gen == self._gen:
            self.wanted = None
            self.sig_failed.emit(message)
