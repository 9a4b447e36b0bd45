"""Paged, streamed lists (issue 25 item 2): ``list --limit N --after CURSOR`` and ``search --after``
walk the whole list page by page (keyset cursors on standard error), ``--jsonl`` gives the
``--json`` objects one a line, a page's table is the table of its rows, the default is a
screenful on a terminal and every row into a pipe, and the table is made while the rows are read
(the last pass yields a line per row taken)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.cli import list_cmd as list_module
from ctxviewer.cli.list_table import list_lines, list_table
from ctxviewer.report.row_dict import trace_row_to_dict
from ctxviewer.store import TraceStore
from ctxviewer.store.cursor import (
    CursorError,
    after_condition,
    decode_cursor,
    decode_search_cursor,
    encode_cursor,
    encode_search_cursor,
)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
with TraceStore.open(SAMPLES) as _store:
    ORDER = [r.trace_id for r in _store.list(None, 0, -1)]  # the list's order: created, then trace id


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def _cursor(err: str) -> str | None:
    m = re.search(r"--after (\S+?)\)?$", err.strip())
    return m.group(1) if m else None


def test_list_jsonl_pages_walk_the_whole_list() -> None:
    code, whole, err = run("list", str(SAMPLES), "--jsonl")
    assert code == 0 and err == ""
    ids = [json.loads(line)["trace_id"] for line in whole.splitlines()]
    assert ids == ORDER and len(ids) == 9
    pages, after = [], None
    while True:
        code, out, err = run("list", str(SAMPLES), "--jsonl", "--limit", "4", *(["--after", after] if after else []))
        assert code == 0
        pages.append(out)
        after = _cursor(err)
        if after is None:
            assert err == ""
            break
        assert err.startswith(f"more rows: ctxviewer list {SAMPLES} --jsonl --limit 4 --after ")
    assert [len(p.splitlines()) for p in pages] == [4, 4, 1]
    assert "".join(pages) == whole  # the same objects, byte for byte


def test_list_json_streamed_is_the_indented_list() -> None:
    code, out, _ = run("list", str(SAMPLES), "--json")
    with TraceStore.open(SAMPLES) as store:
        rows = store.list(None, 0, -1)
    from ctxviewer.assess.context import context_for_db

    current = context_for_db(SAMPLES).fingerprint
    assert out == json.dumps([trace_row_to_dict(r, current) for r in rows], indent=2, ensure_ascii=False) + "\n"
    code, out, err = run("list", str(SAMPLES), "--json", "--filter", "model ~ nothing-like-this")
    assert (code, out, err) == (0, "[]\n", "")


def test_a_page_of_the_table_is_the_table_of_its_rows() -> None:
    code, out, err = run("list", str(SAMPLES), "--limit", "3")
    with TraceStore.open(SAMPLES) as store:
        rows = store.list(None, 0, 3)
    from ctxviewer.assess.context import context_for_db

    assert out == list_table(rows, context_for_db(SAMPLES).fingerprint) + "\n"
    assert [line.split()[2] for line in out.splitlines()[2:]] == ORDER[:3]
    after = _cursor(err)
    assert after is not None and decode_cursor(after) == ("2026-11-09T16:44:05.731Z", "budget-8k-over")
    code, out, err = run("list", str(SAMPLES), "--wide", "--limit", "3", "--after", after)
    assert [line.split()[2] for line in out.splitlines()[2:]] == ORDER[3:6]
    assert "--wide --limit 3 --after" in err


def test_filter_pages_keep_the_filter() -> None:
    code, out, err = run("list", str(SAMPLES), "--jsonl", "--filter", "state == ok")
    everything = [json.loads(x)["trace_id"] for x in out.splitlines()]
    assert len(everything) >= 3
    code, first, err = run("list", str(SAMPLES), "--jsonl", "--filter", "state == ok", "--limit", "2")
    assert "--filter 'state == ok' --limit 2 --after" in err
    after = _cursor(err)
    assert after is not None
    code, rest, _ = run("list", str(SAMPLES), "--jsonl", "--filter", "state == ok", "--after", after)
    assert [json.loads(x)["trace_id"] for x in (first + rest).splitlines()] == everything


def test_a_pipe_gets_every_row_a_terminal_a_screenful(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run("list", str(SAMPLES))
    assert len(out.splitlines()) == 2 + 9 and "more rows" not in err
    monkeypatch.setattr(list_module, "screenful", lambda: 5)
    code, out, err = run("list", str(SAMPLES))
    assert len(out.splitlines()) == 2 + 5 and "more rows:" in err
    code, out, err = run("list", str(SAMPLES), "--all")
    assert len(out.splitlines()) == 2 + 9 and "more rows" not in err

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.undo()
    monkeypatch.setattr(list_module.sys, "stdout", Tty())
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: __import__("os").terminal_size((100, 30)))
    assert list_module.screenful() == 30 - list_module.SCREEN_RESERVE
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: __import__("os").terminal_size((100, 3)))
    assert list_module.screenful() == list_module.MIN_SCREEN


def test_bad_cursors_and_clashing_options_are_usage_errors() -> None:
    code, out, err = run("list", str(SAMPLES), "--after", "not-a-cursor")
    assert code == 2 and "'not-a-cursor' is not a list cursor" in err and out == ""
    code, _, err = run("list", str(SAMPLES), "--limit", "2", "--all")
    assert code == 2 and "give --limit N or --all, not both" in err
    code, _, err = run("list", str(SAMPLES), "--json", "--jsonl")
    assert code == 2 and "give --json or --jsonl, not both" in err
    code, _, err = run("search", str(SAMPLES), "refund", "--after", encode_cursor(None, "x"))
    assert code == 2 and "is not a search cursor" in err
    with pytest.raises(CursorError):
        decode_cursor(encode_search_cursor((0, 1, 2)))


LIST_HELP = ("a list cursor is URL-safe base64 of the last row's [created, trace_id], such as "
             "WyIyMDI2LTExLTA5VDE2OjQyOjMxLjIwOFoiLCJidWRnZXQtOGsiXQ: copy it from the 'more rows: ctxviewer list "
             "… --after CURSOR' line a page printed on standard error")
SEARCH_HELP = ("a search cursor is URL-safe base64 of three row numbers, such as WzAsMTA1LDE2MV0: copy it from the "
               "'(first N hits; … --after CURSOR)' line a page printed on standard error")


@pytest.mark.parametrize(("command", "cursor", "why", "helps"), [
    ("list", "garbage", "not base64 of JSON", LIST_HELP),
    ("list", "e30", "not a [created, trace_id] pair", LIST_HELP),  # {}
    ("list", "WzAsMTA1LDE2MV0", "it is a cursor of ctxviewer search", LIST_HELP),
    ("search", "xyz", "not base64 of JSON", SEARCH_HELP),
    ("search", "WzEsMl0", "not three row numbers", SEARCH_HELP),  # [1,2]
    ("search", "WyIyMDI2LTExLTA5VDE2OjQyOjMxLjIwOFoiLCJidWRnZXQtOGsiXQ", "it is a cursor of ctxviewer list", SEARCH_HELP),
])
def test_a_bad_cursor_says_what_a_cursor_looks_like(command: str, cursor: str, why: str, helps: str) -> None:
    """New user (wt-nu): 'garbage' said '(UnicodeDecodeError)', a Python class, and not what to give."""
    args = ["list", str(SAMPLES)] if command == "list" else ["search", str(SAMPLES), "refund"]
    code, out, err = run(*args, "--after", cursor)
    kind = "list" if command == "list" else "search"
    assert (code, out, err.splitlines()[-1]) == (
        2, "", f"Error: Invalid value for '--after': {cursor!r} is not a {kind} cursor ({why}); {helps}")


def test_the_example_cursors_are_real() -> None:
    from ctxviewer.store.cursor import LIST_EXAMPLE, SEARCH_EXAMPLE, decode_search_cursor

    assert decode_cursor(LIST_EXAMPLE) == ("2026-11-09T16:42:31.208Z", "budget-8k")
    assert decode_search_cursor(SEARCH_EXAMPLE) == (0, 105, 161)


def test_cursors_round_trip() -> None:
    for created, tid in [(None, "a"), ("2026-11-09T16:44:05.731Z", "7e1c/ü b"), ("", "")]:
        assert decode_cursor(encode_cursor(created, tid)) == (created, tid)
        assert "=" not in encode_cursor(created, tid)
    assert decode_search_cursor(encode_search_cursor((1, 22, 333))) == (1, 22, 333)


def test_keyset_condition_pages_past_null_times() -> None:
    """A NULL ``created`` sorts first (SQLite): the cursor of such a row continues with the next
    NULL-time id, then every timed row; a timed cursor never returns a NULL-time row."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE traces (trace_id TEXT PRIMARY KEY, created TEXT)")
    conn.executemany("INSERT INTO traces VALUES (?, ?)",
                     [("b", None), ("a", None), ("c", "2026-01-01"), ("d", "2026-01-01"), ("e", "2025-12-31")])
    order = [r[0] for r in conn.execute("SELECT trace_id FROM traces ORDER BY created, trace_id")]
    assert order == ["a", "b", "e", "c", "d"]
    walked, last = [], None
    while True:
        cond, params = after_condition(*last) if last else ("1", [])
        row = conn.execute(f"SELECT trace_id, created FROM traces WHERE {cond} ORDER BY created, trace_id LIMIT 1",
                           params).fetchone()
        if row is None:
            break
        walked.append(row[0])
        last = (row[1], row[0])
    assert walked == order


def test_the_table_is_made_while_the_rows_are_read() -> None:
    with TraceStore.open(SAMPLES) as store:
        rows = store.list(None, 0, -1)
    taken: list[int] = []

    def source() -> Iterator[Any]:
        taken.append(0)
        for r in rows:
            taken[-1] += 1
            yield r

    lines = list_lines(source, None)
    out = [next(lines) for _ in range(3)]  # header, rule, first row
    assert out[2].split()[2] == ORDER[0]
    assert taken == [9, 1]  # widths: one pass; the printing pass has read one row
    assert "\n".join([*out, *lines]) == list_table(rows, None)


def test_search_pages_walk_every_hit() -> None:
    code, whole, _ = run("search", str(SAMPLES), "refund", "--jsonl", "--limit", "0")
    hits = whole.splitlines()
    assert len(hits) == 88
    pages, after = [], None
    while True:
        code, out, err = run("search", str(SAMPLES), "refund", "--jsonl", "--limit", "30",
                             *(["--after", after] if after else []))
        assert code == 0
        pages.append(out)
        after = _cursor(err)
        if after is None:
            break
    assert [len(p.splitlines()) for p in pages] == [30, 30, 28]
    assert "".join(pages) == whole
    code, out, _ = run("search", str(SAMPLES), "refund", "--json", "--limit", "0")
    assert [json.loads(x) for x in hits] == json.loads(out)


def test_check_jsonl_is_the_json_list_a_line_each() -> None:
    code, whole, _ = run("check", str(SAMPLES), "--json")
    code_l, lines, err = run("check", str(SAMPLES), "--jsonl")
    assert (code_l, err) == (code, "")
    assert [json.loads(x) for x in lines.splitlines()] == json.loads(whole)
    code, _, err = run("check", str(SAMPLES), "--jsonl", "--format", "sarif")
    assert code == 2 and "--jsonl prints to standard output as it checks" in err


def test_check_checks_every_trace_not_a_first_page(tmp_path: Path) -> None:
    """``check DB`` without ids checks all traces (it read the store's first 200 before)."""
    from factories import make_trace

    from ctxviewer.pipeline.stored_facts import with_facts

    db = tmp_path / "many.db"
    with TraceStore.create(db) as store:
        store.add(with_facts(make_trace(trace_id=f"t{i:04d}") for i in range(205)))
    code, out, _ = run("check", str(db), "--jsonl")
    assert len(out.splitlines()) == 205 and json.loads(out.splitlines()[-1])["trace_id"] == "t0204"
