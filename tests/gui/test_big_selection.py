"""Selecting a big trace (issue 11): its items show at once and its assessment (header, chart,
findings) follows from the loader's worker thread, so the window never waits for the checks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ctxviewer.assess.assessment import assess
from ctxviewer.gui.detail_panel import SHOWN_ELSEWHERE
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


def test_big_trace_items_at_once_assessment_from_the_worker(qtbot, windows, tmp_path: Path) -> None:
    db = tmp_path / "big.db"
    with TraceStore.create(db) as st:
        st.add(with_facts([_big(600, "big-600"), _big(4, "small-4")]))
    w = windows.open(db)
    windows.select(w, "small-4")
    at_items: dict[str, object] = {}

    def on_loaded(trace: object) -> None:  # the items are painted; the checks' result has not come yet
        at_items.update(trace=w.trace.trace_id, items=w.panel.item_model.rowCount(), assessing=w.panel.assessing,
                        assessment=w.panel.assessment, empty=w.chart.is_empty(), chart=w.chart.empty_label.text(),
                        tab=w.panel.tabs.widget.tabText(0), content=bool(w.panel.content_title.text()))

    w.loader.sig_loaded.connect(on_loaded)
    windows.select(w, "big-600")
    assert at_items == {"trace": "big-600", "items": 600, "assessing": True, "assessment": None, "empty": True,
                        "chart": "Assessing 600 items…", "tab": "Items (600)", "content": True}
    want = assess(w.trace)
    assert w.panel.assessment == want and not w.panel.assessing
    assert w.chart.state() == state_headline(want.state) and not w.chart.is_empty()
    assert w.chart.segments()["used"] == list(want.figure.used)
    assert w.detail.rows() == [(k, v) for k, v in want.header if k not in SHOWN_ELSEWHERE] != []
    # a newer selection wins over a big trace's load and assessment still running
    selected: list[str] = []
    w.sig_trace_selected.connect(selected.append)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000) as shown:
        w.select_trace("small-4")
        w.select_trace("big-600")
        w.select_trace("small-4")
    assert shown.args == ["small-4"] and selected == ["small-4"]
    assert w.trace.trace_id == "small-4" and w.panel.item_model.rowCount() == 4
    small = assess(w.trace)
    assert w.panel.assessment == small and w.chart.state() == state_headline(small.state)
