"""Files ctxviewer writes under a temporary name and renames (the upgraded copy, the marks file)
get the mode any new file gets, 0o666 less the umask -- not tempfile.mkstemp's 0o600 (new user,
seen by wt-nu: `upgrade` wrote -rw------- under umask 022 where export wrote -rw-r--r--)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxviewer.assess.marks import Mark, set_mark
from ctxviewer.store import upgrade_copy
from ctxviewer.util.new_file import create_unique

DATA = Path(__file__).resolve().parents[1] / "data" / "store"


@pytest.fixture(params=[0o022, 0o027, 0o077])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_upgraded_copy_has_the_umasks_mode(tmp_path: Path, umask: int) -> None:
    old = tmp_path / "old.db"
    old.write_bytes((DATA / "schema-1.db").read_bytes())
    upgrade_copy(old, tmp_path / "new.db")
    assert _mode(tmp_path / "new.db") == {0o022: 0o644, 0o027: 0o640, 0o077: 0o600}[umask]


def test_the_marks_file_has_the_umasks_mode(tmp_path: Path, umask: int) -> None:
    path = set_mark(tmp_path / "t.db", "budget-8k", Mark(row=4))
    assert path == tmp_path / "t.db.marks.json"
    assert _mode(path) == {0o022: 0o644, 0o027: 0o640, 0o077: 0o600}[umask]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db.marks.json"]  # no temporary left


def test_create_unique_never_takes_an_existing_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxviewer.util.new_file as new_file

    suffixes = iter(["a" * 16, "a" * 16, "b" * 16])
    monkeypatch.setattr(new_file.secrets, "token_hex", lambda _n: next(suffixes))
    (tmp_path / f".x-{'a' * 16}.tmp").write_text("kept")
    made = create_unique(tmp_path, ".x-", ".tmp")
    assert made == tmp_path / f".x-{'b' * 16}.tmp"
    assert made.read_bytes() == b""
    assert (tmp_path / f".x-{'a' * 16}.tmp").read_text() == "kept"
