"""Issue 27 item 8.5: the content pane's title of an item the exporter truncated says so."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_factories import chat_span, i, otlp_request, s

from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

CUT = '[{"role":"user","parts":[{"type":"text","content":"Summarise the attached contract: WHEREAS the parties'


def test_a_truncated_item_says_so_in_the_content_title(qtbot, windows, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    span = chat_span(end="1700000001000000000", **{"gen_ai.request.model": s("gpt-4o"),
                                                    "gen_ai.input.messages": s(CUT), "gen_ai.usage.input_tokens": i(18000)})
    src = tmp_path / "spans.otlp.json"
    src.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        import_files([src], store)
        trace_id = store.list()[0].trace_id
    w = windows.new()
    qtbot.waitExposed(w)
    assert w.open_database(db)
    windows.select(w, trace_id)
    w.panel.items.select_item("msg-0")
    assert w.panel.content_title.text() == (
        "msg-0 — user, untrusted, 26 tokens of truncated text (truncated by the exporter), retained")
