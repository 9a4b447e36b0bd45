"""CLI manners (issue 5 item 9): an unknown command says so and lists the commands; a trace file
given where a database is expected says what it is and how to import it; ``ctxviewer DB`` still
goes to ``open``."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner
from otlp_factories import chat_span, otlp_request

from ctxviewer.cli import cli
from ctxviewer.cli.group import looks_like_a_path
from ctxviewer.pipeline.hints import not_a_database_message, open_store
from ctxviewer.store import NotADatabaseError, StoreError, TraceStore
from ctxviewer.util.file_kind import suggested_database

ROOT = Path(__file__).resolve().parents[2]
JSONL = ROOT / "sample_traces" / "traces.jsonl"
COMMANDS = ", ".join(sorted(cli.commands))


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_unknown_command_says_so_and_lists_the_commands() -> None:
    code, out, err = run("frobnicate", "x.db", "--json")
    assert code == 2
    assert out == ""
    assert err.splitlines()[-1] == (
        f"Error: no such command 'frobnicate'. Commands: {COMMANDS}. "
        "To open a trace database, give its path: ctxviewer traces.db"
    )
    assert "No such option" not in err
    assert {"open", "import", "list", "show", "screenshot"} <= set(COMMANDS.split(", "))


def test_unknown_command_close_to_a_real_one_suggests_it() -> None:
    code, _, err = run("lsit", "x.db")
    assert code == 2
    assert err.splitlines()[-1].startswith("Error: no such command 'lsit' (did you mean 'list'?). Commands: ")


def test_a_database_path_still_goes_to_open(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    opened: list[list[str]] = []
    fake_app = types.ModuleType("ctxviewer.gui.app")  # stands in for the window (runs without Qt)
    fake_app.main = lambda argv: opened.append(argv) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ctxviewer.gui.app", fake_app)
    shutil.copy(ROOT / "sample_traces" / "samples.db", "frobnicate")  # an existing file is a path
    for arg in ("frobnicate", str(ROOT / "sample_traces" / "samples.db")):
        code, _, err = run(arg)
        assert code == 0, err
    assert opened == [["frobnicate"], [str(ROOT / "sample_traces" / "samples.db")]]


def test_a_missing_database_path_names_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("missing.db")
    assert code == 2
    assert "missing.db" in err and "no such command" not in err


def test_looks_like_a_path() -> None:
    assert [looks_like_a_path(w) for w in ("x.db", "dir/x", "~", "frobnicate", "list")] == [
        True, True, True, False, False,
    ]


def test_opening_a_native_jsonl_file_offers_import(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(JSONL, "traces.jsonl")
    expected = (
        "Error: traces.jsonl: is not a trace database; it looks like ctxviewer native JSON Lines "
        "(one trace per line), format 'native'. Import it with: ctxviewer import traces.jsonl -o traces.db"
    )
    for args in (["traces.jsonl"], ["open", "traces.jsonl"], ["list", "traces.jsonl"],
                 ["show", "traces.jsonl", "budget-8k"]):
        code, _, err = run(*args)
        assert (code, err.strip()) == (2, expected), args


def test_opening_an_otlp_file_offers_import(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    Path("spans.otlp.json").write_text(json.dumps(otlp_request(chat_span())), encoding="utf-8")
    code, _, err = run("open", "spans.otlp.json")
    assert code == 2
    assert err.strip() == (
        "Error: spans.otlp.json: is not a trace database; it looks like OpenTelemetry GenAI spans "
        "(OTLP/JSON, JSON Lines of OTLP, span lists, attribute maps), format 'otel'. "
        "Import it with: ctxviewer import spans.otlp.json -o spans.db"
    )


def test_a_file_no_importer_knows_keeps_the_store_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello, I am neither SQLite nor a trace")
    assert not_a_database_message(notes) is None
    code, _, err = run("list", str(notes))
    assert code == 2
    assert err.strip() == f"Error: {notes}: is not an SQLite database (no 'SQLite format 3' header)"


@pytest.mark.parametrize("args", [["import", "{traces}", "-o", "{notes}"],
                                  ["whatif", "{samples}", "budget-8k", "--save", "{notes}"]])
def test_writing_into_a_file_that_is_no_database_says_it_is_left_as_it_is(tmp_path: Path, args: list[str]) -> None:
    """New user (wt-nu): `import t.jsonl -o notes.txt` said only "is not an SQLite database": was it
    overwritten, and what to give instead?"""
    notes = tmp_path / "notes.txt"
    notes.write_text("hello, I am neither SQLite nor a trace")
    samples = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    code, out, err = run(*(a.format(traces=JSONL, notes=notes, samples=samples) for a in args))
    # bad input (2), as `list notes.txt` says (review R8: it was 1, a failed write)
    assert (code, err.splitlines()[-1]) == (2, f"Error: {notes}: is not an SQLite database (no 'SQLite format 3' "
                                               "header); it is never overwritten: give a trace database or a new file")
    assert notes.read_text() == "hello, I am neither SQLite nor a trace"


def test_the_store_error_carries_the_hint_for_every_surface(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The window's File > Open and the other commands (check, diff) open through one function and
    get the same words; the store itself only says it is no SQLite database (it knows no importer)."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(JSONL, "traces.jsonl")
    with pytest.raises(NotADatabaseError) as bare:
        TraceStore.open("traces.jsonl")
    assert bare.value.problem == "is not an SQLite database (no 'SQLite format 3' header)"
    with pytest.raises(StoreError) as info:
        open_store("traces.jsonl")
    assert str(info.value).endswith("format 'native'. Import it with: ctxviewer import traces.jsonl -o traces.db")
    code, _, err = run("diff", "traces.jsonl", "a", "b")
    assert (code, "Import it with: ctxviewer import traces.jsonl -o traces.db" in err) == (2, True)


def test_suggested_database_and_quoting(tmp_path: Path) -> None:
    assert suggested_database("spans.otlp.json") == "spans.db"
    assert suggested_database("x/traces.jsonl") == "x/traces.db"
    odd = tmp_path / "my traces.jsonl"
    shutil.copy(JSONL, odd)
    hint = not_a_database_message(odd)
    assert hint is not None
    assert hint.endswith(f"Import it with: ctxviewer import '{odd}' -o '{tmp_path / 'my traces.db'}'")


def test_the_suggested_import_command_names_a_hostile_file_name_exactly(tmp_path: Path) -> None:
    """newuser s5 #13: the command showed the name revealed (␛, ⟨RLO⟩, ⏎): visible, but naming a
    file that does not exist. Now: bash's $'...' with escapes -- visible and exact."""
    import subprocess

    from factories import make_trace

    from ctxviewer.importers.formats.native import trace_line
    from ctxviewer.util.file_kind import shell_word

    name = "evil\x1b[31m\u202egol.jsonl\nnew"
    assert shell_word(name) == "$'evil\\x1b[31m\\u202egol.jsonl\\nnew'"
    assert shell_word("it's ok.jsonl") == "'it'\"'\"'s ok.jsonl'"  # all visible: shlex.quote
    assert shell_word("a'\x07\\b") == "$'a\\'\\x07\\\\b'"
    assert shell_word("sh\xadyphen") == "$'sh\\u00adyphen'"  # U+00AD as UTF-8, not the lone byte AD
    assert shell_word("bad\udcffbyte") == "$'bad\\xffbyte'"  # the byte FF of a name that is not UTF-8
    for word in (name, "a'\x07\\b", "tab\there", "zw\u200bsp", "\U000e0041tag", "sh\xadyphen", "c1\x85x",
                 "\\1f hex after a backslash"):
        echoed = subprocess.run(["bash", "-c", f"printf %s {shell_word(word)}"], capture_output=True, check=True)
        assert echoed.stdout.decode() == word
    echoed = subprocess.run(["bash", "-c", f"printf %s {shell_word('bad' + chr(0xDCFF) + 'byte')}"],
                            capture_output=True, check=True)
    assert echoed.stdout == b"bad\xffbyte"
    p = tmp_path / name
    p.write_text(trace_line(make_trace()) + "\n")
    message = not_a_database_message(p)
    assert message is not None and message.endswith(
        f"Import it with: ctxviewer import $'{tmp_path}/evil\\x1b[31m\\u202egol.jsonl\\nnew' "
        f"-o $'{tmp_path}/evil\\x1b[31m\\u202egol.db'")
