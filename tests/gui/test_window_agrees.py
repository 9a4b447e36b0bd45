"""The window says what ``show`` says: its header's State and verdict and its list row's State, for
every sample, with and without a ``ctxviewer.toml`` beside the database (the window assesses in
the database's context, as the CLI does)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.present.columns import TRACE_COLUMNS

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "traces.jsonl"
STATE = [c.key for c in TRACE_COLUMNS].index("state")


@pytest.mark.parametrize("configured", [False, True])
def test_the_header_and_the_list_row_say_what_show_says(windows, tmp_path: Path, configured: bool) -> None:  # type: ignore[no-untyped-def]
    if configured:
        (tmp_path / "ctxviewer.toml").write_text('[expected_policy."*"]\nsupport-policy = "v999"\n', encoding="utf-8")
    db = tmp_path / "s.db"
    assert CliRunner().invoke(cli, ["import", str(SAMPLES), "-o", str(db)]).exit_code == 0
    w = windows.open(db, show=False)
    model = w.trace_model
    for row in range(model.rowCount()):
        tid = model.trace_id(row)
        shown = json.loads(CliRunner().invoke(cli, ["show", str(db), tid, "--json"]).stdout)
        windows.select_row(w, row)
        a = w.panel.assessment
        assert a is not None and (a.state.value, a.verdict) == (shown["state"], shown["verdict"]), tid
        assert model.data(model.index(row, STATE)) == shown["state"], tid  # stored at import in the same context
    budget = json.loads(CliRunner().invoke(cli, ["show", str(db), "budget-8k", "--json"]).stdout)
    assert (budget["state"] == "failure") is configured  # the configuration changes the conclusion


def test_a_row_stored_in_another_context_is_marked_stale_then_refreshed_in_memory(windows, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.db"
    assert CliRunner().invoke(cli, ["import", str(SAMPLES), "-o", str(db)]).exit_code == 0
    (tmp_path / "ctxviewer.toml").write_text('[expected_policy."*"]\nsupport-policy = "v999"\n', encoding="utf-8")
    before = db.read_bytes()
    w = windows.open(db, show=False)
    model = w.trace_model
    total = model.rowCount()
    qtbot.waitUntil(lambda: not model.refreshing and model.refreshed == total, timeout=30_000)
    for row in range(total):  # every row says what show says in the new context, none marked stale
        tid = model.trace_id(row)
        shown = json.loads(CliRunner().invoke(cli, ["show", str(db), tid, "--json"]).stdout)
        assert model.data(model.index(row, STATE)) == shown["state"], tid
    assert model.data(model.index(model.row_of("budget-8k"), STATE)) == "failure"  # stored as ok before the file
    assert w.count_label.text() == f"{total} traces · {total} re-assessed with the current settings"
    assert db.read_bytes() == before  # recomputed in memory: the database stays as imported
    stored = json.loads(CliRunner().invoke(cli, ["list", str(db), "--json"]).stdout)
    assert next(r for r in stored if r["trace_id"] == "budget-8k")["facts_current"] is False


def test_without_a_context_to_assess_in_a_stale_row_stays_marked(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.gui.trace_list_model import TraceListModel
    from ctxviewer.store import TraceStore

    db = tmp_path / "s.db"
    assert CliRunner().invoke(cli, ["import", str(SAMPLES), "-o", str(db)]).exit_code == 0
    (tmp_path / "ctxviewer.toml").write_text('[expected_policy."*"]\nsupport-policy = "v999"\n', encoding="utf-8")
    store = TraceStore.open(db)  # read-only
    model = TraceListModel(threaded=False)
    model.context = context_for_db(db).fingerprint  # marks stale rows, recomputes none
    model.set_store(store)
    row = model.row_of("budget-8k")
    assert row is not None and model.data(model.index(row, STATE)) == "ok*"
    assert not model.refreshing and model.refreshed == 0
    model.stop()
    store.close()
