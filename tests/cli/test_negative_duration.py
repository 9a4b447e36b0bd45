"""A span that ends before it starts (issue 27 item 4): the golden span
``tests/data/spans/negative-duration.otlp.json`` ends 12 ms before its start. Its duration is
flagged as "negative duration (end before start: -12 ms)" -- at import, in ``show`` (text and
JSON), in ``list`` (state warning, worst finding input.implausible) and in the window's header --
never shown as a plain "-12 ms"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.assess.plausibility import negative_duration
from ctxviewer.cli import cli

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "spans" / "negative-duration.otlp.json"
TRACE = "7e1c0b5a9d2f4c3e8a6b1d0f2e4c6a8b:00000000000000b7"
WORDS = "negative duration (end before start: -12 ms)"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("neg") / "neg.db"
    res = CliRunner().invoke(cli, ["import", str(GOLDEN), "-o", str(path)])
    assert res.exit_code == 0, res.output
    return path, res.stderr


def test_the_import_warns_with_the_words(db: tuple[Path, str]) -> None:
    assert db[1] == (f"warning: {GOLDEN}: trace {TRACE}: attributes.ctxviewer.duration_ms: {WORDS}; "
                     "kept, shown as suspect\n")


def test_show_flags_the_duration_never_a_plain_negative_number(db: tuple[Path, str]) -> None:
    res = CliRunner().invoke(cli, ["show", str(db[0]), TRACE])
    assert res.exit_code == 0, res.output
    span = [line for line in res.stdout.splitlines() if line.startswith("Span ")]
    assert span == [f"Span        ok · ended with a {WORDS}"]
    assert "ended after -12" not in res.stdout
    d = json.loads(CliRunner().invoke(cli, ["show", str(db[0]), TRACE, "--json"]).stdout)
    assert d["state"] == "warning"
    assert [(f["rule"], f["message"], f["evidence"]["fields"]) for f in d["findings"] if f["severity"] == "warning"] == [
        ("input.implausible", f"implausible recorded values: attributes.ctxviewer.duration_ms: {WORDS}",
         ["attributes.ctxviewer.duration_ms"])]


def test_list_flags_the_trace(db: tuple[Path, str]) -> None:
    rows = json.loads(CliRunner().invoke(cli, ["list", str(db[0]), "--json"]).stdout)
    assert [(r["trace_id"], r["state"], r["worst_finding"]) for r in rows] == [
        (TRACE, "warning", {"rule": "input.implausible", "severity": "warning"})]
    text = CliRunner().invoke(cli, ["list", str(db[0])]).stdout
    assert "warning" in text.splitlines()[2].split()  # the State column


def test_the_words_for_other_values() -> None:
    assert negative_duration(-12.0) == WORDS
    assert negative_duration(-1_250_000) == "negative duration (end before start: -1,250,000 ms)"
    assert negative_duration(-0.25) == "negative duration (end before start: -0.25 ms)"
    assert [negative_duration(v) for v in (0, 0.0, 12.5, None, "-12", True)] == [None] * 6
