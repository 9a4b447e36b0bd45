"""Damaged databases on the command line: one ``Error:`` line naming the file and the damage, exit
status 2, never a traceback (new-user findings 2, 8 and 11).

* 200 random byte flips of ``samples.db`` (seed 1) break its ``sqlite_master`` so that SQLite's
  message is not UTF-8: every command that reads the database says it is corrupt.
* ``check`` runs SQLite's integrity check that ``list`` warns with, so a damaged page the traces
  read back past (page 5: an index) is an error there too, not a clean run.
* An invalid page size in the header is named, not reported as truncation.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from damaged import flipped_copy

from ctxviewer.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"

FLIPPED = 'is corrupt: malformed database schema (details) - near "CRE\\x97TE": syntax error'
"""What the byte flips of :func:`damaged.flipped_copy` break in ``samples.db`` (its ``details`` DDL)."""

PAGE5 = "is damaged (Page 5: btreeInitPage() returns error code 11)"
"""What SQLite's quick_check finds in :func:`_page5`."""


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stdout, res.stderr


def _page5(tmp_path: Path) -> Path:
    """``samples.db`` with page 5 (page size from header bytes 16-17) overwritten with 0x5a bytes."""
    bad = tmp_path / "page5.db"
    d = bytearray(SAMPLES.read_bytes())
    page_size = int.from_bytes(d[16:18], "big")
    d[4 * page_size:5 * page_size] = b"\x5a" * page_size
    bad.write_bytes(bytes(d))
    return bad


def test_list_of_a_flipped_database_is_one_error(tmp_path: Path) -> None:
    bad = flipped_copy(tmp_path)
    assert run("list", str(bad)) == (2, "", f"Error: {bad}: {FLIPPED}\n")


@pytest.mark.parametrize("args", [
    ("show", "{db}", "budget-8k"),
    ("show", "{db}", "budget-8k", "--json"),
    ("search", "{db}", "policy"),
    ("check", "{db}"),
    ("export", "{db}", "-o", "{tmp}/out.jsonl"),
    ("report", "{db}", "-o", "{tmp}/out.html"),
    ("diff", "{db}", "budget-8k", "history-16k"),
    ("whatif", "{db}", "budget-8k", "--capacity", "4000"),
    ("upgrade", "{db}", "-o", "{tmp}/up.db"),
])
def test_every_command_on_a_flipped_database_is_one_error(tmp_path: Path, args: tuple[str, ...]) -> None:
    bad = flipped_copy(tmp_path)
    code, out, err = run(*(a.format(db=bad, tmp=tmp_path) for a in args))
    assert (code, out, err) == (2, "", f"Error: {bad}: {FLIPPED}\n")
    assert not any(p.name != bad.name for p in tmp_path.iterdir())  # no output written


def test_import_of_a_flipped_database_says_it_is_corrupt(tmp_path: Path) -> None:
    bad, out_db = flipped_copy(tmp_path), tmp_path / "x.db"
    code, out, err = run("import", str(bad), "-o", str(out_db))
    assert code == 2
    assert err.splitlines()[0] == f"error: {bad}: whole file: {FLIPPED}"
    assert "Traceback" not in out + err and not out_db.exists()


def test_check_of_a_database_with_a_damaged_page_is_an_error(tmp_path: Path) -> None:
    bad = _page5(tmp_path)
    code, _, err = run("list", str(bad))
    assert code == 2 and err.startswith(f"warning: {bad}: {PAGE5}; ")
    # page 5 is the traces' primary-key index (one leaf for 9 rows), which loading a trace reads since schema 9 (the
    # record's columns): the trace behind it cannot be read back, and the damage is still named
    assert run("check", str(bad)) == (
        2, "", f"Error: {bad}: {PAGE5}; trace 'history-16k' cannot be read back, so no findings are reported for it\n")
    assert run("check", str(bad), "budget-8k", "--json") == (
        2, "", f"Error: {bad}: {PAGE5}; trace 'budget-8k' cannot be read back, so no findings are reported for it\n")
    code, _, err = run("check", str(bad), "--format", "sarif", "-o", str(tmp_path / "f.sarif"))
    assert code == 2 and err.startswith(f"Error: {bad}: {PAGE5}; ")
    assert not (tmp_path / "f.sarif").exists()


def test_check_of_the_clean_database_still_reports_its_findings() -> None:
    code, out, err = run("check", str(SAMPLES))
    assert (code, err) == (1, "")  # history-16k is a failure
    assert out.splitlines()[-1] == "9 trace(s) checked: 3 failure, 3 warning, 3 ok"


def test_an_invalid_page_size_is_named_on_the_command_line(tmp_path: Path) -> None:
    bad = tmp_path / "ps.db"
    d = bytearray(SAMPLES.read_bytes())
    d[16:18] = b"\xff\xff"
    bad.write_bytes(bytes(d))
    for cmd in ("list", "check"):
        assert run(cmd, str(bad)) == (2, "", f"Error: {bad}: is corrupt: invalid page size 65535 in its header\n")
