"""``ctxviewer check``: findings per trace, JSON shape, --fail-on exit status, config and marks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.assess.marks import Mark, set_mark
from ctxviewer.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_json_per_trace_with_findings_and_exit_status() -> None:
    code, out, _ = run("check", str(SAMPLES), "json-unsupported", "budget-8k", "--json")
    assert code == 1  # failures exist (default --fail-on failure)
    data = json.loads(out)
    assert [(d["trace_id"], d["state"], d["observed_row"]) for d in data] == [
        ("json-unsupported", "failure", None), ("budget-8k", "ok", None)]
    assert data[1]["findings"] == []
    first = data[0]["findings"][0]
    assert set(first) == {"rule", "severity", "table_row", "message", "evidence", "first_evidence", "repair"}
    assert (first["rule"], first["severity"], first["table_row"]) == ("output.cited_id_not_retained", "failure", 4)
    assert first["first_evidence"] == "Evidence and application-rule checks"


def test_fail_on_threshold() -> None:
    assert run("check", str(SAMPLES), "budget-8k")[0] == 0
    assert run("check", str(SAMPLES), "ticket-injection")[0] == 0  # warnings only: blocked refund
    assert run("check", str(SAMPLES), "ticket-injection", "--fail-on", "warning")[0] == 1


def test_text_output_names_row_first_evidence_and_repair() -> None:
    code, out, _ = run("check", str(SAMPLES), "evidence-in-middle")
    assert code == 0
    assert out.splitlines()[:4] == [
        "evidence-in-middle: warning",
        "  warning  evidence.needed_in_middle [Table 3.1 row 3]: KB-1008#p1 (best match with the question) sits "
        "at evidence 10 of 20 (request position 13, middle band, risk high) and the answer does not cite it",
        "           inspect first: Retrieval ranking and context order",
        "           repair: Rescore candidates with the query, remove duplicates, and shorten evidence; "
        "Section 6.6 teaches reranking",
    ]
    assert out.splitlines()[-1] == "1 trace(s) checked: 0 failure, 1 warning, 0 ok"


def test_expected_policy_option_and_toml_beside_db(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    shutil.copy(SAMPLES, db)
    code, out, _ = run("check", str(db), "budget-8k", "--json", "--expected-policy", "support-policy=2026-11-01")
    assert code == 1
    [f] = json.loads(out)[0]["findings"]
    assert f["message"] == "policy support-policy version 2026-10-03 was sent; support-assistant expects 2026-11-01"
    (tmp_path / "ctxviewer.toml").write_text('[expected_policy."support-assistant"]\nsupport-policy = "v9"\n')
    assert "expects v9" in run("check", str(db), "budget-8k")[1]
    (tmp_path / "ctxviewer.toml").write_text('[expected_policy."support-assistant"]\nsupport-policy = "2026-10-03"\n')
    assert run("check", str(db), "budget-8k")[0] == 0


def test_marks_lead_and_needed_document(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    shutil.copy(SAMPLES, db)
    before = db.read_bytes()
    set_mark(db, "json-unsupported", Mark(row=4))
    set_mark(db, "policy-missing", Mark(row=4))  # the user suspects row 4: its instances lead
    set_mark(db, "evidence-in-middle", Mark(row=3, needed=("KB-1006#p3",)))
    data = json.loads(run("check", str(db), "policy-missing", "evidence-in-middle", "--json")[1])
    assert data[0]["observed_row"] == 4
    assert [f["rule"] for f in data[0]["findings"]] == ["policy.unavailable", "validation.failed"]
    [f] = data[1]["findings"]
    assert f["message"] == ("KB-1006#p3 (marked as needed by the user) sits at evidence 9 of 20 (request "
                            "position 12, middle band, risk high) and the answer does not cite it")
    assert db.read_bytes() == before  # marks never go into the DB
    assert (tmp_path / "s.db.marks.json").is_file()


def test_unknown_trace_and_bad_option() -> None:
    code, _, err = run("check", str(SAMPLES), "nope")
    assert code == 2 and "no trace with id 'nope'" in err  # bad input: 2, never the findings' 1
    code, _, err = run("check", str(SAMPLES), "--expected-policy", "oops")
    assert code == 2 and "'oops' is not ID=VERSION" in err


def test_show_json_has_the_evidence_position_map() -> None:
    d = json.loads(run("show", str(SAMPLES), "evidence-in-middle", "--json")[1])["evidence_positions"]
    assert (d["retained_count"], d["long_list"], d["middle_band"], d["needed_source"]) == (20, True, [8, 13], "best match")
    needed = [(e["item_id"], e["index"], e["position"], e["band"], e["risk"], e["cited"]) for e in d["items"] if e["needed"]]
    assert needed == [("KB-1008#p1", 10, 13, "middle", "high", False)]
    assert json.loads(run("show", str(SAMPLES), "policy-missing", "--json")[1])["evidence_positions"]["retained_count"] == 3


ALL_FINDINGS = {
    # issue 9 "done when": every sample through `check --json`, every module's findings (eq. 3.1,
    # accounting, Table 3.1 rows, tool calls, the injection scanner), in the order shown
    "history-16k": ("failure", [("budget.over_capacity", "failure", None), ("accounting.count_mismatch", "warning", None),
                                ("budget.over_before_trim", "info", None)]),
    "budget-8k": ("ok", []),
    "budget-8k-over": ("ok", [("budget.over_before_trim", "info", None)]),
    "budget-8k-replay": ("ok", []),
    "evidence-in-middle": ("warning", [("evidence.needed_in_middle", "warning", 3)]),
    "refund-approval-forgotten": ("warning", [("commitment.forgotten", "warning", 2)]),
    "ticket-injection": ("warning", [("injection.action_linkage", "warning", 5), ("tool.unsafe_blocked", "warning", 5),
                                     ("injection.hidden", "warning", None), ("injection.hidden", "warning", None),
                                     ("injection.hidden", "warning", None), ("injection.override", "warning", None),
                                     ("injection.tool_request", "warning", None)]),
    "policy-missing": ("failure", [("policy.unavailable", "failure", 1), ("validation.failed", "failure", 1)]),
    "json-unsupported": ("failure", [("output.cited_id_not_retained", "failure", 4), ("validation.failed", "failure", 4),
                                     ("validation.failed", "failure", 4), ("output.value_unsupported", "warning", 4)]),
}


def test_every_sample_yields_exactly_its_findings_with_evidence() -> None:
    code, out, _ = run("check", str(SAMPLES), "--json")
    assert code == 1
    data = json.loads(out)
    got = {d["trace_id"]: (d["state"], [(f["rule"], f["severity"], f["table_row"]) for f in d["findings"]]) for d in data}
    assert got == ALL_FINDINGS
    for d in data:
        for f in d["findings"]:
            assert any(f["evidence"].values()), f  # each finding names what it used
            if f["table_row"] is not None:  # a Table 3.1 row: its first evidence and repair, as the table words them
                assert f["first_evidence"] and f["repair"], f
    # the blocked refund in the ticket trace: linked to the call and to the ticket's span
    ticket = next(d for d in data if d["trace_id"] == "ticket-injection")
    blocked = next(f for f in ticket["findings"] if f["rule"] == "tool.unsafe_blocked")
    assert blocked["evidence"]["tool_call_ids"] == ["call_8Qm2vTtZ0rWkH5yNcLd3aPfE"]
    assert blocked["message"].startswith("issue_refund proposed and blocked because 3 check(s) failed")
