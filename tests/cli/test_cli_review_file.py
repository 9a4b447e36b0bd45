"""``report`` and ``check --format sarif`` with a review file beside the database that is garbage,
truncated or a directory: one ``Error:`` line naming the file and the cause, exit status 2, no
traceback, nothing written."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.review import FindingKey, ReviewFile, ReviewVerdict

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def _garbage(path: Path) -> None:
    path.write_text("garbage\n")


def _truncated(path: Path) -> None:
    with ReviewFile(path) as rf:
        for i in range(50):
            rf.write(FindingKey(f"t{i}", "doc", "injection.override", i, i + 1), ReviewVerdict.CONFIRMED, "note " * 30)
    path.write_bytes(path.read_bytes()[:3000])


def _directory(path: Path) -> None:
    path.mkdir()


CASES = {
    "garbage": (_garbage, "aud/s.review.sqlite: not a ctxviewer review file (file is not a database)"),
    "truncated": (_truncated, "aud/s.review.sqlite: the review file is damaged (database disk image is malformed)"),
    "directory": (_directory, "aud/s.review.sqlite: is a directory, not a ctxviewer review file"),
}
COMMANDS = {
    "report": ["report", "aud/s.db", "-o", "r1.html"],
    "check-sarif": ["check", "aud/s.db", "--format", "sarif", "-o", "r1.sarif"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", list(CASES))
def test_bad_review_file_is_one_error_with_status_2(tmp_path: Path, monkeypatch: Any, case: str, command: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "aud").mkdir()
    shutil.copy(SAMPLES, tmp_path / "aud" / "s.db")
    make, message = CASES[case]
    make(tmp_path / "aud" / "s.review.sqlite")
    res = CliRunner().invoke(cli, COMMANDS[command])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"Error: {message}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aud"]  # no report, no SARIF file


def test_sarif_to_stdout_with_a_bad_review_file(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "aud").mkdir()
    shutil.copy(SAMPLES, tmp_path / "aud" / "s.db")
    _garbage(tmp_path / "aud" / "s.review.sqlite")
    res = CliRunner().invoke(cli, ["check", "aud/s.db", "--format", "sarif"])
    assert (res.exit_code, res.stdout, res.stderr) == (
        2, "", "Error: aud/s.review.sqlite: not a ctxviewer review file (file is not a database)\n")


def test_review_file_in_a_read_only_folder_is_still_read(tmp_path: Path, monkeypatch: Any) -> None:
    """Reading verdicts never writes: a report beside a database in a read-only folder shows them."""
    import os

    aud = tmp_path / "aud"
    aud.mkdir()
    shutil.copy(SAMPLES, aud / "s.db")
    with ReviewFile(aud / "s.review.sqlite") as rf:
        rf.write(FindingKey("ticket-injection", "x", "injection.override", 0, 1), ReviewVerdict.FALSE_POSITIVE, "")
    before = (aud / "s.review.sqlite").read_bytes()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == aud and mode & os.W_OK
                        else real(p, mode, **kw))
    res = CliRunner().invoke(cli, ["report", str(aud / "s.db"), "-o", str(tmp_path / "r.html")])
    assert (res.exit_code, res.stderr) == (0, "")
    assert res.stdout == f"wrote {tmp_path / 'r.html'}: 9 trace(s)\n"
    assert (aud / "s.review.sqlite").read_bytes() == before
