"""The Run tab never reads on the GUI thread (issue 23; the brief's "nothing freezes the window"):
with a source whose read blocks (a slow server), the tab says it is reading and the event loop
runs; a trace selected meanwhile shows its own run, never the older one's late result; the older
read is cancelled on the source's own handle (a ClickHouse store: ``KILL QUERY``) -- never on the
window's source itself, whose other readers' queries it would kill; a failure is one line in the
tab; a row expanded beyond the branch read says it is reading until its children come."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from PySide6.QtCore import QTimer

from ctxviewer.gui.run_panel import NO_RUN, READING, READING_STEPS, STEP_ROLE, RunPanel
from ctxviewer.model.run import RunSpan
from ctxviewer.store import StoreError
from ctxviewer.store.runs import RunStep

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def _step(run: str, span: str, parent: str | None, kind: str, ms: int, trace: str | None = None,
          has_children: bool = False) -> RunStep:
    start = T0 + timedelta(milliseconds=len(span))
    return RunStep(RunSpan(run, span, parent, kind, span, start, start + timedelta(milliseconds=ms), "ok",
                           trace_id=trace), float(ms), 10 if trace else None, 2 if trace else None, None, None,
                   has_children)


RUNS = {
    "r1": [_step("r1", "agent1", None, "agent", 900, has_children=True),
           _step("r1", "chatA", "agent1", "llm", 300, trace="A")],
    "r2": [_step("r2", "agent2", None, "agent", 500, has_children=True),
           _step("r2", "chatB", "agent2", "llm", 200, trace="B"),
           _step("r2", "tools", "agent2", "chain", 100, has_children=True),
           _step("r2", "lookup", "tools", "tool", 50)],
}
CALLS = {"A": ("r1", ["agent1", "chatA"]), "B": ("r2", ["agent2", "chatB"])}


class SlowSource:
    """A run source whose reads of run ``r1`` block until :attr:`gate` is set (a slow server);
    ``reader()`` gives a handle of its own (``own=True``, as a remote ClickHouse store does) or the
    source itself (as chDB does). ``whole``: it reads runs whole (a ClickHouse store) or by level."""

    def __init__(self, own: bool = True, whole: bool = True, fail: str | None = None) -> None:
        self.own, self.reads_runs_whole, self.fail = own, whole, fail
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.children_gate = threading.Event()
        self.children_gate.set()
        self.threads: set[str] = set()
        self.cancels: list[int] = []

    def reader(self) -> SlowSource:
        if not self.own:
            return self
        handle = SlowSource(whole=self.reads_runs_whole, fail=self.fail)
        handle.gate, handle.entered, handle.children_gate = self.gate, self.entered, self.children_gate
        handle.threads, handle.cancels = self.threads, self.cancels
        return handle

    def step_path(self, trace_id: str) -> tuple[str, list[str]] | None:
        self.threads.add(threading.current_thread().name)
        if self.fail:
            raise StoreError("team-store", self.fail)
        found = CALLS.get(trace_id)
        if found is not None and found[0] == "r1":
            self.entered.set()
            self.gate.wait(30)  # a safety: a read on the GUI thread fails the test, never hangs it
        return (found[0], list(found[1])) if found else None

    def run_steps(self, run_id: str) -> list[RunStep]:
        return list(RUNS[run_id])

    def children(self, run_id: str, parent_id: str | None) -> list[RunStep]:
        if parent_id == "tools":
            self.children_gate.wait(30)
        return [s for s in RUNS[run_id] if s.span.parent_id == parent_id]

    def run_bounds(self, run_id: str) -> tuple[datetime, datetime] | None:
        steps = RUNS[run_id]
        return min(s.span.start for s in steps), max(s.span.end for s in steps)

    def cancel(self) -> list[str]:
        self.cancels.append(1)
        self.gate.set()  # the server stops the query: the blocked read returns
        return ["q"]

    def close(self) -> None:
        pass


def _rows(panel: RunPanel) -> list[str]:
    out = []

    def walk(item: Any, depth: int) -> None:
        out.append("  " * depth + item.text(0))
        for i in range(item.childCount()):
            walk(item.child(i), depth + 1)

    for i in range(panel.tree.topLevelItemCount()):
        walk(panel.tree.topLevelItem(i), 0)
    return out


@pytest.mark.parametrize("own", [True, False], ids=["own-handle", "shared-source"])
def test_a_slow_read_never_blocks_and_a_newer_trace_wins(qtbot: Any, own: bool) -> None:
    src = SlowSource(own=own)
    panel = RunPanel()
    qtbot.addWidget(panel)
    delivered: list[Any] = []
    panel.reads.sig_run.connect(delivered.append)
    panel.set_runs(src)
    panel.show_trace("A")  # returns at once: the read runs in a worker, blocked on the gate
    assert panel.note.text() == READING and not panel.note.isHidden() and panel.reading
    qtbot.waitUntil(src.entered.is_set)  # the worker is inside the slow read...
    ticked: list[int] = []
    QTimer.singleShot(0, lambda: ticked.append(1))
    qtbot.waitUntil(lambda: ticked == [1])  # ...and the GUI thread's event loop still runs
    assert panel.note.text() == READING and panel.run_id is None and panel.tree.topLevelItemCount() == 0
    panel.show_trace("B")  # selected meanwhile: A's read is cancelled, its result dropped
    if own:
        qtbot.waitUntil(lambda: src.cancels == [1])  # told on its own handle (KILL QUERY), which unblocks it
    else:
        assert src.cancels == []  # never the window's own source: its other readers' queries would die
        src.gate.set()  # the slow read ends by itself
    assert panel.wait()
    assert [r.trace_id for r in delivered] == ["B"]  # A's late result never reached the tab
    assert panel.run_id == "r2" and panel.note.isHidden() and panel.tree.isEnabled()
    assert _rows(panel) == ["agent agent2", "  llm chatB", "  chain tools"]
    assert panel.tree.currentItem().data(0, STEP_ROLE).span.trace_id == "B"
    panel.tree.topLevelItem(0).child(1).setExpanded(True)  # the run was read whole: from memory, at once
    assert _rows(panel) == ["agent agent2", "  llm chatB", "  chain tools", "    tool lookup"] and not panel.reading
    assert "MainThread" not in src.threads  # every read ran off the GUI thread
    panel.stop()


def test_a_failed_read_is_one_line_in_the_tab(qtbot: Any) -> None:
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.set_runs(SlowSource(fail="query failed: Timeout exceeded\nelapsed 30 s"))
    panel.show_trace("B")
    assert panel.wait()
    assert panel.note.text() == "cannot read the run: team-store: query failed: Timeout exceeded⏎elapsed 30 s"
    assert panel.tree.isHidden() and panel.run_id is None
    panel.show_trace(None)
    assert panel.note.text() == NO_RUN
    panel.stop()


def test_a_row_beyond_the_branch_is_read_when_expanded(qtbot: Any) -> None:
    src = SlowSource(whole=False)  # by level, as a SQLite file: the branch to the call first
    src.gate.set()
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.set_runs(src)
    panel.show_trace("B")
    assert panel.wait()
    tools = panel.tree.topLevelItem(0).child(1)
    assert tools.text(0) == "chain tools" and tools.childCount() == 0  # not on the branch: not read yet
    src.children_gate.clear()
    tools.setExpanded(True)
    assert [tools.child(i).text(0) for i in range(tools.childCount())] == [READING_STEPS]
    src.children_gate.set()
    assert panel.wait()
    assert [tools.child(i).text(0) for i in range(tools.childCount())] == ["tool lookup"]
    assert "MainThread" not in src.threads
    panel.stop()
