"""A mistyped --review-file on a command that only reads verdicts (report, check --format sarif)
is a usage error naming the path (a new user's finding: it was accepted and every finding showed
as unreviewed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.mark.parametrize("args", [
    ["report", str(SAMPLES), "ticket-injection", "-o", "{tmp}/r.html"],
    ["check", str(SAMPLES), "ticket-injection", "--format", "sarif", "-o", "{tmp}/r.sarif"],
])
def test_a_missing_review_file_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    typo = tmp_path / "typo-review.sqlite"
    res = CliRunner().invoke(cli, [a.format(tmp=tmp_path) for a in args] + ["--review-file", str(typo)])
    assert res.exit_code == 2
    assert f"Invalid value for '--review-file': File '{typo}' does not exist." in res.output
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "r.sarif").exists()
