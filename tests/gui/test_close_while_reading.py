"""Closing while workers run (issue 11: "never stopping" includes never aborting). Destroying a
running ``QThread`` aborts the process ("QThread: Destroyed while thread is still running"); the
window closing while a big database's keys are still being read did exactly that."""

from __future__ import annotations

import threading
from array import array
from pathlib import Path
from typing import Any, Iterator

import pytest
import shiboken6
from PySide6.QtCore import QObject, QSettings
from PySide6.QtWidgets import QApplication

from ctxviewer.gui import worker
from ctxviewer.gui.main_window import MainWindow
from ctxviewer.gui.trace_list_model import TraceListModel
from ctxviewer.store import TraceStore


class SlowKeys:
    """Replaces ``TraceStore.key_chunks``: one key per chunk, each after a pause, counting chunks."""

    def __init__(self, original: Any) -> None:
        self.original = original
        self.yielded = 0
        self.total = 0
        self.started = threading.Event()
        self.closed = threading.Event()

    def __call__(self, st: TraceStore, where: str = "", params: Any = (), order: str = "created",
                 descending: bool = False) -> Iterator[array[int]]:
        keys = [k for chunk in self.original(st, where, params, order, descending) for k in chunk]
        self.total = len(keys)
        self.started.set()
        try:
            for k in keys:
                threading.Event().wait(0.02)
                self.yielded += 1
                yield array("q", [k])
        finally:
            self.closed.set()


@pytest.fixture
def slow_keys(monkeypatch: pytest.MonkeyPatch) -> SlowKeys:
    slow = SlowKeys(TraceStore.key_chunks)
    monkeypatch.setattr(TraceStore, "key_chunks", lambda st, *a, **k: slow(st, *a, **k))
    return slow


def test_stop_cancels_the_key_read_and_waits_for_it(big_db: Path, slow_keys: SlowKeys) -> None:
    with TraceStore.open(big_db) as st:
        model = TraceListModel()
        model.set_sort("trace_id")  # an order with no index walk on the GUI thread: all off it
        model.set_store(st)
        assert slow_keys.started.wait(10)
        assert worker.running() >= 1
        assert model.stop()
        assert slow_keys.closed.is_set()  # the generator was closed by the cancel, not run out
        assert slow_keys.total == 450 and slow_keys.yielded < 450
        assert not model._tasks
        QApplication.processEvents()  # late parts of the cancelled query are dropped
        assert not model.keys_ready


def test_closing_the_window_while_keys_are_read_stops_every_worker(qtbot, tmp_path: Path, big_db: Path,
                                                                    slow_keys: SlowKeys) -> None:
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    assert w.open_database(big_db, remember=False)
    assert w.trace_model.total == 450  # the first page and the estimate, before any key
    assert slow_keys.started.wait(10)
    w.close()
    assert slow_keys.closed.is_set() and slow_keys.yielded < 450
    assert not w.trace_model._tasks
    assert worker.stop_all(10_000) and worker.running() == 0


def test_a_task_whose_parent_is_deleted_still_ends_its_thread(qapp) -> None:
    parent = QObject()
    go = threading.Event()
    task = worker.Task(lambda _p, _c: go.wait(10) and 42, parent)
    task.start()
    shiboken6.delete(parent)  # the task's C++ side goes with it; its finished signal has no receiver
    go.set()
    # without processing events: the thread quits by itself once the job has returned
    assert task._thread.wait(10_000)
    assert task in worker._live  # nobody heard of its end...
    worker.running()
    assert task not in worker._live  # ...until the registry forgets a task whose job and thread have ended


def test_stop_all_cancels_and_waits(qapp) -> None:
    seen: list[bool] = []

    def job(_p: Any, cancelled: Any) -> str:
        while not cancelled():
            threading.Event().wait(0.005)
        seen.append(True)
        return "stopped"

    tasks = [worker.Task(job) for _ in range(3)]
    for t in tasks:
        t.start()
    assert worker.running() >= 3
    assert worker.stop_all(10_000)
    assert seen == [True, True, True] and worker.running() == 0
    assert all(not t._thread.isRunning() for t in tasks)
