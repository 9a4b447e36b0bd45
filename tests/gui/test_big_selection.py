"""Selecting a big trace (issue 11): its items show at once and its assessment (header, chart,
findings) follows from a worker thread, so the window never waits for the checks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QSettings

from ctxviewer.assess.assessment import assess
from ctxviewer.gui.trace_panel import ASYNC_ITEMS
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.finding_view import state_headline
from ctxviewer.store import TraceStore
from tests.factories import make_trace


def _big(n: int, trace_id: str) -> object:
    base = make_trace()
    items = []
    for i in range(n):
        src = base.items[i % len(base.items)]
        items.append(replace(src, id=f"{src.id}-{i}", position=i + 1 if src.position is not None else None))
    return replace(base, trace_id=trace_id, items=tuple(items))


def test_big_trace_items_at_once_assessment_from_the_worker(qtbot, tmp_path: Path) -> None:
    from ctxviewer.gui.main_window import MainWindow

    db = tmp_path / "big.db"
    with TraceStore.create(db) as st:
        st.add(with_facts([_big(600, "big-600"), _big(4, "small-4")]))
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    assert w.open_database(db, remember=False)
    w.panel.wait_assessed()
    assert ASYNC_ITEMS <= 600
    w.select_trace("small-4")
    w.select_trace("big-600")
    # painted at once: the items and the first item's content; the chart says what it waits for
    assert w.trace.trace_id == "big-600" and w.panel.item_model.rowCount() == 600
    assert w.panel.assessing and w.panel.assessment is None
    assert w.chart.is_empty() and w.chart.empty_label.text() == "Assessing 600 items…"
    assert w.panel.tabs.widget.tabText(0) == "Items (600)"
    assert w.panel.wait_assessed()
    want = assess(w.trace)
    assert w.panel.assessment == want
    assert w.chart.state() == state_headline(want.state) and not w.chart.is_empty()
    assert w.chart.segments()["used"] == list(want.figure.used)
    from ctxviewer.gui.detail_panel import SHOWN_ELSEWHERE

    assert w.detail.rows() == [(k, v) for k, v in want.header if k not in SHOWN_ELSEWHERE] != []
    # a small trace is assessed on the spot
    w.select_trace("small-4")
    assert not w.panel.assessing and w.panel.assessment == assess(w.trace)
    # a newer selection wins over a big trace's assessment still running
    w.select_trace("big-600")
    w.select_trace("small-4")
    small = w.panel.assessment
    for task in list(w.panel._tasks):
        task.wait()
    qtbot.wait(50)
    assert w.trace.trace_id == "small-4" and w.panel.assessment is small
    assert w.chart.state() == state_headline(small.state)
