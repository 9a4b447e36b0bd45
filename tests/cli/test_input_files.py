"""New-user findings s4 #2, #8, #10, #11: inputs that are not regular files or are too big, and
outputs that already exist, are refused with one clear line before any work; nothing is changed."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.util.file_kind import MAX_READ_BYTES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
TRACES = ROOT / "sample_traces" / "traces.jsonl"
HINT = "Error: Invalid value for '-o' / '--output': "


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("cmd", [("export",), ("report",), ("check", "--json"), ("check", "--format", "sarif")],
                         ids=lambda c: " ".join(c))
def test_existing_output_file_is_refused_and_kept(tmp_path: Path, cmd: tuple[str, ...]) -> None:
    src = tmp_path / "s.db"
    shutil.copyfile(SAMPLES, src)
    mine = tmp_path / "tj.jsonl"
    shutil.copyfile(TRACES, mine)
    before = _sha(mine)
    code, out, err = run(cmd[0], str(src), *cmd[1:], "-o", str(mine))
    assert (code, out) == (2, "")
    assert err.endswith(f"{HINT}{mine}: already exists; it is never overwritten; choose a new file name "
                        "(or remove the old file first)\n")
    assert _sha(mine) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db", "tj.jsonl"]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def test_import_of_a_fifo_is_refused_and_creates_no_db(tmp_path: Path, fifo: Path) -> None:
    db = tmp_path / "f.db"
    code, out, err = run("import", str(fifo), "-o", str(db))
    assert (code, out) == (2, "")
    assert err == f"Error: {fifo}: is a FIFO (named pipe), not a regular file; give trace files or a folder\n"
    assert not db.exists()


@pytest.mark.parametrize("cmd", ["scan", "tokens"])
def test_scan_and_tokens_refuse_a_fifo(cmd: str, fifo: Path) -> None:
    code, out, err = run(cmd, str(fifo))
    assert (code, out) == (2, "")
    assert err == f"Error: {fifo}: is a FIFO (named pipe), not a regular file; give a file\n"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("cmd", ["scan", "tokens"])
def test_scan_and_tokens_refuse_dev_zero(cmd: str) -> None:
    code, out, err = run(cmd, "/dev/zero")
    assert (code, out) == (2, "")
    assert err == "Error: /dev/zero: is a device, not a regular file; give a file\n"


@pytest.mark.parametrize("cmd", ["scan", "tokens"])
def test_scan_and_tokens_refuse_a_file_over_the_limit(cmd: str, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:  # sparse: no disk used
        fh.truncate(MAX_READ_BYTES + 1)
    code, out, err = run(cmd, str(big))
    assert (code, out) == (2, "")
    assert err == (f"Error: {big}: is 67,108,865 bytes; {cmd} reads at most 67,108,864 bytes (64 MiB); "
                   "split the file\n")


def test_list_of_a_fifo_or_device_says_what_it_is(fifo: Path) -> None:
    code, out, err = run("list", str(fifo))
    assert (code, out) == (2, "")
    assert err == f"Error: {fifo}: is a FIFO (named pipe), not a regular file; a trace database is a file\n"
    if Path("/dev/zero").exists():
        code, _, err = run("list", "/dev/zero")
        assert (code, err) == (2, "Error: /dev/zero: is a device, not a regular file; a trace database is a file\n")


@pytest.mark.parametrize(("value", "message"), [
    ("-99999999999999999999", "margin: number too small: '-99999999999999999999' (at least -9,223,372,036,854,775,808)"),
    ("99999999999999999999", "margin: number too large: '99999999999999999999' (at most 9,223,372,036,854,775,807)"),
])
def test_filter_number_out_of_range_names_the_right_end(value: str, message: str) -> None:
    code, _, err = run("list", str(SAMPLES), "--filter", f"margin < {value}")
    assert code == 2
    assert err.splitlines()[0] == f"Error: --filter: {message}, at column 10:"
