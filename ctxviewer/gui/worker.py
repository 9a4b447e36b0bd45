"""Run long work off the GUI thread: one helper for import, re-count, big diffs.

:class:`Task` runs a plain function in a :class:`QThread`. The function gets two callables,
``progress(done, total)`` and ``cancelled() -> bool``, and its return value (or exception) comes
back to the GUI thread through signals. The function must open its own resources -- in particular
its own :class:`~ctxviewer.store.TraceStore` connection, because a SQLite connection belongs to the
thread that made it.

Signals (all delivered on the GUI thread):

* ``sig_progress(int done, int total)``
* ``sig_finished(object result)`` -- the function returned normally (also after a cancel)
* ``sig_failed(str message)`` -- the function raised; ``message`` is ``str(exc)``

A thread never outlives its :class:`Task` unnoticed: the thread quits by itself once the job has
returned (even when the task's parent, and so the task, was deleted meanwhile), every started task
is kept in a registry until its thread has stopped, and :func:`stop_all` -- also run at interpreter
exit -- cancels and waits for the jobs still running. Destroying a running ``QThread`` aborts the
process ("QThread: Destroyed while thread is still running"); this is what prevents it.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, QThread, Signal, Slot

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
Job = Callable[[Progress, Cancelled], Any]

_live: set[Task] = set()
"""Tasks started and whose thread has not been stopped yet (:func:`stop_all`)."""


class _Runner(QObject):
    sig_progress = Signal(int, int)
    sig_finished = Signal(object)
    sig_failed = Signal(str)

    def __init__(self, job: Job, cancel: threading.Event) -> None:
        super().__init__()
        self._job = job
        self._cancel = cancel
        self.returned = threading.Event()

    @Slot()
    def run(self) -> None:
        try:
            result = self._job(self.sig_progress.emit, self._cancel.is_set)
        except Exception as exc:  # reported to the GUI, never lost in the thread
            self.returned.set()
            self.sig_failed.emit(str(exc) or type(exc).__name__)
        else:
            self.returned.set()
            self.sig_finished.emit(result)
        thread = self.thread()
        if thread is not None:
            thread.quit()  # the thread ends with its job, whether or not the GUI thread still listens


class Task(QObject):
    """One background job. Create, connect the signals, then :meth:`start`.

    ``job(progress, cancelled)`` runs in a new thread; :meth:`cancel` asks it to stop (the job polls
    ``cancelled()``). The thread quits after the job; :meth:`wait` blocks until it has (e.g. a
    cancelled import as the window closes).
    """

    sig_progress = Signal(int, int)
    sig_finished = Signal(object)
    sig_failed = Signal(str)

    def __init__(self, job: Job, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread = QThread()
        self._runner = _Runner(job, self._cancel)
        self._runner.moveToThread(self._thread)
        self._thread.started.connect(self._runner.run)
        self._runner.sig_progress.connect(self.sig_progress)
        self._runner.sig_finished.connect(self._on_finished)
        self._runner.sig_failed.connect(self._on_failed)
        self._done = False

    def start(self) -> None:
        """Start the job in its thread."""
        _prune()
        _live.add(self)
        self._thread.start()

    def cancel(self) -> None:
        """Ask the job to stop; it returns at its next ``cancelled()`` check."""
        self._cancel.set()

    @property
    def is_cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        """True once the job has finished or failed (and its signal was delivered)."""
        return self._done

    def wait(self, ms: int = 30_000) -> bool:
        """Block until the thread has finished (at most ``ms`` milliseconds). Returns whether it did.
        The thread quits once the job has returned; its signal is delivered on the GUI thread at the
        next event processing, so a caller that needs it processes events afterwards."""
        return self._thread.wait(ms)

    def wait_job(self, ms: int = 30_000) -> bool:
        """Block until the job has returned or raised (at most ``ms`` milliseconds), without
        processing events, then stop the thread; the job's signal is still delivered later.
        Returns whether the job had ended (e.g. a window waiting for its workers as it closes)."""
        if not self._thread.isRunning() and not self._runner.returned.is_set():
            return True  # never started
        if not self._runner.returned.wait(ms / 1000):
            return False
        self._thread.quit()
        self._thread.wait()
        _live.discard(self)
        return True

    def _stop_thread(self) -> None:
        self._thread.quit()
        self._thread.wait()
        self._done = True
        _live.discard(self)

    @Slot(object)
    def _on_finished(self, result: object) -> None:
        self._stop_thread()
        self.sig_finished.emit(result)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._stop_thread()
        self.sig_failed.emit(message)


def _prune() -> None:
    """Forget tasks whose job has returned and whose thread has ended by itself without the task
    hearing of it (its parent, and so the task, was deleted meanwhile): nothing else would, and
    their job's closure (stores, traces) would stay in memory."""
    for task in [t for t in _live if t._runner.returned.is_set() and t._thread.isFinished()]:
        _live.discard(task)


def running() -> int:
    """Number of tasks started whose thread has not ended yet."""
    _prune()
    return len(_live)


def stop_all(ms: int = 30_000) -> bool:
    """Cancel every running task and wait, without processing events, until each job has returned
    (at most ``ms`` milliseconds in all) and its thread has stopped. Returns whether all did. Run at
    interpreter exit (a closing window stops its own workers first), so no running ``QThread`` is
    ever destroyed."""
    import time

    deadline = time.monotonic() + ms / 1000
    tasks = list(_live)
    for task in tasks:
        task.cancel()
    ok = True
    for task in tasks:
        ok = task.wait_job(max(0, int((deadline - time.monotonic()) * 1000))) and ok
    return ok


def pump_until(busy: Callable[[], bool], task: Callable[[], Task | None], ms: int) -> bool:
    """Process events until ``busy()`` is false, at most ``ms`` milliseconds, giving the running
    ``task()`` (``None``: none) 10 ms at a time to end: the ``wait()`` of a reader that has no event
    loop of its own to deliver its results (the screenshot command, tests). Returns ``not busy()``."""
    from PySide6.QtCore import QDeadlineTimer
    from PySide6.QtWidgets import QApplication

    deadline = QDeadlineTimer(ms)
    while busy() and not deadline.hasExpired():
        running = task()
        if running is not None:
            running.wait(10)
        QApplication.processEvents()
    return not busy()


atexit.register(stop_all)
