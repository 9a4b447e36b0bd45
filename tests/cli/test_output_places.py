"""Where a command may write (the new user's F-SHOT-*, F-EXIT-INCONS, F-RO-1): an output in a folder
that does not exist is the same usage error (exit status 2) naming the folder for every command; an
empty ``-o ''`` says so; ``screenshot -o`` follows the rule of every ``-o`` (never overwrites, no
``-`` file, a suffix it cannot write and ``--scale nan`` refused before rendering); adding to an
existing database in a folder that is not writable says the folder is not writable."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
TRACES = ROOT / "sample_traces" / "traces.jsonl"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def last_line(err: str) -> str:
    return err.splitlines()[-1]


@pytest.mark.parametrize(("args", "option"), [
    (["import", str(TRACES), "-o", "{out}"], "'-o' / '--output'"),
    (["whatif", str(SAMPLES), "budget-8k", "--save", "{out}"], "'--save'"),
    (["upgrade", str(SAMPLES), "-o", "{out}"], "'-o' / '--output'"),
    (["export", str(SAMPLES), "-o", "{out}"], "'-o' / '--output'"),
    (["report", str(SAMPLES), "budget-8k", "-o", "{out}"], "'-o' / '--output'"),
    (["check", str(SAMPLES), "-o", "{out}"], "'-o' / '--output'"),
    (["screenshot", str(SAMPLES), "budget-8k", "-o", "{out}"], "'-o' / '--output'"),
])
def test_an_output_in_a_missing_folder_is_one_usage_error_naming_the_folder(
        tmp_path: Path, args: list[str], option: str) -> None:
    folder = tmp_path / "nodir" / "sub"
    out = folder / "a.png"  # a name every command takes (screenshot: an image suffix)
    code, stdout, err = run(*(a.format(out=out) for a in args))
    assert (code, stdout, last_line(err)) == (
        2, "", f"Error: Invalid value for {option}: {out}: folder {folder} does not exist")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["export", "import"])
def test_an_empty_output_name_is_named_as_one(command: str) -> None:
    args = ["export", str(SAMPLES), "-o", ""] if command == "export" else ["import", str(TRACES), "-o", ""]
    code, _, err = run(*args)
    expected = "an empty file name; name a file (or '-' for standard output)" if command == "export" \
        else "an empty file name"
    assert (code, last_line(err)) == (2, f"Error: Invalid value for '-o' / '--output': {expected}")


def test_screenshot_to_a_dash_is_refused_and_creates_no_file(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run("screenshot", str(SAMPLES), "budget-8k", "-o", "-")
    assert (code, out, last_line(err)) == (
        2, "", "Error: Invalid value for '-o' / '--output': -: screenshot writes an image file, not standard "
               "output; name a file, e.g. -o shot.png")
    assert list(tmp_path.iterdir()) == []


def test_screenshot_never_overwrites_an_existing_file(tmp_path: Path) -> None:
    keep = tmp_path / "keep.png"
    keep.write_text("hello\n")
    code, _, err = run("screenshot", str(SAMPLES), "budget-8k", "-o", str(keep))
    assert (code, last_line(err)) == (
        2, f"Error: Invalid value for '-o' / '--output': {keep}: already exists; it is never overwritten; "
           "choose a new file name (or remove the old file first)")
    assert keep.read_text() == "hello\n"


def test_screenshot_to_a_suffix_it_cannot_write_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run("screenshot", str(SAMPLES), "budget-8k", "-o", str(tmp_path / "out.txt"))
    assert (code, last_line(err)) == (
        2, f"Error: Invalid value for '-o' / '--output': {tmp_path / 'out.txt'}: unsupported image type '.txt'; "
           "use .png, .jpg or .bmp")


@pytest.mark.parametrize(("scale", "shown"), [("nan", "nan"), ("inf", "inf"), ("0", "0.0"), ("100", "100.0")])
def test_screenshot_scale_outside_its_range_is_refused(tmp_path: Path, scale: str, shown: str) -> None:
    code, _, err = run("screenshot", str(SAMPLES), "budget-8k", "-o", str(tmp_path / "s.png"), "--scale", scale)
    assert (code, last_line(err)) == (2, f"Error: Invalid value for '--scale': {shown} is not in the range 0.25<=x<=4.0.")
    assert list(tmp_path.iterdir()) == []


def test_adding_to_a_database_in_a_folder_that_is_not_writable_says_so(tmp_path: Path, monkeypatch: Any) -> None:
    """SQLite needs the folder for its journal even when the file is writable. Root passes permission
    checks, so the read-only folder is simulated where the store asks (os.access)."""
    ro = tmp_path / "rodir"
    ro.mkdir()
    db = ro / "full.db"
    assert run("import", str(TRACES), "-o", str(db))[0] == 0
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == ro and mode == os.W_OK
                        else real(p, mode))
    code, out, err = run("import", str(TRACES), "-o", str(db))
    assert (code, out, err) == (
        1, "", f"Error: {db}: cannot add traces: folder {ro} is not writable (read-only file system or no permission)\n")


def _folder_not_writable(monkeypatch: Any, folder: Path) -> None:
    """Root passes permission checks: the folder's refusal is simulated where the guard asks."""
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == folder and mode == os.W_OK
                        else real(p, mode))


@pytest.mark.parametrize("args", [
    ["export", str(SAMPLES), "-o", "{out}.json"],
    ["report", str(SAMPLES), "budget-8k", "-o", "{out}.html"],
    ["check", str(SAMPLES), "--format", "sarif", "-o", "{out}.sarif"],
    ["screenshot", str(SAMPLES), "budget-8k", "-o", "{out}.png"],
])
def test_an_output_in_a_folder_that_is_not_writable_is_refused_before_the_work(
        tmp_path: Path, monkeypatch: Any, args: list[str]) -> None:
    """New user (wt-nu): screenshot rendered the window first and then said "cannot write the image
    (does the folder exist and is it writable?)"; now every -o says which, exit status 1, before rendering."""
    ro = tmp_path / "rodir"
    ro.mkdir()
    _folder_not_writable(monkeypatch, ro)
    argv = [a.format(out=ro / "out") for a in args]
    code, out, err = run(*argv)
    assert (code, out, err) == (
        1, "", f"Error: {argv[-1]}: cannot write: folder {ro} is not writable (read-only file system or no permission)\n")
    assert list(ro.iterdir()) == []


def test_an_output_under_a_file_names_the_file_not_a_missing_folder(tmp_path: Path) -> None:
    """'folder F does not exist' was false when F is a file."""
    (tmp_path / "afile").write_text("x\n")
    out = tmp_path / "afile" / "x.json"
    code, _, err = run("export", str(SAMPLES), "-o", str(out))
    assert (code, last_line(err)) == (
        2, f"Error: Invalid value for '-o' / '--output': {out}: {tmp_path / 'afile'} is not a folder")


@pytest.mark.parametrize(("error", "expected"), [
    (PermissionError(13, "Permission denied"), "cannot write the image: folder {folder} is not writable "
                                               "(Permission denied)"),
    (OSError(28, "No space left on device"), "cannot write the image (No space left on device)"),
])
def test_screenshot_whose_write_fails_says_why_in_one_line(tmp_path: Path, monkeypatch: Any, error: OSError,
                                                          expected: str) -> None:
    """The folder can refuse after the check, or the disk fill up: one line from the errno, exit status 1."""
    pytest.importorskip("PySide6")
    import ctxviewer.gui.screenshot as screenshot

    def refuse(out: Path, data: bytes) -> None:
        assert data.startswith(b"\x89PNG")
        raise error

    monkeypatch.setattr(screenshot, "_write_new", refuse)
    out = tmp_path / "shot.png"
    code, stdout, err = run("screenshot", str(SAMPLES), "budget-8k", "-o", str(out))
    assert (code, stdout, err) == (1, "", f"Error: {out}: {expected.format(folder=tmp_path)}\n")
    assert list(tmp_path.iterdir()) == []


def test_screenshot_write_leaves_no_half_image(tmp_path: Path, monkeypatch: Any) -> None:
    pytest.importorskip("PySide6")
    from ctxviewer.gui.screenshot import _write_new

    class Full:
        def __init__(self, fh: Any) -> None:
            self.fh = fh

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def write(self, data: bytes) -> None:
            self.fh.write(data[:10])
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            self.fh.close()

    real_open = open
    monkeypatch.setattr("builtins.open", lambda p, mode="r", *a, **kw: Full(real_open(p, mode)))
    with pytest.raises(OSError, match="No space left on device"):
        _write_new(tmp_path / "s.png", b"x" * 100)
    assert list(tmp_path.iterdir()) == []
