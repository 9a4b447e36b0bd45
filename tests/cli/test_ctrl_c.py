"""Ctrl+C says what was kept and exits 130 (issue 27 item 4): ``check`` and ``export`` write their
``-o`` file whole or not at all, so an interrupted run says "nothing was written" and leaves no file
(nor a temporary one); any other command says "interrupted". (The import's Ctrl+C, a real SIGINT
to a child process, is tests/store/test_concurrency.py::test_ctrl_c_during_a_cli_import_leaves_no_new_file_and_no_changed_byte.)"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.assess import assessment
from ctxviewer.cli import export_cmd, main
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def _run(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with pytest.raises(SystemExit) as exit_:
        main(args)
    return int(exit_.value.code or 0), out.getvalue(), err.getvalue()


def _ctrl_c_on_call(n: int, real: Any) -> Any:
    calls = []

    def fake(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    return fake


def test_ctrl_c_during_check_says_how_far_it_got_and_writes_nothing(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    monkeypatch.setattr(assessment, "assess", _ctrl_c_on_call(3, assessment.assess))
    target = tmp_path / "findings.sarif"
    code, out, err = _run(monkeypatch, ["check", str(SAMPLES), "--format", "sarif", "-o", str(target)])
    assert code == 130
    assert err == f"interrupted: checked 2 of 9 trace(s); nothing was written; {target} was not created\n"
    assert out == "" and list(tmp_path.iterdir()) == []


def test_ctrl_c_during_check_jsonl_says_its_lines_were_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assessment, "assess", _ctrl_c_on_call(3, assessment.assess))
    code, out, err = _run(monkeypatch, ["check", str(SAMPLES), "--jsonl"])
    assert code == 130 and len(out.splitlines()) == 2  # printed as they were checked
    assert err == "interrupted: checked 2 of 9 trace(s); their 2 result line(s) were printed\n"  # not "nothing was written"


def test_ctrl_c_during_export_leaves_no_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(export_cmd, "export_request", _ctrl_c_on_call(1, export_cmd.export_request))
    target = tmp_path / "all.otlp.json"
    code, out, err = _run(monkeypatch, ["export", str(SAMPLES), "-o", str(target)])
    assert (code, out) == (130, "")
    assert err == f"interrupted: nothing was written; {target} was not created\n"
    assert list(tmp_path.iterdir()) == []  # not the file, not its .tmp


def test_ctrl_c_in_another_command_is_interrupted_with_status_130(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TraceStore, "stream", _ctrl_c_on_call(1, TraceStore.stream))  # what list reads through
    code, out, err = _run(monkeypatch, ["list", str(SAMPLES)])
    assert (code, out) == (130, "")
    assert err.strip() == "interrupted" and "Aborted!" not in err


def test_an_interrupt_after_the_commit_says_the_import_committed(tmp_path: Path) -> None:
    """A new user's finding: a SIGINT that landed after the transaction committed printed
    "nothing was written" although the database held the 400 traces."""
    import shutil

    from ctxviewer.cli.interrupted import import_kept, trace_mark
    from ctxviewer.pipeline.importing import import_into

    root = Path(__file__).resolve().parents[2]
    db = tmp_path / "t.db"
    shutil.copy(root / "sample_traces" / "samples.db", db)
    mark = trace_mark(str(db))
    assert mark is not None and mark >= 9
    assert import_kept(str(db), True, mark) == f"nothing was written; {db} is as it was (the import is one transaction)"
    assert import_into(db, [root / "sample_traces" / "traces.jsonl"]).imported == 9  # the commit, then the "interrupt"
    assert import_kept(str(db), True, mark) == f"the import had committed: 9 trace(s) written to {db} before the interrupt"
    assert import_kept(str(tmp_path / "new.db"), False, 0) == f"nothing was written; {tmp_path / 'new.db'} was not created"
