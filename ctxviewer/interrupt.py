"""Cancel points inside long computations: a cancelled import stops within a fraction of a second.

An import polls ``cancelled()`` between records, but one record can hold a 50 MB item whose token
count and injection scan take many seconds. Long loops in the core (token counting chunk by chunk,
the scanner window by window) call :func:`checkpoint`; the import pipeline runs under
:func:`watching`, which makes :func:`checkpoint` raise :class:`Interrupted` once its
``cancelled()`` returns True. The loops themselves stay free of callbacks, and outside
:func:`watching` a checkpoint does nothing. Per thread (the GUI imports on a worker thread).
No Qt here.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable, Iterator

_LOCAL = threading.local()


class Interrupted(Exception):
    """Raised by :func:`checkpoint` inside :func:`watching` when the run was cancelled."""


@contextmanager
def watching(cancelled: Callable[[], bool] | None) -> Iterator[None]:
    """Run the block with ``cancelled`` as this thread's cancel test (``None``: never cancelled)."""
    old = getattr(_LOCAL, "cancelled", None)
    _LOCAL.cancelled = cancelled
    try:
        yield
    finally:
        _LOCAL.cancelled = old


def checkpoint() -> None:
    """Raise :class:`Interrupted` if the current :func:`watching` block was cancelled; else nothing."""
    cancelled = getattr(_LOCAL, "cancelled", None)
    if cancelled is not None and cancelled():
        raise Interrupted()
