"""Every surface says the same state, verdict and findings of a trace, with and without a
``ctxviewer.toml`` and marks beside the database: ``show`` (text and ``--json``), ``list``
(``--json`` and ``--filter 'finding == R'``: the facts stored at import), ``check``, the review
queue, SARIF, the HTML report and the no-change what-if. They all read the trace in the one
context of its database (:func:`ctxviewer.assess.context.context_for_db`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.builder.whatif import Scenario, run
from ctxviewer.cli import cli
from ctxviewer.report.sarif import assess_db
from ctxviewer.review.queue import collect
from ctxviewer.store import TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "traces.jsonl"
TOML = '[expected_policy."*"]\nsupport-policy = "v999"\n'
"""Every application must send support-policy v999: the samples' support-policy traces then fail."""
MARKS = {"format": "ctxviewer.marks/1", "traces": {"evidence-in-middle": {"row": 3, "needed": ["KB-1010#p1"]}}}


def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout


@pytest.fixture(params=["bare", "configured"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    db = tmp_path / "s.db"
    if request.param == "configured":
        (tmp_path / "ctxviewer.toml").write_text(TOML, encoding="utf-8")
        (tmp_path / "s.db.marks.json").write_text(json.dumps(MARKS), encoding="utf-8")
    code, _ = _cli("import", str(SAMPLES), "-o", str(db))
    assert code == 0
    return db


def test_every_surface_says_the_same(db: Path) -> None:
    configured = (db.parent / "ctxviewer.toml").exists()
    listed = {r["trace_id"]: r for r in json.loads(_cli("list", str(db), "--json")[1])}
    checked = {r["trace_id"]: r for r in json.loads(_cli("check", str(db), "--json")[1])}
    with TraceStore.open(db) as store:
        sarif = {t.trace_id: sorted(f.rule for f in fs) for t, fs in assess_db(store)}
        review = {}
        for e in collect(store):
            review.setdefault(e.key.trace_id, set()).add(e.finding.rule)
        traces = {tid: store.load(tid) for tid in listed}
    states = {}
    for tid, row in listed.items():
        shown = json.loads(_cli("show", str(db), tid, "--json")[1])
        rules = sorted(f["rule"] for f in shown["findings"])
        states[tid] = shown["state"]
        assert (row["state"], row["verdict"]) == (shown["state"], shown["verdict"]), tid
        assert (row["worst_finding"] or {}).get("rule") == (shown["findings"][0]["rule"] if shown["findings"] else None)
        assert (checked[tid]["state"], sorted(f["rule"] for f in checked[tid]["findings"])) == (shown["state"], rules)
        assert sarif[tid] == rules, tid
        reviewable = {f["rule"] for f in shown["findings"]
                      if f["rule"].startswith(("injection.", "tool.", "tool_call.", "tools.")) or f["evidence"]["tool_call_ids"]}
        assert review.get(tid, set()) == reviewable, tid
        for rule in set(rules):
            found = json.loads(_cli("list", str(db), "--json", "--filter", f"finding == {rule}")[1])
            assert tid in [r["trace_id"] for r in found], (tid, rule)
        text = _cli("show", str(db), tid)[1]
        assert f"State       {shown['state']}" in text
        outcome = run(traces[tid], Scenario(), context=None if not configured else _context(db))
        assert (outcome.state, outcome.verdict) == (shown["state"], shown["verdict"]), tid
    html = _cli("report", str(db), "-o", "-")[1]
    for tid, state in states.items():
        assert f"{tid} — {state}</h2>" in html
    # the configuration really changes conclusions: the support-policy traces fail only with it
    assert (states["budget-8k"] == "failure") is configured


def _context(db: Path):  # type: ignore[no-untyped-def]
    from ctxviewer.assess.context import context_for_db

    return context_for_db(db)


def test_rows_assessed_in_another_context_are_marked_stale_until_upgraded(tmp_path: Path) -> None:
    """A ``ctxviewer.toml`` written after the import: the list still holds the facts computed
    without it, and says so (State marked, ``facts_current`` false, a note) while show and check
    read the trace afresh; ``upgrade`` stores them afresh."""
    db = tmp_path / "s.db"
    assert _cli("import", str(SAMPLES), "-o", str(db))[0] == 0
    rows = {r["trace_id"]: r for r in json.loads(_cli("list", str(db), "--json")[1])}
    assert {r["facts_current"] for r in rows.values()} == {True}
    (tmp_path / "ctxviewer.toml").write_text(TOML, encoding="utf-8")
    res = CliRunner().invoke(cli, ["list", str(db)])
    assert "ok*" in res.stdout and res.stderr.startswith("* 9 row(s) were assessed with other settings")
    stale = {r["trace_id"]: r for r in json.loads(_cli("list", str(db), "--json")[1])}
    assert (stale["budget-8k"]["state"], stale["budget-8k"]["facts_current"]) == ("ok", False)
    assert json.loads(_cli("show", str(db), "budget-8k", "--json")[1])["state"] == "failure"
    checked = {r["trace_id"]: r["state"] for r in json.loads(_cli("check", str(db), "--json")[1])}
    assert checked["budget-8k"] == "failure"  # check recomputes what it reads, in the new context
    new = tmp_path / "new.db"
    assert _cli("upgrade", str(db), "-o", str(new))[0] == 0
    fresh = {r["trace_id"]: r for r in json.loads(_cli("list", str(new), "--json")[1])}
    assert (fresh["budget-8k"]["state"], fresh["budget-8k"]["facts_current"]) == ("failure", True)


def test_list_json_says_when_the_margin_uses_an_assumed_capacity(shared: Path, tmp_path: Path) -> None:
    """A new user's finding: `list --json` gave "capacity": null beside a margin computed from an
    assumed C (the verdict said "(capacity assumed)"); capacity_source now says so, and `show` gives the C."""
    src = shared / "corpus" / "otel-genai" / "openinference-genai-fixture-otel-deprecated-prompt-completion.attrs.json"
    db = tmp_path / "c.db"
    assert CliRunner().invoke(cli, ["import", str(src), "-o", str(db)]).exit_code == 0
    rows = json.loads(CliRunner().invoke(cli, ["list", str(db), "--json"]).output)
    (row,) = [r for r in rows if r["trace_id"] == "attrs-3147d823f85ba1e3"]
    assert (row["capacity"], row["margin"], row["verdict"]) == (None, 7964, (
        "fits, 7,964 tokens margin (by the count; 7,895 by the provider-reported input 97) (capacity assumed)"))
    assert row["capacity_source"] == "not recorded; the margin uses an assumed C (show gives it and its source)"
    shown = json.loads(CliRunner().invoke(cli, ["show", str(db), "attrs-3147d823f85ba1e3", "--json"]).output)
    assert shown["capacity"] == 8192 == 7964 + row["input_tokens"] + row["reserved_output_tokens"]
    assert shown["capacity_source"].startswith("assumed (model catalogue: ")


def test_the_numbers_line_says_which_input_eq_3_1_took(shared: Path, tmp_path: Path) -> None:
    """A new user's finding: show said "input 63" beside "counted 99" and "reported 412" without
    saying which input eq. 3.1 checked."""
    src = shared / "corpus" / "otel-genai" / "interlingua-litellm-otel-callback.otlp.json"
    db = tmp_path / "c.db"
    assert CliRunner().invoke(cli, ["import", str(src), "-o", str(db)]).exit_code == 0
    out = CliRunner().invoke(cli, ["show", str(db), "b1d8ae1b3fb8f0217735e4f3496c3bdf:a5f632a15409374f"]).output
    assert ("input 35 (sum of the retained items; the provider reported 412) + reserved output 1,024 of capacity "
            "128,000 tokens assumed (model catalogue: ") in out
