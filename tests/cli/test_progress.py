"""Progress on the CLI (issue 27 item 4): ``import``, ``check``, ``export`` and ``search`` draw one
line on standard error -- counts and rate, rewritten in place, cleared at the end -- only when
standard error is a terminal; never into a pipe or with ``--json``.

The redraw interval (``progress.EVERY_S``) is set to 0 so every step draws and the lines below are
the run's real counts; the rates vary and are matched as numbers."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_trace

from ctxviewer.cli import cli, main, progress
from ctxviewer.importers.formats.native import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
RATE = r"[\d,]+/s"


class FakeTerminal(io.StringIO):
    """A standard error that says it is a terminal (as ``2>/dev/tty`` would)."""

    def isatty(self) -> bool:
        return True


def _run(monkeypatch: pytest.MonkeyPatch, args: list[str], err: io.StringIO) -> tuple[int, str, str]:
    out = io.StringIO()
    monkeypatch.setattr(progress, "EVERY_S", 0.0)
    monkeypatch.setenv("COLUMNS", "200")  # the line is cut to the terminal's width
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with pytest.raises(SystemExit) as exit_:
        main(args)
    return int(exit_.value.code or 0), out.getvalue(), err.getvalue()


def _drawn(stream_text: str) -> list[str]:
    """The lines drawn on the progress line, in order; the last entry is what is left (cleared)."""
    return [part.rstrip(" ") for part in stream_text.split("\r")][1:]


def _sample_ids() -> list[str]:
    return [r["trace_id"] for r in json.loads(CliRunner().invoke(cli, ["list", str(SAMPLES), "--json"]).stdout)]


def test_check_counts_every_trace_on_a_terminal_and_clears_the_line(monkeypatch: pytest.MonkeyPatch) -> None:
    n = len(_sample_ids())
    code, out, err = _run(monkeypatch, ["check", str(SAMPLES)], FakeTerminal())
    assert code == 1  # the samples hold failures
    drawn = _drawn(err)
    assert drawn[0] == f"checking 0 / {n} traces · 0/s"
    for i, text in enumerate(drawn[1:n], start=1):
        assert re.fullmatch(rf"checking {i} / {n} traces · {RATE}", text), text
    assert re.fullmatch(rf"checked {n} trace\(s\); SQLite integrity check of {re.escape(str(SAMPLES))} · 0 s", drawn[n])
    assert drawn[-2:] == ["", ""]  # spaces over the line, the cursor back at its start: nothing left
    assert err.endswith("\r") and "\n" not in err
    assert out.endswith("9 trace(s) checked: 3 failure, 3 warning, 3 ok\n") and n == 9


def test_no_progress_without_a_terminal_or_with_json(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _run(monkeypatch, ["check", str(SAMPLES)], io.StringIO())  # a pipe: isatty() False
    assert code == 1 and err == "" and "trace(s) checked" in out
    code, out, err = _run(monkeypatch, ["check", str(SAMPLES), "--json"], FakeTerminal())
    assert code == 1 and err == "" and json.loads(out)
    code, out, err = _run(monkeypatch, ["search", str(SAMPLES), "refund", "--json"], FakeTerminal())
    assert code == 0 and err == "" and json.loads(out)


def test_export_counts_the_traces_read_then_the_write(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    n = len(_sample_ids())
    target = tmp_path / "all.otlp.json"
    code, out, err = _run(monkeypatch, ["export", str(SAMPLES), "-o", str(target)], FakeTerminal())
    assert code == 0 and out == f"exported {n} trace(s) from {SAMPLES} to {target} (otlp)\n"
    drawn = _drawn(err)
    assert drawn[0] == f"reading 0 / {n} traces from {SAMPLES} · 0/s"
    assert [bool(re.fullmatch(rf"reading {i} / {n} traces from {re.escape(str(SAMPLES))} · {RATE}", t))
            for i, t in enumerate(drawn[1:n], start=1)] == [True] * (n - 1)
    assert drawn[n:n + 2] == ["", ""]  # cleared after reading
    assert drawn[n + 2] == f"writing {n} trace(s) to {target} (otlp) · 0 s"
    assert drawn[-2:] == ["", ""] and "\n" not in err


def test_search_shows_its_elapsed_time_then_clears(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _run(monkeypatch, ["search", str(SAMPLES), "refund", "--limit", "0"], FakeTerminal())
    assert code == 0 and "\nrefund-approval-forgotten\tKB-1009\t" in out
    assert _drawn(err)[0] == f"searching {SAMPLES} for 'refund' · 0 s" and _drawn(err)[-2:] == ["", ""]


IMPORT_SCRIPT = """
import sys
from ctxviewer.cli import progress
progress.EVERY_S = 0.0
from ctxviewer.cli import main
main(sys.argv[1:])
"""


@pytest.mark.slow
def test_import_on_a_real_terminal_counts_files_and_traces(tmp_path: Path) -> None:
    """Standard error on a pseudo-terminal (``pty``): what a user sees, byte for byte."""
    write_jsonl([make_trace(trace_id=f"a{i}") for i in range(3)], tmp_path / "a.jsonl")
    write_jsonl([make_trace(trace_id=f"b{i}") for i in range(2)], tmp_path / "b.jsonl")
    db = tmp_path / "t.db"
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-c", IMPORT_SCRIPT, "import", str(tmp_path / "a.jsonl"),
                             str(tmp_path / "b.jsonl"), "-o", str(db)],
                            stdout=subprocess.PIPE, stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert out.decode() == f"imported 5 trace(s) from 2 file(s) into {db}\n"
    drawn = _drawn(b"".join(chunks).decode())
    assert drawn[0] == "importing file 1 of 2 · 0 trace(s) read · 0/s"
    assert [bool(re.fullmatch(rf"importing file 1 of 2 · {i} trace\(s\) read · {RATE}", t)) for i, t in
            zip(range(1, 4), drawn[1:4])] == [True] * 3
    assert re.fullmatch(rf"importing file 2 of 2 · 3 trace\(s\) read · {RATE}", drawn[4])
    assert [bool(re.fullmatch(rf"importing file 2 of 2 · {i} trace\(s\) read · {RATE}", t)) for i, t in
            zip(range(4, 6), drawn[5:7])] == [True] * 2
    assert drawn[7] == f"read 2 file(s), 5 trace(s); writing to {db}"
    assert drawn[8:] == ["", ""]  # cleared: nothing is left on the terminal


def test_import_into_a_pipe_draws_nothing(tmp_path: Path) -> None:
    write_jsonl([make_trace(trace_id="a")], tmp_path / "a.jsonl")
    res = CliRunner().invoke(cli, ["import", str(tmp_path / "a.jsonl"), "-o", str(tmp_path / "t.db")])
    assert res.exit_code == 0 and res.stderr == ""
