"""Loading and assessing the selected trace off the GUI thread (the window never stops).

The window's one selection path: every selected trace, whatever its size, goes through here, and
this is the one place where a newer selection wins over an older one (a generation count).

:class:`TraceLoader` reads one trace in a worker thread (:class:`~ctxviewer.gui.worker.Task`):
:meth:`TraceSource.load <ctxviewer.store.TraceSource.load>` on a handle of its own
(:meth:`TraceSource.reader <ctxviewer.store.TraceSource.reader>`, kept while the source is shown),
:func:`~ctxviewer.diff.conversation.derive_for_display`, then
:func:`ctxviewer.assess.assessment.assess` (the checks and the scanner: tens of milliseconds per thousand
items, and the first one imports them). The GUI thread only receives the results:

* ``sig_loaded(trace)`` -- the trace as shown (derived omissions included), before its assessment,
  so its items can be painted while the checks run;
* ``sig_assessed(trace, assessment)`` -- its :class:`~ctxviewer.assess.assessment.Assessment`;
* ``sig_failed(trace_id, message)`` -- the trace could not be read (``KeyError``: dropped between
  the list and the load; :class:`~ctxviewer.store.StoreError`) or assessed.

One job runs at a time, and a newer request wins: a request made while a job runs waits for it and
replaces any request waiting before it; a job whose trace is no longer the one wanted skips its
assessment and its results are dropped. :meth:`stop` (the window closes) waits for the running job.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ctxviewer.assess.assessment import Assessment, assess
from ctxviewer.assess.context import EMPTY, AssessContext
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.gui.worker import Task, pump_until
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.warm_up import first_trace
from ctxviewer.store import TraceSource
from ctxviewer.store.source import private_reader


class TraceLoader(QObject):
    """Loads, derives and assesses one trace at a time off the GUI thread (module docstring)."""

    sig_loaded = Signal(object)
    sig_assessed = Signal(object, object)
    sig_failed = Signal(str, str)
    _sig_part = Signal(object)  # (generation, trace) from the worker, between load and assessment

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source: TraceSource | None = None
        self._context: AssessContext = EMPTY
        self._reader: TraceSource | None = None
        self._reader_of: TraceSource | None = None
        self._gen = 0
        self._task: Task | None = None
        self._queued: str | None = None
        self.wanted: str | None = None
        """The trace id asked for last and not delivered yet (``None`` when nothing is pending)."""
        self._sig_part.connect(self._on_part)

    # ------------------------------------------------------------------ requests

    def set_source(self, source: TraceSource | None, context: AssessContext | None = None) -> None:
        """Read from ``source`` from now on, assessing in ``context`` (its database's,
        :func:`ctxviewer.assess.context.context_for_db`; ``None``: the empty context); a pending
        request is dropped (its results never arrive)."""
        self.cancel()
        self._source = source
        self._context = context if context is not None else EMPTY
        if self._task is None:
            self._close_reader()

    def cancel(self) -> None:
        """Drop the pending request, if any: its results never arrive."""
        if self.wanted is not None:
            self._gen += 1
            self._queued = None
            self.wanted = None

    def request(self, trace_id: str) -> None:
        """Load, derive and assess ``trace_id`` (results by signal, on the GUI thread). Replaces a
        request still waiting; a running job for another trace finishes without its assessment."""
        if self._source is None:
            return
        self._gen += 1
        self.wanted = trace_id
        if self._task is not None:
            self._queued = trace_id
            return
        self._start(trace_id)

    @property
    def pending(self) -> bool:
        """True while a requested trace has not arrived with its assessment (or failed)."""
        return self.wanted is not None

    def wait(self, ms: int = 30_000) -> bool:
        """Block until nothing is pending (at most ``ms`` milliseconds), processing events, for a
        caller without an event loop of its own (:meth:`MainWindow.wait_shown
        <ctxviewer.gui.main_window.MainWindow.wait_shown>`). Returns whether nothing is."""
        return pump_until(lambda: self.pending, lambda: self._task, ms)

    def stop(self) -> None:
        """Wait for the running job and drop any waiting request (the window is closing)."""
        self._gen += 1
        self._queued = None
        self.wanted = None
        if self._task is not None:
            self._task.wait_job()
        self._task = None
        self._close_reader()

    # ------------------------------------------------------------------ the worker

    def _close_reader(self) -> None:
        reader, of = self._reader, self._reader_of
        self._reader = self._reader_of = None
        if reader is not None and reader is not of:  # a source may be its own reader
            try:
                reader.close()
            except Exception:  # closing a spare handle must never fail the window
                pass

    def _handle(self, source: TraceSource) -> TraceSource:
        """The worker's read handle on ``source`` (opened on first use; only one job uses it at a time)."""
        if self._reader is None or self._reader_of is not source:
            self._close_reader()
            # a handle of its own: the list's cancel (KILL QUERY) never kills a load
            self._reader, self._reader_of = private_reader(source), source
        return self._reader

    def _start(self, trace_id: str) -> None:
        source, gen, context = self._source, self._gen, self._context
        assert source is not None
        send = self._sig_part.emit

        def job(_progress: Any, _cancelled: Any) -> tuple[int, RequestTrace, Assessment | None]:
            first_trace()  # once per process (often done already, while the window waited): warm_up
            st = self._handle(source)
            trace = derive_for_display(st, st.load(trace_id))
            send((gen, trace))
            if gen != self._gen:  # a newer selection: its own job assesses it
                return gen, trace, None
            return gen, trace, assess(trace, context)

        task = Task(job, self)
        self._task = task
        task.sig_finished.connect(lambda result, t=task: self._on_finished(t, result))
        task.sig_failed.connect(lambda message, t=task, tid=trace_id, g=gen: self._on_failed(t, g, tid, message))
        # after this turn of the event loop: what the selection changed (the list, "Loading …") is
        # painted before the worker competes for the interpreter
        QTimer.singleShot(0, self, lambda: task.start() if task is self._task else None)

    def _on_part(self, part: tuple[int, RequestTrace]) -> None:
        gen, trace = part
        if gen == self._gen:
            self.sig_loaded.emit(trace)

    def _next(self, task: Task) -> None:
        if task is self._task:
            self._task = None
        if self._task is None:
            if self._queued is not None:
                queued, self._queued = self._queued, None
                self._start(queued)
            elif self._reader_of is not None and self._reader_of is not self._source:
                self._close_reader()  # the source changed while the job ran

    def _on_finished(self, task: Task, result: tuple[int, RequestTrace, Assessment | None]) -> None:
        gen, trace, assessment = result
        current = gen == self._gen and assessment is not None
        if current:
            self.wanted = None
        self._next(task)
        if current:
            self.sig_assessed.emit(trace, assessment)

    def _on_failed(self, task: Task, gen: int, trace_id: str, message: str) -> None:
        current = gen == self._gen
        if current:
            self.wanted = None
        self._next(task)
        if current:
            self.sig_failed.emit(trace_id, message)
