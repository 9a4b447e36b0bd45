"""A filter naming a finding no trace has says so (TraceStore.absent_rules_note), in list, stats,
sessions and the window alike: a misspelt rule otherwise kept nothing (or everything, after !=)
without a word."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
HERE = ("the findings here: accounting.count_mismatch, budget.over_before_trim, budget.over_capacity, "
        "commitment.forgotten, evidence.needed_in_middle, injection (4 rules), output.cited_id_not_retained, "
        "output.value_unsupported, policy.unavailable, tool.unsafe_blocked, validation.failed")


def test_the_note_names_the_absent_names_and_what_is_there() -> None:
    with TraceStore.open(SAMPLES) as store:
        assert store.absent_rules_note("finding == injecton") == f"no trace has a finding 'injecton'; {HERE}"
        assert store.absent_rules_note("finding != injecton or finding in (budget, x.y)") == (
            f"no trace has a finding 'injecton' or 'x.y'; {HERE}")
        # found: a family, a rule, a rule in a list; and terms that name no rule
        for text in ("finding == injection", "finding == budget.over_capacity", "finding in (policy, budget)",
                     "finding", "finding ~ inj", "model == nope", "", "finding == (", "state == failure"):
            assert store.absent_rules_note(text) is None, text


def test_a_database_without_findings_says_so(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    TraceStore.create(db).close()
    with TraceStore.open(db) as store:
        assert store.absent_rules_note("finding == budget") == (
            "no trace has a finding 'budget'; no trace here has any finding")


def test_list_stats_and_sessions_say_it_on_standard_error() -> None:
    note = f"note: no trace has a finding 'injecton'; {HERE}\n"
    for args in (["list", str(SAMPLES)], ["stats", str(SAMPLES)], ["sessions", str(SAMPLES)]):
        res = CliRunner().invoke(cli, [*args, "--filter", "finding == injecton"])
        assert res.exit_code == 0, res.output
        assert res.stderr.startswith(note) or note in res.stderr, (args, res.stderr)
    res = CliRunner().invoke(cli, ["list", str(SAMPLES), "--filter", "finding == injection", "--json"])
    assert "note:" not in res.stderr
