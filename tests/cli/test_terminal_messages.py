"""New-user findings s4 #3, #7, #14: what reaches the terminal through ``ctxviewer``'s real entry
point (``python -m ctxviewer``: :func:`ctxviewer.cli.main` -> :func:`ctxviewer.cli.output.run`).

A file name or trace id holding ESC, BEL or a line feed is shown revealed (``␛``, ``␇``, ``⏎``) on
one line in errors, warnings and "wrote ..." messages; a failed write to standard output is one
``Error: standard output: ...`` line with exit status 1; an encoding that cannot hold a symbol
gets a backslash escape; repeated trace ids are checked and reported once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.store import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
EVIL = "ev\x1b]0;T\x07il\n.db"
SHOWN = "ev␛]0;T␇il⏎.db"


def ctxviewer(*args: str, cwd: Path, env: dict[str, str] | None = None, stdout: object = subprocess.PIPE
              ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ctxviewer", *args], cwd=cwd, stdout=stdout,  # type: ignore[call-overload]
                          stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, timeout=120)


@pytest.mark.parametrize("args", [
    ["list", "missing" + EVIL],
    ["check", "missing" + EVIL],
    ["report", "missing" + EVIL, "-o", "r.html"],
    ["export", "missing" + EVIL, "-o", "x.jsonl"],
    ["upgrade", "missing" + EVIL, "-o", "u.db"],
    ["diff", "missing" + EVIL, "a", "b"],
])
def test_missing_file_error_is_one_revealed_line(args: list[str], tmp_path: Path) -> None:
    proc = ctxviewer(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.decode() == f"Error: missing{SHOWN}: no such file\n"
    assert proc.stdout == b""


def test_import_messages_name_the_files_on_one_line(tmp_path: Path) -> None:
    proc = ctxviewer("import", f"x{EVIL}.jsonl", "-o", f"y{EVIL}", cwd=tmp_path)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "\x1b" not in err and "\x07" not in err
    assert err.splitlines() == [
        f"error: x{SHOWN}.jsonl: whole file: cannot read file: No such file or directory",
        f"Error: no traces imported; removed y{SHOWN}, which this import had created",
    ]
    assert proc.stdout.decode() == "imported 0 trace(s) from 0 of 1 file(s)\n"  # the removed database: only in the Error line


def test_duplicate_id_warning_keeps_every_escape_visible(tmp_path: Path) -> None:
    tid = "evil\x1b]0;PWNED\x07\x1b[2J-id\r\nFAKE"
    record = json.loads((ROOT / "sample_traces" / "traces.jsonl").read_text(encoding="utf-8").splitlines()[0])
    line = json.dumps({**record, "trace_id": tid})
    src = tmp_path / "t.jsonl"
    src.write_text(line + "\n" + line + "\n", encoding="utf-8")
    proc = ctxviewer("import", "t.jsonl", "-o", "dup.db", cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert err == ("warning: t.jsonl: trace evil␛]0;PWNED␇␛[2J-id␍⏎FAKE: trace id already imported in this "
                   "run; this record replaces the earlier one\n")


def test_upgrade_wrote_message_is_one_line(tmp_path: Path) -> None:
    shutil.copy(SAMPLES, tmp_path / "s.db")
    proc = ctxviewer("upgrade", "s.db", "-o", "o" + EVIL, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == (f"wrote o{SHOWN}: s.db is already at schema {SCHEMA_VERSION}; copied with its 9 "
                                    "trace(s) re-assessed; s.db is unchanged\n")


def test_tokens_model_escape_sequence_is_shown_not_dropped(tmp_path: Path) -> None:
    (tmp_path / "t1.json").write_text('{"messages": []}', encoding="utf-8")
    proc = ctxviewer("tokens", "t1.json", "--model", "gpt\x1b[2J", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.decode().splitlines()[0]
    assert first == "t1.json: 3 input tokens on gpt␛[2J (no profile for 'gpt\\x1b[2J'; o200k_base assumed)"


@pytest.mark.parametrize("command", ["list", "stats", "sessions"])
def test_filter_error_keeps_its_caret_lines(tmp_path: Path, command: str) -> None:
    # every command taking --filter says a bad one the same way (ctxviewer.cli.status.bad_filter)
    proc = ctxviewer(command, str(SAMPLES), "--filter", "x ==", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.decode() == ("Error: --filter: filter ends early: expected a value, at column 5:\n"
                                    "  x ==\n      ^\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["list", str(SAMPLES)], ["show", str(SAMPLES), "budget-8k", "--json"],
                                  ["check", str(SAMPLES)]])
def test_full_disk_on_stdout_is_one_error_line(args: list[str], tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        proc = ctxviewer(*args, cwd=tmp_path, stdout=full)
    assert proc.returncode == 1
    assert proc.stderr.decode() == "Error: standard output: No space left on device\n"


def test_latin1_output_gets_backslash_escapes_not_a_traceback(tmp_path: Path) -> None:
    proc = ctxviewer("list", str(SAMPLES), "--wide", cwd=tmp_path, env={"PYTHONIOENCODING": "latin-1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    assert b"\\u2716 failure" in proc.stdout  # the Worst column (--wide)


def test_check_and_report_take_a_repeated_id_once(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["check", str(SAMPLES), "budget-8k", "budget-8k", "--json"])
    assert [r["trace_id"] for r in json.loads(res.stdout)] == ["budget-8k"]
    out = tmp_path / "r.html"
    import shutil

    db = tmp_path / "samples.db"  # a copy: verdicts a user gave on the samples are not this test's
    shutil.copy(SAMPLES, db)
    res = CliRunner().invoke(cli, ["report", str(db), "budget-8k", "budget-8k", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert res.stdout == f"wrote {out}: 1 trace(s)\n"
