"""Cancel points inside long computations: a cancelled import stops within a fraction of a second.

An import polls ``cancelled()`` between records, but one record can hold a 50 MB item whose token
count and injection scan take many seconds. Long loops in the core (token counting chunk by chunk,
the scanner window by window) call :func:`checkpoint`; the import pipeline runs under
:func:`watching`, which makes :func:`checkpoint` raise :class:`Interrupted` once its
``cancelled()`` returns True. The loops themselves stay free of callbacks, and outside
:func:`watching` a checkpoint does nothing. Per thread (the GUI imports on a worker thread).

The same loops say how far they are with :func:`progress`; a :func:`watching` block given an
``activity`` callback hears it (the import dialog shows "scanning for instruction-like text: 40 %
of 52.4 million characters" while one huge item is worked on).
No Qt here.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

_LOCAL = threading.local()


class Interrupted(Exception):
    """Raised by :func:`checkpoint` inside :func:`watching` when the run was cancelled."""


PROGRESS_MIN_CHARS = 1_000_000
"""Steps over texts shorter than this are not reported by :func:`progress` (they end soon)."""
PROGRESS_EVERY_S = 0.25
"""At most one :func:`progress` report per this many seconds."""


@contextmanager
def watching(cancelled: Callable[[], bool] | None,
             activity: Callable[[str], None] | None = None) -> Iterator[None]:
    """Run the block with ``cancelled`` as this thread's cancel test (``None``: never cancelled)
    and ``activity(message)`` told what a long step is doing (:func:`progress`)."""
    old = getattr(_LOCAL, "cancelled", None), getattr(_LOCAL, "activity", None)
    _LOCAL.cancelled, _LOCAL.activity, _LOCAL.last = cancelled, activity, 0.0
    try:
        yield
    finally:
        _LOCAL.cancelled, _LOCAL.activity = old


def progress(what: str, done: int, total: int) -> None:
    """Tell the current :func:`watching` block's ``activity`` that the step ``what`` has done
    ``done`` of ``total`` characters: ``"counting tokens: 40 % of 52.4 million characters"``.
    Texts under :data:`PROGRESS_MIN_CHARS` and reports closer than :data:`PROGRESS_EVERY_S`
    apart are dropped; outside :func:`watching` (or without ``activity``) nothing happens."""
    activity = getattr(_LOCAL, "activity", None)
    if activity is None or total < PROGRESS_MIN_CHARS:
        return
    now = time.monotonic()
    if now - getattr(_LOCAL, "last", 0.0) < PROGRESS_EVERY_S:
        return
    _LOCAL.last = now
    activity(f"{what}: {done * 100 // total} % of {total / 1e6:.1f} million characters")


def checkpoint() -> None:
    """Raise :class:`Interrupted` if the current :func:`watching` block was cancelled; else nothing."""
    cancelled = getattr(_LOCAL, "cancelled", None)
    if cancelled is not None and cancelled():
        raise Interrupted()


class Terminated(SystemExit):
    """``SystemExit(143)`` raised by SIGTERM inside :func:`sigterm_exits` (128 + SIGTERM, the status a
    killed process reports): a command that says what Ctrl+C kept says it for SIGTERM too
    (:func:`ctxviewer.cli.interrupted.says_what_was_kept`: ``terminated: nothing was written; ...``)."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


@contextmanager
def sigterm_exits() -> Iterator[None]:
    """While inside, SIGTERM (``kill PID``) raises :class:`Terminated` (``SystemExit(143)``) where the main thread is, so the cleanup of the work inside runs -- an
    import's transaction is rolled back and a database it created is removed -- as for Ctrl+C.
    Outside the main thread it does nothing (signals are delivered there only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second kill must not cut the cleanup short
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
