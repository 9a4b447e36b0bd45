"""``ctxviewer show DB TRACE_ID --json`` answered without click (issue 11: a CLI command within 2.5x a
bare interpreter): the same bytes as the click command for every sample trace, no click loaded, and
everything else -- errors included -- left to the click command, which says what it always says."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_trace

from ctxviewer.cli import cli
from ctxviewer.show_json import answer, fast_arguments
from ctxviewer.store import TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
DB = str(SAMPLES)


def _ids() -> list[str]:
    with TraceStore.open(SAMPLES) as store:
        return [row.trace_id for row in store.list()]


def test_the_fast_answer_is_the_click_commands_output_for_every_sample_trace(capsys: pytest.CaptureFixture[str]) -> None:
    ids = _ids()
    assert len(ids) == 9
    variants = [["show", DB, i, "--json"] for i in ids] + [
        ["show", "--content", DB, "ticket-injection", "--json"],  # flags anywhere after "show"
        ["show", "--json", "--content", DB, "history-16k"],
    ]
    for argv in variants:
        capsys.readouterr()
        assert answer(argv) is True, argv
        fast = capsys.readouterr()
        slow = CliRunner().invoke(cli, argv)
        assert slow.exit_code == 0, slow.output
        assert fast.out == slow.stdout and fast.err == "", argv
    assert type(sys.stdout).__name__ != "InertStream"  # the streams are restored


def test_trace_text_that_could_drive_a_terminal_is_escaped_as_the_click_command_escapes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = "\u202eevil\u202c\u200b\U000e0041\x00\x1b[2J\x1b[31mRED"
    t = make_trace(trace_id="x1" + hostile, service="svc" + hostile)
    t = replace(t, items=(replace(t.items[0], id="policy" + hostile, content="text " + hostile),) + t.items[1:])
    db = tmp_path / "h.db"
    with TraceStore.create(db) as store:
        store.add([t])
    argv = ["show", str(db), t.trace_id, "--json", "--content"]
    assert answer(argv) is True
    out = capsys.readouterr().out
    assert not any(ch in out for ch in ("\u202e", "\u200b", "\x00", "\x1b", "\U000e0041"))  # only as \\u escapes
    got = json.loads(out)
    assert got["trace_id"] == t.trace_id and got["items"][0]["text"] == "text " + hostile  # the same data
    assert out == CliRunner().invoke(cli, argv).stdout


@pytest.mark.parametrize("argv", [
    ["show", DB, "no-such-trace", "--json"],  # click says which id is missing (exit 2)
    ["show", str(ROOT / "no-such.db"), "budget-8k", "--json"],
    ["show", str(ROOT), "budget-8k", "--json"],  # a directory
    ["show", DB, "budget-8k"],  # text output: click's command
    ["show", DB, "budget-8k", "--json", "--bogus"],
    ["show", DB, "budget-8k", "--json", "--help"],
    ["show", DB, "budget-8k", "extra", "--json"],
    ["list", DB, "--json"],
    [],
])
def test_anything_else_is_left_to_click_with_nothing_written(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert answer(argv) is False
    assert capsys.readouterr() == ("", "")


def test_a_stream_that_is_not_utf8_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    monkeypatch.setattr(sys, "stdout", latin)
    assert answer(["show", DB, "budget-8k", "--json"]) is False
    assert latin.buffer.getvalue() == b""  # type: ignore[attr-defined]


def test_arguments_the_fast_path_takes() -> None:
    assert fast_arguments(["show", "a.db", "t-1", "--json"]) == ("a.db", "t-1", False)
    assert fast_arguments(["show", "--json", "--content", "a.db", "t-1"]) == ("a.db", "t-1", True)
    assert fast_arguments(["show", "a.db", "t-1", "--json", "--json"]) == ("a.db", "t-1", False)
    assert fast_arguments(["show", "a.db", "t-1", "--content"]) is None
    assert fast_arguments(["show", "a.db", "t-1", "--json=1"]) is None
    assert fast_arguments(["show", "a.db", "--json"]) is None
    assert fast_arguments(["a.db"]) is None


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def test_python_m_ctxviewer_show_json_loads_no_click_and_exits_0() -> None:
    probe = (
        "import sys, json\n"
        "from ctxviewer.__main__ import main\n"
        "try:\n"
        f"    main(['show', {DB!r}, 'budget-8k', '--json'])\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "mods = sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'click_default_group', 'tabulate', 'numpy', 'PySide6')\n"
        "              or m in ('ctxviewer.cli', 'ctxviewer.cli_group', 'ctxviewer.cli_status'))\n"
        "print(json.dumps({'code': code, 'mods': mods}), file=sys.stderr)\n"
    )
    out = _run(probe)
    assert json.loads(out.stderr.strip().splitlines()[-1]) == {"code": 0, "mods": []}
    assert json.loads(out.stdout)["trace_id"] == "budget-8k"
    click_path = _run(f"from ctxviewer.cli import main\nmain(['show', {DB!r}, 'budget-8k', '--json'])")
    assert click_path.returncode == 0 and click_path.stdout == out.stdout


def test_an_unknown_trace_gets_the_click_commands_message_and_status() -> None:
    fast = subprocess.run([sys.executable, "-m", "ctxviewer", "show", DB, "nope", "--json"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert fast.returncode == 2 and fast.stdout == ""
    assert fast.stderr.strip() == f"Error: {DB}: no trace with id 'nope' (see 'ctxviewer list {DB}')"
