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


def test_a_row_stored_in_another_context_is_marked_stale_in_the_list(windows, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.db"
    assert CliRunner().invoke(cli, ["import", str(SAMPLES), "-o", str(db)]).exit_code == 0
    (tmp_path / "ctxviewer.toml").write_text('[expected_policy."*"]\nsupport-policy = "v999"\n', encoding="utf-8")
    w = windows.open(db, show=False)
    model = w.trace_model
    row = model.row_of("budget-8k")
    windows.select_row(w, row)
    assert model.data(model.index(row, STATE)) == "ok*"  # stored before the file: marked
    assert w.panel.assessment is not None and w.panel.assessment.state.value == "failure"  # the header reads it afresh
