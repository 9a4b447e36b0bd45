"""The command line over the sample database and the shared corpus (real values)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.tokens.catalogue import package_version

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_show_json_budget_8k() -> None:
    code, out, _ = run("show", str(SAMPLES), "budget-8k", "--json")
    assert code == 0, out
    d = json.loads(out)
    assert d["trace_id"] == "budget-8k"
    assert (d["capacity"], d["reserved_output_tokens"], d["input_tokens"]) == (8000, 1200, 6000)
    assert d["allocations"] == {"sys": 800, "hist": 1200, "evidence": 3000, "tools": 600, "user": 400}
    assert d["budget"] == {"sys": 800, "hist": 1200, "evidence": 3000, "tools": 600, "user": 400, "out": 1200}
    assert (d["margin"], d["fits"], d["verdict"]) == (800, True, "fits, 800 tokens margin")
    items = d["items"]
    assert items[0]["kind"] == "policy" and items[0]["position"] == 1 and items[0]["trust"] == "trusted"
    assert [i["position"] for i in items] == list(range(1, len(items) + 1))
    assert sum(i["tokens"] for i in items) == 6000
    assert {"position", "kind", "id", "status", "tokens", "priority", "trust"} <= set(items[0])


def test_show_json_budget_8k_over_lists_omitted_items() -> None:
    d = json.loads(run("show", str(SAMPLES), "budget-8k-over", "--json")[1])
    omitted = [i for i in d["items"] if i["status"] == "omitted"]
    assert omitted and all(i["position"] is None and i["omission_reason"] for i in omitted)
    assert sum(i["tokens"] for i in omitted) == 1500
    assert d["over_before_trim"] == 700
    assert d["verdict"] == "fits, 800 tokens margin; before trimming: over by 700"
    assert (d["state"], [f["rule"] for f in d["findings"]]) == ("ok", ["budget.over_before_trim"])


def test_show_text_has_verdict_and_items() -> None:
    code, out, _ = run("show", str(SAMPLES), "budget-8k")
    assert code == 0
    assert "eq. 3.1     fits, 800 tokens margin" in out
    assert "evidence" in out and "policy" in out


def test_list_json_has_every_sample() -> None:
    code, out, _ = run("list", str(SAMPLES), "--json")
    assert code == 0
    ids = {r["trace_id"] for r in json.loads(out)}
    assert {"budget-8k", "budget-8k-over", "history-16k", "refund-approval-forgotten", "ticket-injection",
            "policy-missing", "evidence-in-middle", "json-unsupported", "budget-8k-replay"} <= ids


def test_list_table_and_filter() -> None:
    code, out, _ = run("list", str(SAMPLES), "--filter", "budget-8k")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2 + 3  # header, rule + budget-8k, budget-8k-over, budget-8k-replay
    assert lines[2].split()[2:4] == ["budget-8k", "gpt-4o-mini-2024-07-18"]


def test_unknown_trace_is_a_clear_error() -> None:
    code, _, err = run("show", str(SAMPLES), "nope")
    assert code == 2
    assert "no trace with id 'nope'" in err and "samples.db" in err


def test_not_a_database_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("hello, I am not SQLite")
    code, _, err = run("list", str(bad))
    assert code == 2
    assert str(bad) in err


def test_import_corpus_otlp_then_show(shared: Path, tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    src = shared / "corpus" / "otel-genai" / "interlingua-raw-openai-v2.otlp.json"
    code, out, err = run("import", str(src), "-o", str(db))
    assert code == 0, err
    assert "imported 1 trace(s) from 1 file(s)" in out
    rows = json.loads(run("list", str(db), "--json")[1])
    assert [(r["model"], r["provider"], r["capacity"]) for r in rows] == [("gpt-4o-mini", "openai", None)]
    d = json.loads(run("show", str(db), rows[0]["trace_id"], "--json")[1])
    assert d["usage"]["input_tokens"] == 412 and d["usage"]["output_tokens"] == 27
    # the trace records no C: the model catalogue's context window for gpt-4o-mini, said as assumed
    assert (d["capacity"], d["capacity_source"]) == (128_000, f"assumed (model catalogue: genai-prices {package_version()}, gpt-4o-mini)")
    assert (d["fits"], d["margin"], d["verdict"]) == (True, 126_955, (
        "fits, 126,955 tokens margin (by the count; 126,564 by the provider-reported input 412) (capacity assumed)"))
    assert d["state"] == "ok"  # the one finding is the counted input explained: no tool definition captured
    assert [(f["rule"], f["severity"], f["message"]) for f in d["findings"]] == [(
        "accounting.reported_gap", "info", "the provider reported 412 input tokens, counted 32 (o200k_base; 21 in the items + 11 of message framing): 380 "
        "tokens are not in the captured items -- the model proposed tool calls, but no tool definition was captured")]
    assert [i["kind"] for i in d["items"]] == ["policy", "user"]
    # OTel records no per-item counts: the import pipeline counted them with gpt-4o-mini's own
    # encoding (its endpoint profile: o200k_base, what `ctxviewer tokens` uses too), and says so
    assert [(i["tokens"], i["tokens_source"], i["tokens_encoding"]) for i in d["items"]] == [
        (13, "counted", "o200k_base"), (8, "counted", "o200k_base")]
    assert d["tool_calls"][0]["name"] == "lookup_order"


def test_import_unrecognised_file_fails_naming_it(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("just words")
    code, _, err = run("import", str(junk), "-o", str(tmp_path / "x.db"))
    assert code == 2
    assert str(junk) in err


def test_python_dash_m_runs_the_same_cli() -> None:
    proc = subprocess.run([sys.executable, "-m", "ctxviewer", "show", str(SAMPLES), "budget-8k", "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout)["margin"] == 800


def run_window(*args: str) -> tuple[int, str, str]:
    """A command that opens a window (``screenshot``), in its own process as a user runs it: a
    window and its workers leave nothing behind in the test process."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "ctxviewer", *args], capture_output=True, text=True, env=env, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.slow
def test_screenshot_writes_png_of_requested_size(tmp_path: Path, qapp) -> None:
    from PySide6.QtGui import QImage

    out = tmp_path / "shot.png"
    code, stdout, err = run_window("screenshot", str(SAMPLES), "budget-8k", "-o", str(out), "--size", "1280x800")
    assert code == 0, err
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1280, 800)


def test_screenshot_of_a_missing_item_names_it(tmp_path: Path, qapp) -> None:
    code, _, err = run("screenshot", str(SAMPLES), "budget-8k", "-o", str(tmp_path / "s.png"), "--item", "nope")
    assert code == 2
    assert "trace 'budget-8k' has no item 'nope'" in err
    assert not (tmp_path / "s.png").exists()


@pytest.mark.parametrize("size", ["big", "10x10", "1280x"])
def test_screenshot_rejects_bad_size(size: str, tmp_path: Path) -> None:
    code, _, err = run("screenshot", str(SAMPLES), "budget-8k", "-o", str(tmp_path / "s.png"), "--size", size)
    assert code == 2
    assert "--size" in err


@pytest.mark.slow
def test_screenshot_to_unwritable_path_is_an_error_not_a_traceback(tmp_path: Path, qapp) -> None:
    code, _, err = run_window("screenshot", str(SAMPLES), "budget-8k", "-o", str(tmp_path / "missing-dir" / "x.png"))
    assert code == 2  # a usage error, said before rendering (tests/cli/test_output_places.py)
    assert err.splitlines()[-1] == (f"Error: Invalid value for '-o' / '--output': {tmp_path / 'missing-dir' / 'x.png'}: "
                                    f"folder {tmp_path / 'missing-dir'} does not exist")


@pytest.mark.slow
def test_screenshot_suffix_picks_the_format(tmp_path: Path, qapp) -> None:
    out = tmp_path / "shot.jpg"
    assert run_window("screenshot", str(SAMPLES), "budget-8k", "-o", str(out))[0] == 0
    assert out.read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG magic, not PNG
    code, _, err = run_window("screenshot", str(SAMPLES), "budget-8k", "-o", str(tmp_path / "x.gifv"))
    assert code == 2 and "unsupported image type '.gifv'; use .png, .jpg or .bmp" in err  # a usage error


def test_show_of_a_damaged_trace_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    import shutil
    import sqlite3

    db = tmp_path / "damaged.db"
    shutil.copy(SAMPLES, db)
    con = sqlite3.connect(db)
    con.execute("UPDATE details SET json = '{\"trace_id\": 5}' WHERE trace_id = 'budget-8k'")
    con.commit()
    con.close()
    code, _, err = run("show", str(db), "budget-8k")
    assert code == 2
    assert "damaged.db" in err and "Traceback" not in err


def test_show_json_lists_validations_and_checks() -> None:
    d = json.loads(run("show", str(SAMPLES), "json-unsupported", "--json")[1])
    failed = [v["check"] for v in d["validations"] if not v["passed"]]
    assert "cited_ids" in failed
    d = json.loads(run("show", str(SAMPLES), "ticket-injection", "--json")[1])
    (call,) = d["tool_calls"]
    assert (call["name"], call["verdict"]) == ("issue_refund", "blocked")
    assert [c["check"] for c in call["checks"] if c["passed"] is False] == ["identity", "resource", "approval"]


def test_show_text_of_policy_missing_keeps_columns_and_shows_validation() -> None:
    code, out, _ = run("show", str(SAMPLES), "policy-missing")
    assert code == 0
    assert "not recorded version" not in out
    assert "Validations" in out and "FAILED" in out
    row = next(line for line in out.splitlines() if line.startswith("system policy"))
    assert row.split() == ["system", "policy", "0", "800", "not", "recorded"]


def test_otel_traces_show_omitted_as_not_recorded(shared: Path, tmp_path: Path) -> None:
    db = tmp_path / "o.db"
    src = shared / "corpus" / "otel-genai" / "interlingua-openllmetry-openai.otlp.json"
    assert run("import", str(src), "-o", str(db))[0] == 0
    (row,) = json.loads(run("list", str(db), "--json")[1])
    assert (row["retained"], row["omitted"]) == (3, None)
    assert "3 / not recorded" in run("list", str(db))[1]
    d = json.loads(run("show", str(db), row["trace_id"], "--json")[1])
    assert d["omissions_recorded"] is False
    out = run("show", str(db), row["trace_id"])[1]
    assert f"of capacity 128,000 tokens assumed (model catalogue: genai-prices {package_version()}, gpt-4o-mini)" in out
    assert "omitted items: not recorded" in out
    assert "policy" in out and "not recorded version not recorded" not in out


def _trace_file(path: Path, *trace_ids: str) -> Path:
    from factories import make_trace

    from ctxviewer.importers.formats.native import write_jsonl

    write_jsonl([make_trace(trace_id=t) for t in trace_ids], path)
    return path


def test_import_into_a_read_only_db_says_so(tmp_path: Path, monkeypatch) -> None:
    import os

    src = _trace_file(tmp_path / "traces.jsonl", "a")
    ro = tmp_path / "ro.db"
    assert run("import", str(src), "-o", str(ro))[0] == 0
    ro.chmod(0o444)
    before = ro.read_bytes()
    real_access = os.access  # tests run as root, where the mode is not enforced: make it count
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: not (Path(p) == ro and mode & os.W_OK) and real_access(p, mode, **kw))
    code, out, err = run("import", str(src), "-o", str(ro))
    assert (code, out) == (1, "")
    assert err == f"Error: {ro}: the file is read-only; cannot import into it\n"
    assert ro.read_bytes() == before


def test_import_when_sqlite_refuses_the_write_says_read_only(tmp_path: Path, monkeypatch) -> None:
    import sqlite3

    src = _trace_file(tmp_path / "traces.jsonl", "a")
    ro = tmp_path / "ro.db"
    assert run("import", str(src), "-o", str(ro))[0] == 0
    real_connect = sqlite3.connect  # what SQLite does with a 0444 file for a normal user: open it read-only
    monkeypatch.setattr(sqlite3, "connect", lambda p, *a, **kw: real_connect(f"file:{p}?mode=ro", *a, uri=True, **kw))
    code, _, err = run("import", str(src), "-o", str(ro))
    assert code == 1
    assert err == f"Error: {ro}: the file is read-only; cannot import into it\n"
    assert ro.exists()


def test_import_into_a_foreign_db_with_a_user_version(tmp_path: Path) -> None:
    import sqlite3
    from contextlib import closing

    foreign = tmp_path / "foreign.db"
    with closing(sqlite3.connect(foreign)) as conn:
        conn.execute("CREATE TABLE traces (x)")
        conn.execute("PRAGMA user_version = 3")
        conn.commit()
    code, _, err = run("import", str(_trace_file(tmp_path / "t.jsonl", "a")), "-o", str(foreign))
    assert code == 2  # bad input (F15): another program's database, left untouched
    assert err == (
        f"Error: {foreign}: is not a ctxviewer trace database "
        "(missing tables: blobs, items, details, token_counts)\n"
    )
    assert foreign.exists()


def test_import_of_nothing_removes_the_db_it_created(tmp_path: Path) -> None:
    junk = tmp_path / "notatrace.json"
    junk.write_text('{"hello": "world"}')
    db = tmp_path / "nt.db"
    code, out, err = run("import", str(junk), "-o", str(db))
    assert code == 2
    assert out == "imported 0 trace(s) from 0 of 1 file(s)\n"  # names no database it removed
    assert err.endswith(f"Error: no traces imported; removed {db}, which this import had created\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notatrace.json"]


def test_import_of_nothing_keeps_an_existing_db(tmp_path: Path) -> None:
    db = tmp_path / "keep.db"
    assert run("import", str(_trace_file(tmp_path / "t.jsonl", "a")), "-o", str(db))[0] == 0
    junk = tmp_path / "notatrace.json"
    junk.write_text('{"hello": "world"}')
    code, _, err = run("import", str(junk), "-o", str(db))
    assert code == 2
    assert err.endswith("Error: no traces imported\n")
    assert [r["trace_id"] for r in json.loads(run("list", str(db), "--json")[1])] == ["a"]


def test_import_with_an_unknown_format_removes_the_db_it_created(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    code, _, err = run("import", str(_trace_file(tmp_path / "t.jsonl", "a")), "-o", str(db), "--format", "nope")
    assert code == 2 and "Invalid value for '--format': unknown format 'nope'" in err  # a usage error
    assert not db.exists()


def test_import_counts_only_files_that_yielded_traces(tmp_path: Path) -> None:
    good = _trace_file(tmp_path / "good.jsonl", "a", "b")
    db = tmp_path / "mix.db"
    code, out, err = run("import", str(tmp_path / "missing.jsonl"), str(good), "-o", str(db))
    assert code == 2, err  # the rest is committed; a file named that cannot be read is never a pass
    assert out == (f"imported 2 trace(s) from 1 of 2 file(s) into {db}; 1 file(s) could not be read, "
                   "0 record(s) skipped: exit status 2\n")
    assert err == f"error: {tmp_path / 'missing.jsonl'}: whole file: cannot read file: No such file or directory\n"


def test_import_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "exported"
    (folder / "sub").mkdir(parents=True)
    _trace_file(folder / "b.jsonl", "b")
    _trace_file(folder / "a.jsonl", "a")
    _trace_file(folder / ".hidden.jsonl", "hidden")
    _trace_file(folder / "sub" / "nested.jsonl", "nested")
    (folder / "notes.txt").write_text("not a trace")
    db = tmp_path / "x.db"
    code, out, err = run("import", str(folder), "-o", str(db))
    assert code == 0, err
    assert out == f"imported 2 trace(s) from 2 of 3 file(s) into {db}\n"
    assert err.startswith(f"warning: {folder / 'notes.txt'}: whole file: not a recognised trace file")
    assert [r["trace_id"] for r in json.loads(run("list", str(db), "--json")[1])] == ["a", "b"]


def test_import_an_empty_directory_fails_and_leaves_no_db(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    db = tmp_path / "e.db"
    code, _, err = run("import", str(empty), "-o", str(db))
    assert code == 2
    assert err == (
        f"warning: {empty}: whole directory: no files to import in this directory\n"
        f"Error: no traces imported; removed {db}, which this import had created\n"
    )
    assert not db.exists()
