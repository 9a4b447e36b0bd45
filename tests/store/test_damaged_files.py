"""Damaged database files are one :class:`StoreError` naming the file and the damage, never a traceback.

A corrupt ``sqlite_master`` makes SQLite's own error message quote bytes that are not UTF-8, which
the sqlite3 module raises as ``UnicodeDecodeError`` (the new user's 200 random byte flips of
``samples.db``, and a minimal case: a table renamed to invalid UTF-8 through ``writable_schema``);
an invalid page size in the header is named as such, not as truncation.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from damaged import flipped_copy

from ctxviewer.store import StoreError, TraceStore, WrongDatabaseError, upgrade_copy
from ctxviewer.store.damage import find_damage

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"

FLIPPED = 'is corrupt: malformed database schema (details) - near "CRE\\x97TE": syntax error'
"""What the byte flips of :func:`damaged.flipped_copy` break in ``samples.db`` (its ``details`` DDL; the
flipped byte 0x97 shown as ``\\x97``)."""


def schema_edited(tmp_path: Path, sql: str, name: str = "bad.db") -> Path:
    """A copy of ``samples.db`` with ``sql`` run on ``sqlite_master`` under ``PRAGMA writable_schema``."""
    bad = tmp_path / name
    shutil.copyfile(SAMPLES, bad)
    with closing(sqlite3.connect(bad)) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(sql)
        conn.commit()
    return bad


NOT_UTF8_NAME = "UPDATE sqlite_master SET name = CAST(X'646574AA' AS TEXT) WHERE name = 'details'"
"""Renames the ``details`` table to ``det`` + byte 0xAA in ``sqlite_master`` (the DDL unchanged)."""


def test_random_byte_flips_in_the_schema_are_one_corrupt_error(tmp_path: Path) -> None:
    bad = flipped_copy(tmp_path)
    with pytest.raises(StoreError) as err:
        TraceStore.open(bad)
    assert str(err.value) == f"{bad}: {FLIPPED}"
    # a StoreError (what the window's open path catches), of the bad-input kind: import -o exits 2 for it
    assert type(err.value) is WrongDatabaseError


def test_a_table_name_that_is_not_utf8_is_one_corrupt_error(tmp_path: Path) -> None:
    bad = schema_edited(tmp_path, NOT_UTF8_NAME)
    with pytest.raises(StoreError) as err:
        TraceStore.open(bad)
    assert str(err.value) == f"{bad}: is corrupt: malformed database schema (det\\xaa)"


def test_a_malformed_schema_in_utf8_is_called_corrupt_too(tmp_path: Path) -> None:
    bad = schema_edited(tmp_path, "UPDATE sqlite_master SET sql = 'CREATE TABLE de' WHERE name = 'details'")
    with pytest.raises(StoreError) as err:
        TraceStore.open(bad)
    assert str(err.value) == f"{bad}: is corrupt: malformed database schema (details) - incomplete input"


def test_writing_into_or_upgrading_a_corrupt_schema_is_the_same_error(tmp_path: Path) -> None:
    bad = schema_edited(tmp_path, NOT_UTF8_NAME)
    before = bad.read_bytes()
    message = f"{bad}: is corrupt: malformed database schema (det\\xaa)"
    with pytest.raises(StoreError) as err:
        TraceStore.create(bad)
    assert str(err.value) == message
    with pytest.raises(StoreError) as err:
        upgrade_copy(bad, tmp_path / "up.db")
    assert str(err.value) == message
    assert not (tmp_path / "up.db").exists() and bad.read_bytes() == before


def test_find_damage_names_a_message_that_is_not_utf8(tmp_path: Path) -> None:
    bad = schema_edited(tmp_path, NOT_UTF8_NAME)
    with closing(sqlite3.connect(f"file:{bad}?mode=ro", uri=True)) as conn:
        assert find_damage(conn, seconds=None) == "malformed database schema (det\\xaa)"


def _with_page_size(tmp_path: Path, field: bytes) -> Path:
    db = tmp_path / f"ps-{field.hex()}.db"
    d = bytearray(SAMPLES.read_bytes())
    d[16:18] = field
    db.write_bytes(bytes(d))
    return db


@pytest.mark.parametrize(("field", "size"), [
    (b"\xff\xff", 65535), (b"\x00\x00", 0), (b"\x01\x00", 256), (b"\x03\x00", 768), (b"\x80\x01", 32769),
])
def test_an_invalid_page_size_is_named_not_called_truncation(tmp_path: Path, field: bytes, size: int) -> None:
    db = _with_page_size(tmp_path, field)
    with pytest.raises(StoreError) as err:
        TraceStore.open(db)
    assert str(err.value) == f"{db}: is corrupt: invalid page size {size} in its header"


@pytest.mark.parametrize(("field", "page_size"), [(b"\x00\x01", 65536), (b"\x20\x00", 8192)])
def test_a_valid_but_wrong_page_size_still_reads_as_truncation(tmp_path: Path, field: bytes, page_size: int) -> None:
    db = _with_page_size(tmp_path, field)
    size = SAMPLES.stat().st_size
    pages = int.from_bytes(SAMPLES.read_bytes()[28:32], "big")
    with pytest.raises(StoreError) as err:
        TraceStore.open(db)
    assert str(err.value) == f"{db}: is corrupt: truncated ({size} bytes; its header says {page_size * pages} bytes)"
