"""Issue 12, "nothing interpreted": hostile text in a trace is visible and inert in every table
cell, header and CLI text output; --json keeps the data exactly, escaped."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner
from factories import make_trace

from ctxviewer.assess.assessment import assess
from ctxviewer.cli import cli
from ctxviewer.cli.output import InertStream, json_escape
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.columns import ITEM_COLUMNS, TRACE_COLUMNS
from ctxviewer.store import TraceStore

HOSTILE = "\u202eevil\u202c\u200b\U000e0041\U000e0042\x00\x1b[2J\x1b[31mRED"
SHOWN = "⟨RLO⟩evil⟨PDF⟩⟨ZWSP⟩⟨tags: AB⟩␀␛[2J␛[31mRED"
RAW = ("\u202e", "\u202c", "\u200b", "\x00", "\x1b", "\U000e0041")


def _db(tmp_path: Path) -> tuple[Path, str]:
    t = make_trace(trace_id="x1" + HOSTILE, service="svc" + HOSTILE)
    t = replace(t, endpoint=replace(t.endpoint, model="gpt" + HOSTILE),
                items=(replace(t.items[0], id="policy" + HOSTILE),) + t.items[1:])
    db = tmp_path / "h.db"
    with TraceStore.create(db) as store:
        store.add(with_facts([t]))
    return db, t.trace_id


def _run(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def test_list_and_show_text_output_shows_markers_and_passes_no_control(tmp_path: Path) -> None:
    db, tid = _db(tmp_path)
    listed = _run("list", str(db), "--wide")
    assert f"x1{SHOWN}" in listed and f"gpt{SHOWN}" in listed
    narrow = _run("list", str(db))  # fitted to 100 columns: the cells elided after revealing
    assert "x1⟨RLO⟩evil⟨PDF⟩…" in narrow and "gpt⟨RLO⟩evi…" in narrow
    shown = _run("show", str(db), tid)
    assert f"Trace       x1{SHOWN}\n" in shown and f"Service     svc{SHOWN}\n" in shown
    assert f"policy{SHOWN}" in shown  # the item table's id cell
    for out in (listed, narrow, shown):
        assert not any(ch in out for ch in RAW)


def test_json_output_keeps_the_exact_text_as_escapes(tmp_path: Path) -> None:
    db, tid = _db(tmp_path)
    out = _run("list", str(db), "--json")
    assert not any(ch in out for ch in RAW)
    assert json.loads(out)[0]["trace_id"] == tid  # the same data
    assert json.loads(_run("show", str(db), tid, "--json"))["trace_id"] == tid


def test_every_table_cell_and_header_row_is_revealed_without_changing_the_trace() -> None:
    t = make_trace(trace_id="x1" + HOSTILE)
    t = replace(t, items=(replace(t.items[0], id="p" + HOSTILE),) + t.items[1:])
    cells = [c.format(t.items[0]) for c in ITEM_COLUMNS]
    assert cells[2] == "p" + SHOWN
    rows = dict(assess(t).header)
    assert rows["Trace"] == "x1" + SHOWN
    assert t.trace_id == "x1" + HOSTILE  # stored text unchanged

    class Row:
        trace_id = "x1" + HOSTILE
        created = None
        model = "m\n" + HOSTILE
        capacity = input_tokens = retained_count = omitted_count = omissions_recorded = None
        state = verdict = None
        session_id = "s" + HOSTILE
        span_status = "error"
        status_message = "boom" + HOSTILE
        agent = "a" + HOSTILE
        operation = None

    assert [c.format(Row()) for c in TRACE_COLUMNS][1:3] == ["x1" + SHOWN, "m⏎" + SHOWN]
    by_key = {c.key: c for c in TRACE_COLUMNS}
    assert by_key["conversation"].format(Row()) == "s" + SHOWN
    assert by_key["agent"].format(Row()) == "a" + SHOWN  # issue 13: the agent / operation column
    tip = by_key["span_status"].tooltip
    assert tip is not None and tip(Row()) == "span ended in error: boom" + SHOWN


def test_the_inert_stream_and_json_escape() -> None:
    import io

    buf = io.StringIO()
    InertStream(buf, json_mode=lambda: False).write("a\u202eb\n\tc\r")
    assert buf.getvalue() == "a⟨RLO⟩b\n\tc␍"
    assert json_escape("x\u202e\U000e0041") == "x\\u202e\\udb40\\udc41"
    assert json.loads(json.dumps("x") .replace("x", json_escape("x\u202e\U000e0041"))) == "x\u202e\U000e0041"
