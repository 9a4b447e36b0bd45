"""Trace › Position Test… (ctxviewer.gui.position_panel): the variants run off the GUI thread against
the fake server, the curve is drawn with its Wilson error bars and the report is position-test's
text; harness rows draw the same chart."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from replay_fakes import FakeServer

from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
DATA = Path(__file__).resolve().parents[1] / "data" / "harness"
ITEM = "KB-1008#p1"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("ctxviewer.replay.endpoints.user_config_path", lambda: tmp_path / "user.toml")
    shutil.copy(SAMPLES, tmp_path / "samples.db")
    return tmp_path / "samples.db"


def test_a_position_test_from_the_window(qtbot, windows, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = windows.open(db, show=False)
    windows.select(w, "evidence-in-middle")
    with TraceStore.open(db) as s:
        needle = s.load("evidence-in-middle").item(ITEM).content
    with FakeServer(curve=lambda pos: {1: 1.0, 20: 0.0}[pos], needle=needle, answer_text="price adjustment") as srv:
        (db.parent / "user.toml").write_text(  # the user's own file: only its endpoints are sent a key
            f'[endpoint.fake]\nkind = "openai-chat"\nbase_url = "{srv.base_url}"\nmodel = "m"\napi_key_env = "FK"\n',
            encoding="utf-8")
        w.replayer.act_positions.trigger()
        panel = w.replayer.panel
        qtbot.addWidget(panel)
        assert panel.item.currentData() == "ORD-NW-4497710"  # the first evidence item
        panel.item.setCurrentIndex(panel.item.findData(ITEM))
        assert panel.endpoint.count() == 1 and panel.target.text() == str(db.with_name("samples.replays.db"))
        panel.positions.setText("1,20")
        panel.repeats.setValue(3)
        panel.score.setText('contains:"price adjustment"')
        monkeypatch.setenv("FK", "k")
        task = panel.run()
        qtbot.waitUntil(lambda: task.done, timeout=30_000)
    assert srv.problems == [[]] * 6
    assert [(p[0], p[1]) for p in panel.chart.points] == [(1, 1.0), (20, 0.0)]
    text = panel.report.toPlainText()
    assert "6 runs stored in" in text and "best - worst: position 1 - position 20 = +1.00" in text
    with TraceStore.open(db.with_name("samples.replays.db")) as s:
        assert len(s.list()) == 6


def test_a_form_mistake_sends_nothing(qtbot, db: Path) -> None:
    from ctxviewer.gui.position_panel import PositionPanel

    panel = PositionPanel()
    qtbot.addWidget(panel)
    with TraceStore.open(db) as s:
        panel.set_trace(s.load("evidence-in-middle"), str(db))
    assert panel.report.toPlainText().startswith("No endpoint is configured, so nothing can be sent")
    assert panel.run() is None
    assert panel.report.toPlainText() == "No endpoint is configured, so nothing is sent."


def test_harness_rows_draw_the_chart(qtbot) -> None:
    from ctxviewer.gui.position_panel import PositionPanel

    panel = PositionPanel()
    qtbot.addWidget(panel)
    panel.show_harness([str(DATA / "litm-nq-20docs.jsonl")], "litm")
    assert [(p[0], p[1]) for p in panel.chart.points] == [(1, 0.75), (10, 0.5), (20, 0.75)]
    assert panel.report.toPlainText().splitlines()[0].startswith("skipped ")
