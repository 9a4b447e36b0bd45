"""``ctxviewer import DIR`` names every entry of DIR it did not import and why, one line each,
then a count (issue 27 item 4); ``--json`` lists them as ``skipped``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner
from factories import make_trace

from ctxviewer.cli import cli
from ctxviewer.importers.formats.native import write_jsonl
from ctxviewer.pipeline.folders import HIDDEN, NOT_RECURSED, NOT_REGULAR, OWN_DATABASE


def _tree(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    (runs / "node_modules").mkdir(parents=True)
    write_jsonl([make_trace(trace_id="deep")], runs / "node_modules" / "deep.jsonl")  # never read
    (runs / ".git").mkdir()
    (runs / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    write_jsonl([make_trace(trace_id="a")], runs / "a.jsonl")
    write_jsonl([make_trace(trace_id="b")], runs / "b.jsonl")
    os.symlink(tmp_path / "gone.jsonl", runs / "dangling.jsonl")
    return runs


def test_import_dir_names_each_skipped_folder_and_file_with_why(tmp_path: Path) -> None:
    runs = _tree(tmp_path)
    db = runs / "traces.db"
    res = CliRunner().invoke(cli, ["import", str(runs), "-o", str(db)])
    assert res.exit_code == 0, res.output
    assert res.stdout == f"imported 2 trace(s) from 2 file(s) into {db}\n"
    assert res.stderr.splitlines() == [
        f"skipped file {runs}/.DS_Store ({HIDDEN})",
        f"skipped folder {runs}/.git/ ({HIDDEN})",
        f"skipped file {runs}/dangling.jsonl ({NOT_REGULAR})",
        f"skipped folder {runs}/node_modules/ ({NOT_RECURSED})",
        f"skipped file {db} ({OWN_DATABASE})",  # created in the folder before it is listed
        "skipped 2 folder(s) and 3 file(s)",
    ]
    again = CliRunner().invoke(cli, ["import", str(runs), "-o", str(db), "--json"])
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert (summary["traces"], summary["files"]) == (2, 2)
    assert [(s["path"], s["kind"], s["reason"]) for s in summary["skipped"]] == [
        (f"{runs}/.DS_Store", "file", HIDDEN),
        (f"{runs}/.git", "folder", HIDDEN),
        (f"{runs}/dangling.jsonl", "file", NOT_REGULAR),
        (f"{runs}/node_modules", "folder", NOT_RECURSED),
        (f"{runs}/traces.db", "file", OWN_DATABASE),
    ]
    assert again.stderr == ""  # --json: the list is in the summary, not on stderr


def test_files_given_by_name_skip_nothing(tmp_path: Path) -> None:
    runs = _tree(tmp_path)
    res = CliRunner().invoke(cli, ["import", str(runs / "a.jsonl"), "-o", str(tmp_path / "one.db")])
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
