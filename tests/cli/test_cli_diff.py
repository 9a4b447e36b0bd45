"""``ctxviewer diff`` and the derived "dropped between calls" rows of ``ctxviewer show`` (issue 8)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from otlp_factories import otlp_request, three_call_spans

from ctxviewer.cli import cli
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

SAMPLES_DB = str(Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db")


def test_diff_text_summary() -> None:
    r = CliRunner().invoke(cli, ["diff", SAMPLES_DB, "budget-8k", "budget-8k-replay"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[3] == "2 moved; first divergence at position 19"
    assert "first divergence  position 19: KB-1002 → PARTS-NB-RIDGEBACK2" in lines
    assert "eq. 3.1           fits, 800 tokens margin (unchanged)" in lines
    assert ("needed document   KB-1004 (best match with the question): evidence 4 of 8 (edge) → 8 of 8 (edge), "
            "4 places later; not in the middle in either") in lines
    assert "findings          none in either" in lines
    assert "response: changed (164 words removed, 112 added)" in lines  # the response's word diff
    assert ("evidence moved    PARTS-NB-RIDGEBACK2 6 → 3, KB-1004 4 → 8 (rank among the evidence sent)"
            in lines)
    assert any(ln.split() == ["↕", "evidence", "KB-1004", "moved", "20", "→", "24", "(#2);", "priority", "70", "→", "50"]
               for ln in lines)


def test_diff_json_keys_and_rows() -> None:
    r = CliRunner().invoke(cli, ["diff", SAMPLES_DB, "budget-8k", "budget-8k-replay", "--json"])
    assert r.exit_code == 0, r.output
    js = json.loads(r.output)
    assert [(i["change"], i["id"], i["position_a"], i["position_b"]) for i in js["items"] if i["change"] != "unchanged"] == [
        ("moved", "PARTS-NB-RIDGEBACK2", 22, 19), ("moved", "KB-1004", 20, 24)]
    assert js["verdict_a"] == js["verdict_b"] == "fits, 800 tokens margin"
    assert js["policy"]["changed"] is False and js["tool_calls"] == []
    assert js["allocations_delta"]["evidence"] == {"used_a": 3000, "used_b": 3000, "delta": 0,
                                                   "declared_a": 3000, "declared_b": 3000}


def test_diff_against_other_db(tmp_path: Path) -> None:
    other = tmp_path / "copy.db"
    shutil.copy(SAMPLES_DB, other)
    r = CliRunner().invoke(cli, ["diff", SAMPLES_DB, "budget-8k", "budget-8k", "--against", str(other), "--json"])
    assert r.exit_code == 0, r.output
    js = json.loads(r.output)
    assert js["no_change"] is True and js["first_divergence"] is None
    assert {i["change"] for i in js["items"]} == {"unchanged"}


def test_diff_errors_name_db_and_trace(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["diff", SAMPLES_DB, "budget-8k", "nope"])
    assert r.exit_code == 2 and f"{SAMPLES_DB}: no trace with id 'nope'" in r.output
    r = CliRunner().invoke(cli, ["diff", SAMPLES_DB, "budget-8k", "x", "--against", str(tmp_path / "missing.db")])
    assert r.exit_code == 2 and "missing.db" in r.output


def test_show_lists_messages_dropped_between_calls(tmp_path: Path) -> None:
    src = tmp_path / "agent.otlp.json"
    oid = "5b8efff798038103d269b633813fc60c"
    src.write_text(json.dumps(otlp_request(*three_call_spans(oid), resource={"service.name": "agent"})))
    db = tmp_path / "agent.db"
    with TraceStore.create(db) as store:
        import_files([src], store)
    r = CliRunner().invoke(cli, ["show", str(db), f"{oid}:00000000000000c3", "--json"])
    assert r.exit_code == 0, r.output
    items = json.loads(r.output)["items"]
    assert [(i["id"], i["status"], i["omission_reason"]) for i in items if i["status"] == "omitted"] == [
        ("dropped:msg-1", "omitted", "dropped between calls (derived)"),
        ("dropped:msg-2", "omitted", "dropped between calls (derived)"),
    ]
    text = CliRunner().invoke(cli, ["show", str(db), f"{oid}:00000000000000c3"]).output
    assert "dropped between calls (derived)" in text
    assert f"2 omitted items derived, not recorded: sent in the previous call {oid}:00000000000000c2" in text
