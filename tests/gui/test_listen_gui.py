"""File › Listen for Traces… (:mod:`ctxviewer.gui.listen`): the window starts the live receiver
into a database, the trace list grows as spans arrive with an "N new" marker, Mark seen clears
it, and Stop ends the receiver with every answered span kept."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from ctxviewer.gui.listen import START_TEXT, STOP_TEXT
from ctxviewer.store import TraceStore


def _send(url: str, n: int) -> int:
    msgs = json.dumps([{"role": "user", "parts": [{"type": "text", "content": f"question {n}"}]}])
    span = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": f"{n + 1:016x}", "name": "chat m-1",
            "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "gen_ai.input.messages", "value": {"stringValue": msgs}}]}
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()
    req = urllib.request.Request(f"{url}/v1/traces", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return int(resp.status)


def test_the_list_grows_live_with_an_n_new_marker(qtbot, windows, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w = windows.new()
    qtbot.waitExposed(w)
    db = tmp_path / "live.db"
    lc = w.listener
    assert lc.start(db, port=0)
    try:
        assert lc.act_listen.text() == STOP_TEXT and lc.receiver is not None
        assert lc.receiver.url.startswith("http://127.0.0.1:")
        assert w.store is not None and w.store.path == db and w.trace_model.rowCount() == 0
        assert _send(lc.receiver.url, 0) == 200
        assert _send(lc.receiver.url, 1) == 200
        qtbot.waitUntil(lambda: w.trace_model.rowCount() == 2, timeout=10000)
        qtbot.waitUntil(lambda: "2 new" in lc.label.text(), timeout=10000)
        assert not lc.bar.isHidden()
        lc.mark_seen()
        assert "0 new · 2 received · 0 batch(es) refused" in lc.label.text()
        assert _send(lc.receiver.url, 2) == 200
        qtbot.waitUntil(lambda: w.trace_model.rowCount() == 3, timeout=10000)
        qtbot.waitUntil(lambda: "1 new · 3 received" in lc.label.text(), timeout=10000)
    finally:
        lc.stop()
    assert lc.receiver is None and lc.act_listen.text() == START_TEXT and lc.bar.isHidden()
    with TraceStore.open(db) as store:
        assert store.count() == 3
