"""Python's cyclic garbage collector runs on the GUI thread only.

The collector runs in whichever thread allocates when a generation's count passes its
threshold. Run in a worker thread, it may free a Qt object's Python wrapper, whose PySide weakref
callback disconnects a signal: ``QObject::disconnect`` holds Qt's connection mutex and then waits
for the GIL (a virtual overridden in Python), while the GUI thread holds the GIL and waits for the
same mutex in ``connect``. Seen as a hang in the test suite: the worker in ``take_gil`` under
``QObject::disconnect`` from ``gc_collect_main``, the GUI thread in ``QBasicMutex::lockInternal``
under ``QTextEdit::setDocument``.

:func:`collect_on_gui_thread` turns automatic collection off and collects from a timer on the
GUI thread instead, generation by generation once its count passes the threshold the collector
would have used (the same technique as pyqtgraph's ``GarbageCollector``). No work leaves; only
where the collector runs changes.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500
"""How often the GUI thread looks at the collector's counts (ms)."""


def collect_due() -> int:
    """Collect each generation whose count passed its threshold (``gc.get_threshold()``), youngest
    first, as the automatic collector would; returns the objects found unreachable."""
    found = 0
    thresholds = gc.get_threshold()
    for generation in range(3):
        if gc.get_count()[generation] > thresholds[generation]:
            found += gc.collect(generation)
    return found


def collect_on_gui_thread(parent: QObject, interval_ms: int = INTERVAL_MS) -> QTimer:
    """Disable automatic collection and collect on a timer owned by ``parent`` (an object of the
    GUI thread: the application). Returns the timer (running)."""
    gc.disable()
    timer = QTimer(parent)
    timer.setInterval(interval_ms)
    timer.timeout.connect(collect_due)
    timer.start()
    return timer
