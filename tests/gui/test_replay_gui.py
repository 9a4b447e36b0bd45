"""Trace › Replay… (ctxviewer.gui.replay_controller): the request goes to the fake server off the GUI
thread, the replay is stored beside the database, and the diff window opens; with no endpoint
configured nothing is sent."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from replay_fakes import FakeServer

from ctxviewer.replay.endpoints import EndpointConfig
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("ctxviewer.replay.endpoints.user_config_path", lambda: tmp_path / "none.toml")
    shutil.copy(SAMPLES, tmp_path / "samples.db")
    return tmp_path / "samples.db"


def test_replay_runs_off_the_gui_thread_and_opens_the_diff(qtbot, windows, db: Path) -> None:
    w = windows.open(db, show=False)
    windows.select(w, "budget-8k")
    assert w.replayer.act.text() == "&Replay…"
    target = db.with_name("samples.replays.db")
    with FakeServer() as srv:
        ep = EndpointConfig("fake", "openai-chat", srv.base_url, None, None, timeout_s=10, source="test")
        with qtbot.waitSignal(w.compare.sig_opened, timeout=20_000) as opened:
            w.replayer.start(str(db), "budget-8k", ep, str(target))
    dw = opened.args[0]
    qtbot.addWidget(dw)
    assert dw.windowTitle().startswith("ctxviewer — compare budget-8k ↔ budget-8k~replay-")
    assert len(srv.requests) == 1
    with TraceStore.open(target) as s:
        (row,) = s.list()
        back = s.load(row.trace_id)
    assert back.replay_of == "budget-8k" and back.request.content.encode("utf-8") == srv.requests[0]["raw"]


def test_a_failure_is_shown_in_a_message(qtbot, windows, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = windows.open(db, show=False)
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(w, "show_error", lambda title, msg: shown.append((title, msg)))
    with FakeServer() as srv:
        srv.script("malformed")
        ep = EndpointConfig("fake", "openai-chat", srv.base_url, None, None, timeout_s=10, source="test")
        task = w.replayer.start(str(db), "budget-8k", ep, str(db.with_name("r.db")))
        qtbot.waitUntil(lambda: task.done, timeout=20_000)
    assert shown == [("Replay failed", "endpoint fake: the answer is not a JSON object "
                                        "(30 bytes, starts '{\"choices\": [ this is not json')")]


def test_no_endpoint_no_socket(qtbot, windows, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = windows.open(db, show=False)
    windows.select(w, "budget-8k")
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(w, "show_error", lambda title, msg: shown.append((title, msg)))
    opened: list[object] = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, addr: opened.append(addr))
    w.replayer.act.trigger()
    assert shown[0][0] == "Cannot replay"
    assert shown[0][1].startswith("No endpoint is configured, so nothing is sent.")
    assert opened == []


def test_the_whatif_window_replays_its_retrimmed_request(qtbot, windows, db: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """What-if › Replay…: "what would the model have answered with this budget?" -- the re-trimmed
    request (the items the what-if omits are not in it) goes to the endpoint; the diff opens."""
    from PySide6.QtWidgets import QFileDialog, QInputDialog

    w = windows.open(db, show=False)
    windows.select(w, "budget-8k")
    w.whatif.open()
    panel = w.whatif.panel
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.outcome is not None and panel.outcome.trace is not None, timeout=20_000)
    panel.capacity.setValue(7000)
    qtbot.waitUntil(lambda: panel.outcome.scenario.capacity == 7000 and panel.outcome.trace is not None
                    and bool(panel.outcome.trace.omitted), timeout=20_000)
    gone = {i.id for i in panel.outcome.trace.omitted}
    gone_text = [i.content for i in panel.outcome.trace.omitted if i.content]
    assert gone and gone_text
    target = tmp_path / "whatif-replays.db"
    with FakeServer() as srv:
        (tmp_path / "none.toml").write_text(  # the user's own file (the fixture's user_config_path)
            f'[endpoint.fake]\nkind = "openai-compatible"\nbase_url = "{srv.base_url}"\nmodel = "m"\n',
            encoding="utf-8")
        monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: (a[3][0], True))
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
        assert panel.replay.isEnabled()
        with qtbot.waitSignal(w.compare.sig_opened, timeout=20_000) as opened:
            panel.replay.click()
    qtbot.addWidget(opened.args[0])
    (req,) = srv.requests
    sent = req["raw"].decode("utf-8")
    assert not any(text[:60] in sent for text in gone_text)  # the omitted items were not sent
    with TraceStore.open(target) as s:
        (row,) = s.list()
        back = s.load(row.trace_id)
    assert back.replay_of == panel.outcome.trace.trace_id
    assert gone.isdisjoint({i.id for i in back.retained})
