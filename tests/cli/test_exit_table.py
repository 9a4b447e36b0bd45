"""The one exit-status table (README "Command line", :mod:`ctxviewer.cli.status`), held for every
command that reads input: a bad option value, a missing input file and an unreadable or corrupt
input each exit 2 (new-user s3 finding 9: they used to differ between 1 and 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli

SAMPLES = str(Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db")


def code(*args: str) -> int:
    return CliRunner().invoke(cli, list(args)).exit_code


def _commands(db: str, tmp: Path) -> dict[str, list[str]]:
    """Each command with ``db`` as its input database (or request/text file)."""
    return {
        "list": ["list", db],
        "show": ["show", db, "budget-8k"],
        "search": ["search", db, "refund"],
        "diff": ["diff", db, "budget-8k", "budget-8k-over"],
        "report": ["report", db, "-o", str(tmp / "r.html")],
        "export": ["export", db, "-o", str(tmp / "e.json")],
        "whatif": ["whatif", db, "budget-8k", "--capacity", "9000"],
        "upgrade": ["upgrade", db, "-o", str(tmp / "u.db")],
        "check": ["check", db],
        "import": ["import", db, "-o", str(tmp / "i.db")],
        "tokens": ["tokens", db],
        "scan": ["scan", db],
    }


BAD_OPTION = {
    "list": ["list", SAMPLES, "--filter", "model ~"],
    "show": ["show", SAMPLES, "budget-8k", "--content-x"],
    "search": ["search", SAMPLES, "refund", "--limit", "-1"],
    "diff": ["diff", SAMPLES, "budget-8k", "budget-8k-over", "--against", "/"],
    "report": ["report", SAMPLES],  # -o missing
    "export": ["export", SAMPLES, "-o", "x.json", "--format", "bogus"],
    "whatif": ["whatif", SAMPLES, "budget-8k", "--capacity", "0"],
    "upgrade": ["upgrade", SAMPLES],  # -o missing
    "check": ["check", SAMPLES, "--fail-on", "bogus"],
    "import": ["import", SAMPLES, "-o", "x.db", "--format", "bogus"],
    "scan": ["scan", SAMPLES, "--bogus"],
}


@pytest.mark.parametrize("command", sorted(BAD_OPTION))
def test_a_bad_option_value_exits_2(command: str) -> None:
    assert code(*BAD_OPTION[command]) == 2


def test_a_bad_token_encoding_exits_2(tmp_path: Path) -> None:
    req = tmp_path / "t.json"
    req.write_text('{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}', encoding="utf-8")
    assert code("tokens", str(req)) == 0
    assert code("tokens", str(req), "--encoding", "bogus") == 2


@pytest.mark.parametrize("command", sorted(_commands("x", Path("."))))
def test_a_missing_input_exits_2(command: str, tmp_path: Path) -> None:
    assert code(*_commands(str(tmp_path / "missing.db"), tmp_path)[command]) == 2


@pytest.mark.parametrize("command", sorted(_commands("x", Path("."))))
def test_a_directory_as_input_exits_2(command: str, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert code(*_commands(str(tmp_path / "d"), tmp_path)[command]) == 2


@pytest.mark.parametrize("command", sorted(set(_commands("x", Path("."))) - {"scan"}))
def test_a_corrupt_input_exits_2(command: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\xab" * 5000)  # neither a database nor JSON
    assert code(*_commands(str(bad), tmp_path)[command]) == 2


def test_an_unknown_trace_id_exits_2(tmp_path: Path) -> None:
    for args in (["show", SAMPLES, "nope"], ["diff", SAMPLES, "nope", "budget-8k"],
                 ["report", SAMPLES, "nope", "-o", str(tmp_path / "r.html")],
                 ["export", SAMPLES, "nope", "-o", str(tmp_path / "e.json")],
                 ["whatif", SAMPLES, "nope"], ["check", SAMPLES, "nope"]):
        assert code(*args) == 2, args
