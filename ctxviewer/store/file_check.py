"""What a file's first bytes say before SQLite touches it: :func:`check_file` (is it an intact
SQLite 3 file at all: header, page size, truncation) and :func:`read_only_query` (how to open it
for reading without writing anything beside it). Reads only the 100-byte header. No Qt here.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxviewer.store.errors import NotADatabaseError, StoreError, WrongDatabaseError
from ctxviewer.util.file_kind import special_kind

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite 3 database file."""


def read_only_query(path: Path) -> str:
    """The SQLite URI query that opens ``path`` for reading without writing anything beside it:
    ``mode=ro`` for a rollback-journal database (ctxviewer's); for a WAL-mode one (written by
    another tool) ``immutable=1`` when no ``-wal`` file is beside it (nothing to replay, and no
    ``-shm`` to create: it opens in a read-only folder too), else ``mode=ro``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except OSError:
        return "mode=ro"
    wal = len(head) >= 20 and head[18] == 2 and head[19] == 2
    if wal and not os.path.exists(f"{path}-wal"):
        return "mode=ro&immutable=1"
    return "mode=ro"


def check_file(path: Path, *, must_exist: bool) -> bool:
    """Check ``path`` before SQLite touches it. Returns True if it exists with content.

    Reads only the 100-byte header. Raises :class:`StoreError` for a missing file (when
    ``must_exist``), a directory, a file that is not SQLite 3, one whose header gives an invalid page
    size (checked first: the size it implies would be wrong too), or one shorter than its header
    says (truncated). An empty (0-byte) file counts as absent for
    :func:`~ctxviewer.store.migrate.migrate` and as "not a ctxviewer database" when ``must_exist``.
    """
    if not path.exists():
        if must_exist:
            raise StoreError(path, "no such file")
        return False
    if path.is_dir():
        raise StoreError(path, "is a directory, not a trace database")
    try:
        st = path.stat()
    except OSError as exc:
        raise StoreError(path, f"cannot read file: {exc.strerror or exc}") from None
    kind = special_kind(st.st_mode)
    if kind is not None:  # a FIFO would block the read below forever; /dev/zero is not "empty"
        raise StoreError(path, f"is {kind}, not a regular file; a trace database is a file")
    try:
        size = st.st_size
        with open(path, "rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise StoreError(path, f"cannot read file: {exc.strerror or exc}") from None
    if size == 0:
        if must_exist:
            raise StoreError(path, "is an empty file, not a ctxviewer trace database")
        return False
    if not head.startswith(SQLITE_HEADER):
        raise NotADatabaseError(path)
    if len(head) < 100:
        raise WrongDatabaseError(path, f"is corrupt: truncated SQLite header ({size} bytes)")
    page_size = int.from_bytes(head[16:18], "big")
    if not (page_size == 1 or (512 <= page_size <= 32768 and page_size & (page_size - 1) == 0)):
        raise WrongDatabaseError(path, f"is corrupt: invalid page size {page_size} in its header")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    header_valid = head[24:28] == head[92:96] and pages > 0
    if header_valid and not os.path.exists(f"{path}-wal") and size < page_size * pages:
        raise WrongDatabaseError(
            path, f"is corrupt: truncated ({size} bytes; its header says {page_size * pages} bytes)"
        )
    return True
