"""Importing heavy modules off the GUI thread (the window never stops).

pyqtgraph with numpy takes 0.4 to 0.7 s to import, pygments with its Markdown lexer about 0.2 s.
Imported on the GUI thread, right after the first paint, they froze the window for as long; imported
in a thread, the event loop keeps running (the interpreter switches threads every 5 ms; only
C-extension initialisation holds the GIL longer).

:func:`run_in_background` runs such a warm-up job once per process in a daemon thread and calls
back on the GUI thread when it has finished; :func:`import_in_background` is the job "import these
modules"; :func:`finished` says whether a job is done. A GUI-thread ``import`` of a module the
job is importing meanwhile simply waits for it (Python's per-module import lock), so a caller that
needs the module at once may import it as usual.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal


class _DoneRelay(QObject):
    """Lives on the GUI thread; the job threads emit through it (a queued connection)."""

    sig_done = Signal(str)


_relay: _DoneRelay | None = None
_done: set[str] = set()
_running: set[str] = set()
_waiting: dict[str, list[tuple[QObject, Callable[[], None]]]] = {}


def finished(key: str) -> bool:
    """True once the job ``key`` has run to its end (successfully or not)."""
    return key in _done


def run_in_background(key: str, job: Callable[[], object], receiver: QObject, then: Callable[[], None]) -> None:
    """Run ``job()`` in a background thread, once per process per ``key``, and call ``then()`` on
    the GUI thread afterwards (on the next turn of the event loop when it has run already; never
    once ``receiver`` is deleted). Call from the GUI thread. An exception of ``job`` is swallowed:
    the caller's own synchronous path raises it again where it is handled."""
    global _relay
    if key in _done:
        QTimer.singleShot(0, receiver, then)
        return
    _waiting.setdefault(key, []).append((receiver, then))
    if key in _running:
        return
    if _relay is None:
        _relay = _DoneRelay()
        _relay.sig_done.connect(_on_done)
    _running.add(key)
    emit = _relay.sig_done.emit

    def run() -> None:
        try:
            job()
        except Exception:  # raised again by the caller's own synchronous path
            pass
        emit(key)

    threading.Thread(target=run, name=f"warm-up {key}", daemon=True).start()


def import_in_background(names: tuple[str, ...], receiver: QObject, then: Callable[[], None]) -> None:
    """:func:`run_in_background` with the job "import the modules ``names`` in order" (key: the
    names joined by commas); ``then()`` at the next loop turn if they are all imported already."""
    key = ",".join(names)
    if key not in _running and all(n in sys.modules for n in names):
        _done.add(key)

    def job() -> None:
        for name in names:
            importlib.import_module(name)

    run_in_background(key, job, receiver, then)


def _on_done(key: str) -> None:
    _running.discard(key)
    _done.add(key)
    for receiver, then in _waiting.pop(key, []):
        if shiboken6.isValid(receiver):
            then()
