"""``ctxviewer whatif``: text, JSON, errors, and saving to another database."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def test_evidence_2000_more_tokens_text() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--add-tokens", "evidence:75:2000"])
    assert res.exit_code == 0, res.output
    assert "before trimming: over capacity by 1,200 tokens: had 6,800 tokens left, needed 8,000" in res.output
    # the declared B_evidence 3,000 trims the lowest-priority evidence, the new 2,000 (75) among them
    assert "recorded: ok: fits, 800 tokens margin\nverdict: ok: fits, 2,492 tokens margin; before trimming: over by 1,200" \
        in res.output
    assert "evidence            3,000      1,308    -1,692" in res.output
    assert "what-if-1            evidence  not in the recording  omitted (budget:evidence)" in res.output


def test_json_keys_and_values() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--capacity", "7,000",
                                   "--cap", "evidence=2500", "--priority", "KB-1005=99", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert set(out) >= {"selection", "changes", "category_delta", "verdict", "state", "recorded", "rules", "notes"}
    assert (out["selection"]["capacity"], out["selection"]["capacity_source"]) == (7000, "set for this what-if")
    assert out["category_delta"]["evidence"]["before"] == 3000
    omitted = [o["id"] for o in out["selection"]["omitted"]]
    # the evidence cap goes first: PARTS (60) then KB-1001 (58); KB-1005 now has priority 99; then
    # the input budget 7,000 - 1,200 - 800 (the declared safety margin) = 5,000: turn-00..turn-04
    assert omitted == ["turn-00", "turn-01", "turn-02", "turn-03", "turn-04", "PARTS-NB-RIDGEBACK2", "KB-1001"]
    assert out["selection"]["input_tokens"] == 4958
    assert (out["state"], out["verdict"]) == ("ok", "fits, 842 tokens margin; before trimming: over by 200")
    assert out["recorded"] == {"state": "ok", "verdict": "fits, 800 tokens margin"}
    assert out["rules"][-1] == "budget: input <= C 7,000 - B_out 1,200 - safety margin 800 = 5,000 tokens"


def test_required_over_budget_exits_1_naming_the_overrun() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--capacity", "3100"])
    assert res.exit_code == 1
    assert "over by 100 tokens; nothing was sent" in res.output


def test_no_options_reproduce_the_recording() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "history-16k"])
    assert res.exit_code == 0, res.output
    assert ("verdict: failure: over capacity by 348 tokens by the provider-reported input: had 14,000 tokens left, "
            "needed 14,348 (counted 14,000); before trimming: over by 1,213; counted input 14,000 and reported input "
            "14,348 tokens differ by 348, more than the tolerance of 0 (as recorded)") in res.output
    assert ("selection: input 14,000 tokens, reserved output 2,000, C 16,000 tokens recorded; retained 75, omitted 11\n"
            "no item changed") in res.output
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k-over", "--json"])
    out = json.loads(res.output)
    assert out["changes"] == [] and out["state"] == "ok"
    assert [o["id"] for o in out["selection"]["omitted"]] == ["KB-1014", "KB-1015", "KB-1013", "KB-1011", "KB-1006",
                                                              "KB-1012"]
    for trace_id in ("refund-approval-forgotten", "json-unsupported"):
        res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), trace_id])
        assert "no item changed status or position" in res.output and "(as recorded)" in res.output


def test_a_pin_says_which_rule_it_overrides() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "refund-approval-forgotten", "--pin", "turn-01",
                                   "--pin", "turn-03"])
    assert res.exit_code == 0, res.output
    assert ("note: turn-01 was omitted by the history window; pinned, it is kept\n"
            "note: turn-03 was omitted by the history window; pinned, it is kept\n") in res.output
    assert "turn-01  history  omitted (window)  retained #5" in res.output
    assert "turn-03  history  omitted (window)  retained #6" in res.output
    assert "verdict: ok: fits, 3,720 tokens margin\n" in res.output  # the lost commitments are sent again
    assert "  window: the 6 most recent history items (recorded order)\n" in res.output


def test_bad_options_are_clear() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--priority", "nope=1"])
    assert res.exit_code == 2 and "has no item 'nope'" in res.output
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "nope"])
    assert res.exit_code == 2 and "no trace with id 'nope'" in res.output


def test_save_writes_another_db_and_never_the_source(tmp_path: Path) -> None:
    src = tmp_path / "src.db"
    shutil.copy(SAMPLES, src)
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    out = tmp_path / "whatif.db"
    res = CliRunner().invoke(cli, ["whatif", str(src), "budget-8k", "--add-tokens", "evidence:75:2000",
                                   "--save", str(out)])
    assert res.exit_code == 0, res.output
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before
    with TraceStore.open(out) as store:
        [row] = store.list()
        saved = store.load(row.trace_id)
    assert saved.replay_of == "budget-8k" and saved.trace_id.startswith("budget-8k~whatif-")
    assert saved.attributes["ctxviewer.whatif.scenario"] == "add evidence what-if-1 (priority 75)"
    res = CliRunner().invoke(cli, ["whatif", str(src), "budget-8k", "--save", str(src)])
    assert res.exit_code == 2 and "the source database is never written" in res.output  # as export -o DB


def test_recorded_accounting_adds_up_beside_the_reported_input() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k"])
    assert res.exit_code == 0, res.output
    assert "recorded accounting (content + framing + tool overhead = counted total):" in res.output
    assert "  framing                 91\n  tool overhead           90\n  counted total        6,181  (cl100k_base)\n" \
           "  reported input       6,118\n  residual               -63  (tolerance 122)" in res.output
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "ticket-injection", "--json"])
    acc = json.loads(res.output)["accounting"]
    assert acc["content"] == {"sys": 800, "evidence": 932, "tools": 535, "user": 30}
    assert (acc["framing"], acc["tool_overhead"], acc["total"]) == (27, 87, 2411)
    assert acc["total"] == sum(acc["content"].values()) + acc["framing"] + acc["tool_overhead"]
    assert (acc["reported"], acc["residual"], acc["tolerance"]) == (2351, -60, 47)
    assert acc["warning"] == "provider reported 2,351 input tokens, counted 2,411: residual -60 tokens exceeds the tolerance of 47"


def test_move_and_pin_name_items_the_trace_has_and_pin_unpin_do_not_contradict() -> None:
    """newuser s5 #6: ``--move nosuch=1`` ran ("no item changed") and ``--pin X --unpin X`` too."""
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--move", "nosuch=1"])
    assert res.exit_code == 2
    assert "Invalid value: --move: trace 'budget-8k' has no item 'nosuch'" in res.output
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--add", "evidence:75:more text",
                                   "--move", "what-if-1=1"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--add", "evidence:75:more text",
                                   "--move", "what-if-2=1"])
    assert res.exit_code == 2 and "has no item 'what-if-2' (items added with --add are what-if-1, what-if-2, ...)" \
        in res.output.replace("\n", " ")
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--pin", "policy", "--unpin", "policy"])
    assert res.exit_code == 2
    assert "--pin and --unpin both name item 'policy'; give one of them" in res.output


@pytest.mark.parametrize(("args", "message"), [
    (["--move", "KB-1001=3", "--move", "KB-1001=5"], "--move names 'KB-1001' twice (3 and 5); give one of them"),
    (["--priority", "KB-1001=1", "--priority", "KB-1001=99"],
     "--priority names 'KB-1001' twice (1 and 99); give one of them"),
    (["--cap", "evidence=100", "--cap", "evidence=200"], "--cap names 'evidence' twice (100 and 200); give one of them"),
])
def test_an_option_naming_one_item_twice_with_different_values_is_contradictory(args: list[str], message: str) -> None:
    """newuser F-WHATIF-DUP: the last of ``--move X=3 --move X=5`` won silently; refused as ``--pin X --unpin X`` is."""
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", *args])
    assert (res.exit_code, res.stderr.splitlines()[-1]) == (2, f"Error: Invalid value: {message}")
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--move", "KB-1001=3", "--move", "KB-1001=03"])
    assert res.exit_code == 0 and res.stdout.splitlines()[0] == "what-if on budget-8k: move KB-1001 to 3"


def test_json_carries_the_assumed_capacity(shared: Path, tmp_path: Path) -> None:
    """Last session's leftover: a trace recording no C got ``selection.capacity`` null from --json
    while the text said which C it assumed; both now carry the C used and say it is assumed, as
    ``show --json`` does (``capacity``, ``capacity_source``)."""
    from ctxviewer.pipeline.importing import import_files
    from ctxviewer.tokens.catalogue import package_version

    db = tmp_path / "c.db"
    with TraceStore.create(db) as store:
        import_files([shared / "corpus" / "otel-genai" / "interlingua-raw-openai-v2.otlp.json"], store)
    (tid,) = [r["trace_id"] for r in json.loads(CliRunner().invoke(cli, ["list", str(db), "--json"]).output)]
    source = f"assumed (model catalogue: genai-prices {package_version()}, gpt-4o-mini)"
    res = CliRunner().invoke(cli, ["whatif", str(db), tid, "--json"])
    assert res.exit_code == 0, res.output
    sel = json.loads(res.output)["selection"]
    assert (sel["capacity"], sel["capacity_source"], sel["reserved_output_tokens"]) == (128_000, source, 1024)
    res = CliRunner().invoke(cli, ["whatif", str(db), tid])
    assert [line for line in res.output.splitlines() if line.startswith("selection:")] == [
        "selection: input 21 tokens (the retained items' sum; the provider reported 412 for the recorded request), "
        f"reserved output 1,024, C 128,000 tokens {source}; retained 2, omitted 0"]
    res = CliRunner().invoke(cli, ["whatif", str(db), tid, "--capacity", "9000", "--json"])
    sel = json.loads(res.output)["selection"]
    assert (sel["capacity"], sel["capacity_source"]) == (9000, "set for this what-if")
