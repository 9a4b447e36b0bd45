"""The review file's errors name the file and the real cause, and keep "cannot create / open /
write" apart from "not a ctxviewer review file". Tests run as root, where permission bits are not
enforced: a read-only folder or file is simulated where the code asks (``os.access``)."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.review import FindingKey, ReviewFile, ReviewVerdict
from ctxviewer.review.verdicts import ReviewFileError

KEY = FindingKey("t", "doc", "injection.override", 3, 9)


def _deny_write(monkeypatch: Any, *paths: Path) -> None:
    real = os.access
    denied = {Path(p) for p in paths}
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) in denied and mode & os.W_OK
                        else real(p, mode, **kw))


def _error(path: Path) -> str:
    with pytest.raises(ReviewFileError) as info:
        ReviewFile(path)
    return str(info.value)


def review_file_with_rows(path: Path, n: int = 50) -> Path:
    """A real review file with ``n`` reviews (32 KiB for 50)."""
    with ReviewFile(path) as rf:
        for i in range(n):
            rf.write(FindingKey(f"t{i}", "doc", "injection.override", i, i + 1), ReviewVerdict.CONFIRMED, "note " * 30)
    return path


def test_garbage_is_not_a_review_file(tmp_path: Path) -> None:
    bad = tmp_path / "s.review.sqlite"
    bad.write_text("garbage\n")
    assert _error(bad) == f"{bad}: not a ctxviewer review file (file is not a database)"
    assert bad.read_text() == "garbage\n"


def test_truncated_review_file_is_damaged(tmp_path: Path) -> None:
    path = review_file_with_rows(tmp_path / "s.review.sqlite")
    path.write_bytes(path.read_bytes()[:3000])
    assert _error(path) == f"{path}: the review file is damaged (database disk image is malformed)"
    assert path.stat().st_size == 3000


def test_a_directory_of_that_name_says_so(tmp_path: Path) -> None:
    d = tmp_path / "s.review.sqlite"
    d.mkdir()
    assert _error(d) == f"{d}: is a directory, not a ctxviewer review file"


def test_sqlite_file_with_other_tables_is_refused_and_not_written_into(tmp_path: Path) -> None:
    other = tmp_path / "s.review.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE notes (x)")
        conn.execute("CREATE TABLE people (y)")
        conn.commit()
    before = other.read_bytes()
    assert _error(other) == f"{other}: not a ctxviewer review file (it holds other tables: notes, people)"
    assert other.read_bytes() == before  # no reviews/meta table added to someone else's database


def test_reviews_table_of_another_shape_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "s.review.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE reviews (trace_id, item_id, rule, stars)")
        conn.commit()
    assert _error(other) == (f"{other}: not a ctxviewer review file (its reviews table has no span_start, span_end, "
                             "verdict, note, reviewed_at column)")


def test_verdict_no_ctxviewer_wrote_is_damaged(tmp_path: Path) -> None:
    path = review_file_with_rows(tmp_path / "s.review.sqlite", 1)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE reviews SET reviewed_at = 'yesterday'")
        conn.commit()
    with pytest.raises(ReviewFileError) as info:
        ReviewFile(path).all()
    assert str(info.value) == f"{path}: the review file is damaged (Invalid isoformat string: 'yesterday')"


def test_new_file_in_a_read_only_folder_cannot_be_created(tmp_path: Path, monkeypatch: Any) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    _deny_write(monkeypatch, ro)
    rf = ReviewFile(ro / "s.review.sqlite")  # opening a file that is not there yet is fine
    assert rf.all() == {}
    with pytest.raises(ReviewFileError) as info:
        rf.write(KEY, ReviewVerdict.CONFIRMED, "a note")
    assert str(info.value) == (f"{ro / 's.review.sqlite'}: cannot create the review file: folder {ro} is not writable "
                               "(verdicts cannot be saved there; give --review-file PATH to save them elsewhere)")
    assert info.value.path == ro / "s.review.sqlite"
    assert list(ro.iterdir()) == []


def test_relative_path_names_the_folder_as_given(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    Path("ro").mkdir()
    _deny_write(monkeypatch, Path("ro"))
    with pytest.raises(ReviewFileError) as info:
        ReviewFile("ro/s.review.sqlite").write(KEY, ReviewVerdict.CONFIRMED, "")
    assert str(info.value) == ("ro/s.review.sqlite: cannot create the review file: folder ro is not writable "
                               "(verdicts cannot be saved there; give --review-file PATH to save them elsewhere)")


def test_missing_folder(tmp_path: Path) -> None:
    path = tmp_path / "gone" / "s.review.sqlite"
    with pytest.raises(ReviewFileError) as info:
        ReviewFile(path).write(KEY, None, "n")
    assert str(info.value) == f"{path}: cannot create the review file: folder {tmp_path / 'gone'} does not exist"


def test_sqlite_refusing_to_create_leaves_no_file(tmp_path: Path, monkeypatch: Any) -> None:
    def refuse(*_a: Any, **_kw: Any) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite3, "connect", refuse)
    path = tmp_path / "s.review.sqlite"
    with pytest.raises(ReviewFileError) as info:
        ReviewFile(path).write(KEY, ReviewVerdict.CONFIRMED, "")
    assert str(info.value) == f"{path}: cannot create the review file (unable to open database file)"
    assert not path.exists()


def test_existing_read_only_file_is_read_but_not_written(tmp_path: Path, monkeypatch: Any) -> None:
    path = review_file_with_rows(tmp_path / "s.review.sqlite", 2)
    before = path.read_bytes()
    _deny_write(monkeypatch, path)
    rf = ReviewFile(path)
    assert len(rf.all()) == 2
    with pytest.raises(ReviewFileError) as info:
        rf.write(KEY, ReviewVerdict.CONFIRMED, "")
    assert str(info.value) == f"{path}: cannot save to the review file: the file is read-only (verdicts cannot be saved)"
    assert path.read_bytes() == before


def test_existing_file_in_a_read_only_folder_is_read_but_not_written(tmp_path: Path, monkeypatch: Any) -> None:
    path = review_file_with_rows(tmp_path / "s.review.sqlite", 2)
    _deny_write(monkeypatch, tmp_path)
    rf = ReviewFile(path)
    assert len(rf.all()) == 2
    with pytest.raises(ReviewFileError) as info:
        rf.write(KEY, ReviewVerdict.CONFIRMED, "")
    assert str(info.value) == (f"{path}: cannot save to the review file: folder {tmp_path} is not writable "
                               "(SQLite writes its journal there; verdicts cannot be saved)")


def test_opening_and_reading_never_write(tmp_path: Path) -> None:
    path = review_file_with_rows(tmp_path / "s.review.sqlite", 3)
    before = path.read_bytes()
    with ReviewFile(path) as rf:
        assert len(rf.all()) == 3
    assert path.read_bytes() == before
    empty = tmp_path / "e.review.sqlite"
    empty.write_bytes(b"")  # an empty file is an empty review file: its schema comes with the first verdict
    with ReviewFile(empty) as rf:
        assert rf.all() == {}
        assert empty.stat().st_size == 0
        review = rf.write(KEY, ReviewVerdict.FOLLOW_UP, "later")
    with ReviewFile(empty) as rf:
        assert rf.all() == {KEY: review}
