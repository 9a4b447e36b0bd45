"""The Run tab (issue 22 item 1): the run of the shown call as a lazily read tree with durations,
tokens, cost and a timeline; activating a model call's row shows that call."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from shared_data import needs_corpus

from ctxviewer.gui.run_panel import LOADED_ROLE, STEP_ROLE, TIMELINE, RunPanel
from ctxviewer.pipeline.importing import import_files
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
    assert not panel.note.isHidden() and panel.tree.isHidden() and panel.tree.topLevelItemCount() == 0
    assert panel.note.textFormat() == Qt.TextFormat.PlainText
    panel.close_store()
