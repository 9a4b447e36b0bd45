"""New-user report A.4 and D.16: every number a what-if takes is checked up front. Token figures
lie in 0..10,000,000 (capacity from 1), positions among the candidates, priorities finite; anything
else is a usage error (exit 2) naming the option and the value, and nothing is built or written."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
HUGE = "999999999999999999999999"

CASES = [
    (["--add-tokens", f"evidence:0.5:{HUGE}"],
     f"--add-tokens 'evidence:0.5:{HUGE}': tokens: 999,999,999,999,999,999,999,999 is out of range (0 to 10,000,000)"),
    (["--add-tokens", "evidence:0.5:10000001"],
     "--add-tokens 'evidence:0.5:10000001': tokens: 10,000,001 is out of range (0 to 10,000,000)"),
    (["--add-tokens", "evidence:0.5:-100"], "--add-tokens 'evidence:0.5:-100': tokens: -100 is out of range (0 to 10,000,000)"),
    (["--cap", "evidence=-3"], "--cap evidence: -3 is out of range (0 to 10,000,000)"),
    (["--reserve", "-1"], "--reserve: -1 is out of range (0 to 10,000,000)"),
    (["--capacity", "-5"], "--capacity: -5 is out of range (1 to 10,000,000)"),
    (["--capacity", "0"], "--capacity: 0 is out of range (1 to 10,000,000)"),
    (["--capacity", "99999999999999999999999999"],
     "--capacity: 99,999,999,999,999,999,999,999,999 is out of range (1 to 10,000,000)"),
    (["--priority", "policy=nan"], "--priority policy: 'nan' is not a finite number"),
    (["--priority", "policy=x"], "--priority policy: 'x' is not a number"),
    (["--move", "policy=-1"], "--move policy: -1 is out of range (1 to 25)"),
    (["--move", "policy=0"], "--move policy: 0 is out of range (1 to 25)"),
    (["--move", "policy=99999"], "--move policy: 99,999 is out of range (1 to 25)"),
    (["--move", "policy=x"], "--move policy: 'x' is not a position"),
    (["--add", "evidence:0.5:"], "--add 'evidence:0.5:': the text is empty"),
    (["--add", "evidence:inf:text"], "--add 'evidence:inf:text': priority: 'inf' is not a finite number"),
    # new user (wt-nu): the bad word was not named ("--cap: category one of ...")
    (["--cap", "bogus=5"], "--cap bogus=5: category 'bogus' is not one of sys, hist, memory, evidence, tools, user"),
    (["--add", "bogus:1:x"], "--add 'bogus:1:x': kind 'bogus' is not one of policy, user, history, summary, memory, "
                             "evidence, tool"),
    (["--add-tokens", "Evidence:1:5"], "--add-tokens 'Evidence:1:5': kind 'Evidence' is not one of policy, user, "
                                       "history, summary, memory, evidence, tool"),
    # a cap on the reserved output was printed as a rule ("reserved output <= 5 tokens") and not applied
    (["--cap", "out=5"], "--cap out=5: the reserved output is not capped, it is set: --reserve 5"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_out_of_range_values_are_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    db = tmp_path / "good.db"
    shutil.copyfile(SAMPLES, db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    save = tmp_path / "w.db"
    res = CliRunner().invoke(cli, ["whatif", str(db), "budget-8k", *args, "--save", str(save)])
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.endswith(f"Error: Invalid value: {message}\n")
    assert "Traceback" not in res.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before and not save.exists()


def test_bounds_themselves_are_accepted() -> None:
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--move", "policy=25", "--cap", "evidence=0",
                                   "--reserve", "0", "--add-tokens", "evidence:0.5:0"])
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "what-if on budget-8k: reserve 0; cap evidence=0; move policy to 25; add evidence what-if-1 (priority 0.5)"
    assert lines[3:8] == ["  budget: evidence <= 0 tokens (caps of this what-if)",
                          "  budget: input <= C 8,000 - B_out 0 - safety margin 800 = 7,200 tokens",
                          "before trimming: fits, 2,000 tokens margin", "recorded: ok: fits, 800 tokens margin",
                          "verdict: ok: fits, 5,000 tokens margin"]


@pytest.mark.parametrize(("args", "message"), [
    (["--reserve", "999999"], "--reserve: reserved output 999,999 tokens leaves no input budget in the 8,000-token "
                              "context window; the reserve must be less than the capacity"),
    (["--reserve", "8000"], "--reserve: reserved output 8,000 tokens leaves no input budget in the 8,000-token "
                            "context window; the reserve must be less than the capacity"),
    (["--capacity", "1200"], "--capacity: reserved output 1,200 tokens leaves no input budget in the 1,200-token "
                             "context window; the reserve must be less than the capacity"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_a_reserve_at_or_over_the_capacity_is_a_usage_error_in_words(args: list[str], message: str) -> None:
    # newuser s3 #12: '--reserve 999999' printed "had -991,999 tokens left" (issue 7: an error in words)
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", *args])
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.endswith(f"Error: Invalid value: {message}\n")
    res = CliRunner().invoke(cli, ["whatif", str(SAMPLES), "budget-8k", "--reserve", "7999"])
    assert res.exit_code == 1
    assert "before trimming: over capacity by 5,999 tokens: had 1 tokens left, needed 6,000" in res.stdout
    assert ("verdict: cannot be built: the declared safety margin of 800 tokens leaves no input budget: "
            "C 8,000 - B_out 7,999 = 1 tokens before it") in res.stdout


def test_a_trace_without_a_reserve_or_its_own_count_says_what_was_selected(shared: Path, tmp_path: Path) -> None:
    """New user 2026-12-07: 'selection: input not recorded' beside a computed margin, and
    'B_out 0' beside 'reserved output not recorded' (the corpus Responses round trip records
    neither its own input count nor a reserve)."""
    from ctxviewer.pipeline.importing import import_files
    from ctxviewer.store import TraceStore

    db = tmp_path / "r.db"
    with TraceStore.create(db) as store:
        import_files([shared / "corpus" / "provider-api" / "openai" / "responses-api-function-call-roundtrip.extracted.json"],
                     store)
    res = CliRunner().invoke(cli, ["whatif", str(db), "resp_0b7fb495b8662b690069d6f97cd1648193bfded925efce1a9d",
                                   "--capacity", "2000"])
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert "  budget: input <= C 2,000 - B_out (not recorded: 0) = 2,000 tokens" in lines
    assert ("selection: input 22 tokens (the retained items' sum; the provider reported 108 for the recorded request), "
            "reserved output not recorded, C 2,000 tokens set for this what-if; retained 2, omitted 0") in lines
