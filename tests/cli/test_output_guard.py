"""New-user report B.9/B.10 and A.3/A.8: the ``-o`` file of ``export``, ``report`` and ``check``
goes through one guard (:mod:`ctxviewer.cli.output_path`). The input database, any other SQLite
database and special files are refused as usage errors (exit 2) and left byte-for-byte unchanged;
a symlink is followed; ``-`` is standard output; a corrupt trace in ``check`` is one clean error."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
HINT = "Error: Invalid value for '-o' / '--output': "


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _src(tmp_path: Path) -> Path:
    src = tmp_path / "src.db"
    shutil.copyfile(SAMPLES, src)
    return src


COMMANDS = [("export",), ("report",), ("check", "--format", "sarif"), ("check", "--json"), ("check", "--format", "text")]


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: c[0])
def test_output_that_is_the_source_db_is_refused(tmp_path: Path, cmd: tuple[str, ...]) -> None:
    src = _src(tmp_path)
    before = _sha(src)
    code, out, err = run(cmd[0], str(src), *cmd[1:], "-o", str(src))
    assert (code, out) == (2, "")
    assert err.endswith(f"{HINT}{src}: is the input database {src}; it is never written; choose another file\n")
    assert _sha(src) == before and sorted(p.name for p in tmp_path.iterdir()) == ["src.db"]


def test_output_through_another_name_of_the_source_is_refused(tmp_path: Path) -> None:
    src = _src(tmp_path)
    alias = tmp_path / "alias.db"
    alias.symlink_to(src)
    before = _sha(src)
    code, _, err = run("export", str(alias), "-o", str(src))
    assert code == 2
    assert err.endswith(f"{HINT}{src}: is the input database {alias}; it is never written; choose another file\n")
    assert _sha(src) == before


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: c[0])
def test_output_that_is_another_sqlite_db_is_refused(tmp_path: Path, cmd: tuple[str, ...]) -> None:
    src = _src(tmp_path)
    other = tmp_path / "other.db"
    shutil.copyfile(SAMPLES, other)
    before = _sha(other)
    code, out, err = run(cmd[0], str(src), *cmd[1:], "-o", str(other))
    assert (code, out) == (2, "")
    assert err.endswith(f"{HINT}{other}: is an SQLite database; it is never overwritten; choose a new file name\n")
    assert _sha(other) == before


def test_output_to_a_fifo_is_refused_and_stays_a_fifo(tmp_path: Path) -> None:
    src = _src(tmp_path)
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    code, _, err = run("export", str(src), "-o", str(fifo))
    assert code == 2
    assert err.endswith(f"{HINT}{fifo}: is a FIFO (named pipe), not a regular file; choose a file "
                        "(or '-' for standard output)\n")
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["ff", "src.db"]


def test_output_to_a_device_is_refused(tmp_path: Path) -> None:
    src = _src(tmp_path)
    code, _, err = run("export", str(src), "-o", "/dev/null")
    assert code == 2
    assert err.endswith(f"{HINT}/dev/null: is a device, not a regular file; choose a file "
                        "(or '-' for standard output)\n")
    assert Path("/dev/null").is_char_device()


def test_output_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    # the link dangles: an existing target would be refused (s4 #8: no file is ever overwritten)
    src = _src(tmp_path)
    target = tmp_path / "t.json"
    link = tmp_path / "lnk.json"
    link.symlink_to(target.name)
    code, out, _ = run("export", str(src), "budget-8k", "-o", str(link))
    assert (code, out) == (0, f"exported 1 trace(s) from {src} to {link} (otlp)\n")
    assert link.is_symlink() and os.readlink(link) == "t.json"
    assert target.read_text().startswith('{"resourceSpans":')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lnk.json", "src.db", "t.json"]


def test_dash_writes_to_standard_output(tmp_path: Path) -> None:
    src = _src(tmp_path)
    code, out, err = run("export", str(src), "budget-8k", "-o", "-", "--format", "native")
    assert code == 0, err
    assert out.count("\n") == 1 and '"trace_id":"budget-8k"' in out.replace(" ", "")
    code, out, _ = run("check", str(src), "budget-8k", "--format", "sarif", "-o", "-")
    assert out.startswith("{") and '"version": "2.1.0"' in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.db"]


@pytest.mark.parametrize("fmt", [("--json",), ("--format", "json"), ("--format", "text"), ()], ids=" ".join)
def test_check_writes_its_output_file_in_every_format(tmp_path: Path, fmt: tuple[str, ...]) -> None:
    # newuser s3 finding 2: only sarif honoured -o; text and JSON went to standard output
    src = _src(tmp_path)
    _, printed, _ = run("check", str(src), *fmt)
    out = tmp_path / "out.txt"
    code, said, err = run("check", str(src), *fmt, "-o", str(out))
    kind = "JSON" if "json" in " ".join(fmt) else "text"
    assert (code, err) == (1, "")
    assert said == f"wrote {out}: {kind}, 9 trace(s) checked: 3 failure, 3 warning, 3 ok\n"
    assert out.read_text() == printed
    assert printed.startswith("[\n  {\n    \"trace_id\": \"history-16k\"" if kind == "JSON" else "history-16k: failure\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "src.db"]
    code, dashed, _ = run("check", str(src), *fmt, "-o", "-")
    assert (code, dashed) == (1, printed)


def test_export_into_a_read_only_folder_is_one_error(tmp_path: Path, monkeypatch) -> None:
    src = _src(tmp_path)
    (tmp_path / "ro").mkdir()  # the folder exists (a missing one is a usage error: test_output_places.py)
    real_open = open

    def ro_open(path, *a, **kw):  # tests run as root: simulate a read-only file system
        if str(path).startswith(str(tmp_path / "ro")):
            raise OSError(30, "Read-only file system")
        return real_open(path, *a, **kw)

    monkeypatch.setattr("builtins.open", ro_open)
    monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: (_ for _ in ()).throw(OSError(30, "Read-only file system")))
    code, out, err = run("export", str(src), "-o", str(tmp_path / "ro" / "a.json"))
    assert (code, out) == (1, "")
    assert err == (f"Error: {tmp_path / 'ro' / 'a.json'}: cannot write: folder {tmp_path / 'ro'} is not writable "
                   "(Read-only file system)\n")


def test_check_on_a_corrupt_page_names_the_db_and_trace(tmp_path: Path) -> None:
    bad = _src(tmp_path)
    data = bytearray(bad.read_bytes())
    for off in range(8192, len(data), 7 * 4096):  # the tester's corrupt2.db
        data[off:off + 204] = b"\x0d\xff\xff\xff" + b"\xab" * 200
    bad.write_bytes(bytes(data))
    before = _sha(bad)
    code, out, err = run("check", str(bad))
    assert code == 2
    assert "Traceback" not in err and err.count("\n") == 1
    # which record the damage hits depends on the page layout of samples.db (its content, its details, or
    # the traces index that load reads the record's columns from since schema 9)
    assert (err.startswith((f"Error: {bad}: cannot read content: ", f"Error: {bad}: cannot read trace "))
            and "(trace '" in err) or (err.startswith(f"Error: {bad}: is damaged (Page ")
                                       and "; trace 'history-16k' cannot be read back, so no findings" in err)
    assert _sha(bad) == before


def test_export_of_an_id_given_twice_writes_it_once_in_first_place_order(tmp_path: Path) -> None:
    # newuser s3 #8: 'export s.db budget-8k budget-8k' exported the span twice
    src = _src(tmp_path)
    out = tmp_path / "e.jsonl"
    code, said, err = run("export", str(src), "budget-8k", "history-16k", "budget-8k", "-o", str(out),
                          "--format", "native")
    assert (code, err) == (0, "")
    assert said == f"exported 2 trace(s) from {src} to {out} (native)\n"
    assert [json.loads(line)["trace_id"] for line in out.read_text().splitlines()] == ["budget-8k", "history-16k"]
