"""``gc_guard``: the application collects garbage on its GUI thread only -- automatic collection
is off and a timer of the application collects the generations whose count passed the threshold
(a collection in a worker thread deadlocked with Qt's connection mutex)."""

from __future__ import annotations

import gc

from ctxviewer.gui import gc_guard


def test_the_app_turns_automatic_collection_off_and_collects_on_a_timer(qapp) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.gui.app import application

    enabled = gc.isenabled()
    try:
        gc.enable()
        app = application([])
        assert app is qapp and not gc.isenabled()  # the app's collector timer was installed (once)
        assert app.property("ctxviewer_gc_timer") is True
    finally:
        (gc.enable if enabled else gc.disable)()


def test_collect_due_collects_a_generation_past_its_threshold() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the cyclic collector frees it

    gc.collect()
    thresholds = gc.get_threshold()
    try:
        gc.set_threshold(10, 10, 10)
        for _ in range(50):
            Node()
        assert gc.get_count()[0] > 10
        assert gc_guard.collect_due() >= 50  # the 50 cycles (and their dicts) found unreachable
        assert gc.get_count()[0] <= 10
    finally:
        gc.set_threshold(*thresholds)
