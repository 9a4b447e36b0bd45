"""``import`` never loses data without a word (the new user's F-IMP-DUP, F-IMP-MISSING, F-IMP-MSG):
a trace the database already holds is replaced with a warning naming file, record and trace id,
counted in the summary and ``--json``; a named file that cannot be read, or records that were
skipped, end the import with exit status 2 after the rest is committed (as ``scan``: a partial
import is never a pass), while warnings that keep the data keep exit status 0; a failed import's
summary names no database it removed, and a file that cannot be read is an ``error:``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.store import TraceStore

TRACES = Path(__file__).resolve().parents[2] / "sample_traces" / "traces.jsonl"
LINES = TRACES.read_text(encoding="utf-8").splitlines()


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def _ids(db: Path) -> list[str]:
    with TraceStore.open(db) as store:
        return sorted(r.trace_id for r in store.list(limit=100))


def test_a_trace_already_in_the_database_is_replaced_with_a_warning(tmp_path: Path) -> None:
    db = tmp_path / "dup.db"
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join(LINES[:2]) + "\n", encoding="utf-8")
    again = tmp_path / "again.jsonl"
    again.write_text(LINES[1] + "\n" + LINES[2] + "\n", encoding="utf-8")  # budget-8k-over again, history-16k new
    assert run("import", str(first), "-o", str(db))[0] == 0
    code, out, err = run("import", str(again), "-o", str(db))
    assert code == 0
    assert err == (f"warning: {again}: trace budget-8k-over: trace budget-8k-over is already in {db}; "
                   "this record replaces it\n")
    assert out == f"imported 2 trace(s) from 1 file(s) into {db}, replacing 1 trace(s) already there\n"
    assert _ids(db) == ["budget-8k", "budget-8k-over", "history-16k"]
    code, out, _ = run("import", str(again), "-o", str(db), "--json")
    summary = json.loads(out)
    assert (code, summary["traces"], summary["replaced"]) == (0, 2, 2)
    assert [w["message"] for w in summary["warnings"]] == [
        f"trace {t} is already in {db}; this record replaces it" for t in ("budget-8k-over", "history-16k")]


def test_a_new_database_replaces_nothing(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    code, out, _ = run("import", str(TRACES), "-o", str(db), "--json")
    summary = json.loads(out)
    assert (code, summary["traces"], summary["replaced"], summary["files_unreadable"],
            summary["records_skipped"]) == (0, 9, 0, 0, 0)


def test_a_missing_file_is_an_error_and_exit_status_2_after_the_rest_is_committed(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    missing = tmp_path / "missing.json"
    code, out, err = run("import", str(TRACES), str(missing), "-o", str(db))
    assert code == 2
    assert err == f"error: {missing}: whole file: cannot read file: No such file or directory\n"
    assert out == (f"imported 9 trace(s) from 1 of 2 file(s) into {db}; 1 file(s) could not be read, "
                   "0 record(s) skipped: exit status 2\n")
    assert len(_ids(db)) == 9  # committed
    code, out, _ = run("import", str(TRACES), str(missing), "-o", str(tmp_path / "j.db"), "--json")
    summary = json.loads(out)
    assert (code, summary["traces"], summary["files_unreadable"], summary["records_skipped"]) == (2, 9, 1, 0)


def test_a_skipped_record_is_exit_status_2_and_the_other_records_load(tmp_path: Path) -> None:
    three = tmp_path / "three.jsonl"
    three.write_text("\n".join([*LINES[:3], "{not json", LINES[3]]) + "\n", encoding="utf-8")
    db = tmp_path / "three.db"
    code, out, err = run("import", str(three), "-o", str(db))
    assert code == 2
    assert err == f"error: {three}: line 4: invalid JSON: Expecting property name enclosed in double quotes (column 2)\n"
    assert out == (f"imported 4 trace(s) from 1 file(s) into {db}; 0 file(s) could not be read, "
                   "1 record(s) skipped: exit status 2\n")
    assert len(_ids(db)) == 4


def test_a_refused_value_skips_that_record_with_exit_status_2(tmp_path: Path) -> None:
    bad = json.loads(LINES[0])
    bad["trace_id"], bad["endpoint"]["capacity"] = "neg-cap", -5
    f = tmp_path / "nums.jsonl"
    f.write_text(LINES[1] + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    code, out, err = run("import", str(f), "-o", str(tmp_path / "n.db"))
    assert code == 2
    assert err.startswith(f"error: {f}: line 2: endpoint.capacity")
    assert out.endswith("; 0 file(s) could not be read, 1 record(s) skipped: exit status 2\n")


def test_a_warning_that_keeps_the_data_keeps_exit_status_0(tmp_path: Path) -> None:
    twice = tmp_path / "twice.jsonl"
    twice.write_text(LINES[0] + "\n" + LINES[0] + "\n", encoding="utf-8")
    code, out, err = run("import", str(twice), "-o", str(tmp_path / "t.db"))
    assert code == 0
    assert err == (f"warning: {twice}: trace budget-8k: trace id already imported in this run; "
                   "this record replaces the earlier one\n")
    assert out == f"imported 1 trace(s) from 1 file(s) into {tmp_path / 't.db'}\n"


def test_a_failed_import_names_no_database_it_removed(tmp_path: Path) -> None:
    db = tmp_path / "y.db"
    missing = tmp_path / "missing.json"
    code, out, err = run("import", str(missing), "-o", str(db))
    assert code == 2
    assert out == "imported 0 trace(s) from 0 of 1 file(s)\n"
    assert err == (f"error: {missing}: whole file: cannot read file: No such file or directory\n"
                   f"Error: no traces imported; removed {db}, which this import had created\n")
    assert not db.exists()
