"""The Run tab (issue 22 item 1): the run of the shown call as a lazily read tree with durations,
tokens, cost and a timeline; activating a model call's row shows that call; a leaf has no expand
arrow; the timeline's header is an axis from 0 to the run's duration in ms."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem
from shared_data import needs_corpus

from ctxviewer.gui.run_panel import LOADED_ROLE, STEP_ROLE, TIMELINE, RunPanel
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.run_tree import tick_label, time_ticks
from ctxviewer.store import TraceStore

pytestmark = needs_corpus

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
BROWSER = CORPUS / "other" / "inspect_ai" / "inspect-browser-tools-gpt-4o-mini.json"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("runpanel") / "runs.db"
    with TraceStore.create(path) as store:
        import_files([BROWSER], store, workers=1)
    return path


def test_opens_down_to_the_call_and_reads_children_on_expand(qtbot, db: Path) -> None:
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.set_database(db)
    panel.show_trace("ZB2vu5GNujYaBdPSReCeop/1/1/2")
    assert panel.wait()  # read off the GUI thread
    tree = panel.tree
    assert tree.topLevelItemCount() == 1
    root = tree.topLevelItem(0)
    assert [root.text(c) for c in range(5)] == ["sample sample 1 epoch 1", "19,692", "", "", ""]
    assert [root.child(i).text(0) for i in range(root.childCount())] == [
        "init init", "solver use_tools", "solver generate", "scorer includes"]
    generate = root.child(2)
    assert generate.isExpanded() and generate.data(0, LOADED_ROLE)
    assert not root.child(0).data(0, LOADED_ROLE)  # never expanded: its children were not read
    current = tree.currentItem()
    assert [current.text(c) for c in range(5)] == ["llm openai/gpt-4o-mini", "847", "ok", "2,732 / 17", "$0.000305"]
    # the file's usage: 2,732 input of which 1,536 cached, 17 output; gpt-4o-mini:
    # 1,196 x 0.15 + 1,536 x 0.075 + 17 x 0.6 = 304.8 micro-dollars
    assert current.data(0, STEP_ROLE).span.trace_id == "ZB2vu5GNujYaBdPSReCeop/1/1/2"
    assert panel.bounds is not None and panel.note.isHidden()
    panel.resize(900, 400)
    panel.show()
    qtbot.waitExposed(panel)
    image = tree.viewport().grab().toImage()
    row = tree.visualItemRect(current)
    header = tree.header()
    x0 = header.sectionPosition(TIMELINE)
    colors = {image.pixelColor(x, row.center().y()).name() for x in range(x0, x0 + header.sectionSize(TIMELINE))}
    assert "#2563eb" in colors  # the call's bar on the run's timeline (a model call: blue)
    with qtbot.waitSignal(panel.sig_trace_selected) as sig:
        tree.itemActivated.emit(current, 0)
    assert sig.args == ["ZB2vu5GNujYaBdPSReCeop/1/1/2"]
    panel.close_store()


def test_a_call_without_a_run_says_so(qtbot, db: Path) -> None:
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.set_database(db)
    panel.show_trace("not-a-trace")
    assert panel.wait()  # read off the GUI thread
    assert not panel.note.isHidden() and panel.tree.isHidden() and panel.tree.topLevelItemCount() == 0
    assert panel.note.textFormat() == Qt.TextFormat.PlainText
    panel.close_store()


def test_only_steps_with_children_have_an_expand_arrow(qtbot, db: Path) -> None:
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.set_database(db)
    panel.show_trace("ZB2vu5GNujYaBdPSReCeop/1/1/2")
    assert panel.wait()  # read off the GUI thread
    root = panel.tree.topLevelItem(0)
    model = panel.tree.model()
    kids = {root.child(i).text(0): root.child(i) for i in range(root.childCount())}
    # init, use_tools and the scorer hold no event of their own in the file; generate holds the calls
    show, hide = QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator, QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicator
    assert {t: c.childIndicatorPolicy() for t, c in kids.items()} == {
        "init init": hide, "solver use_tools": hide, "solver generate": show, "scorer includes": hide}
    for title in ("init init", "solver use_tools", "scorer includes"):
        assert not model.hasChildren(panel.tree.indexFromItem(kids[title]))
    calls = [kids["solver generate"].child(i) for i in range(kids["solver generate"].childCount())]
    assert [c.text(0) for c in calls[:2]] == ["llm openai/gpt-4o-mini", "tool web_browser_go"]
    assert all(not model.hasChildren(panel.tree.indexFromItem(c)) for c in calls)  # model calls and tools: leaves
    assert model.hasChildren(panel.tree.indexFromItem(kids["solver generate"]))
    panel.close_store()


def test_the_timeline_axis_spans_the_run_in_ms(qtbot, db: Path) -> None:
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.set_database(db)
    panel.show_trace("ZB2vu5GNujYaBdPSReCeop/1/1/2")
    assert panel.wait()  # read off the GUI thread
    root = panel.tree.topLevelItem(0).data(0, STEP_ROLE)
    # the sample runs 00:27:36.997226 -> 00:27:56.689632: 19,692.406 ms, and no step lies outside it
    assert panel.axis_range() == (0.0, pytest.approx(19692.406))
    assert root.duration_ms == pytest.approx(19692.406)
    assert panel.ticks(400) == [0.0, 5000.0, 10000.0, 15000.0]  # 400 px: 7 ticks at most, steps of 1/2/5 x 10^k
    assert panel.ticks(120) == [0.0, 10000.0]
    assert "19,692 ms at its last end" in panel.tree.headerItem().toolTip(TIMELINE)
    panel.resize(900, 300)
    panel.show()
    qtbot.waitExposed(panel)
    header = panel.tree.header()
    image = header.grab().toImage()
    x0, w = header.sectionPosition(TIMELINE), header.sectionSize(TIMELINE)
    dark = [x for x in range(x0, x0 + w) if any(image.pixelColor(x, y).lightness() < 110 for y in range(image.height()))]
    assert dark and min(dark) < x0 + 20 and max(dark) > x0 + w // 2  # labels from "0" on the left to the last tick
    panel.close_store()


def test_time_ticks() -> None:
    assert time_ticks(2450, 3) == [0.0, 1000.0, 2000.0]
    assert time_ticks(2450, 5) == [0.0, 500.0, 1000.0, 1500.0, 2000.0]
    assert time_ticks(7, 10) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    assert time_ticks(0, 5) == [0.0] and time_ticks(100, 1) == [0.0]
    assert [tick_label(t) for t in time_ticks(19692.406, 4)] == ["0", "5,000", "10,000", "15,000"]
