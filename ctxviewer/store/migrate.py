"""The migration runner: :func:`migrate` applies the pending schema steps
(:mod:`ctxviewer.store.migrations`) to a database being written, all in one transaction. No Qt here.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ctxviewer.store.errors import READ_ONLY, StoreError, WrongDatabaseError
from ctxviewer.store.migrations import SCHEMA_VERSION, migrations
from ctxviewer.util.sqlite_errors import SQLITE_FAILURES, is_corrupt_error, is_readonly_error, sqlite_message

if TYPE_CHECKING:  # sqlite-utils only when a database is written
    from sqlite_utils import Database


def migrate(db: Database, path: Path, progress: Callable[[str], None] | None = None) -> int:
    """Apply every pending step and set ``user_version`` to :data:`SCHEMA_VERSION`, all in one
    ``BEGIN IMMEDIATE`` transaction (each step a savepoint in it): the file goes from its old
    schema to the current one or, when interrupted, stays as it was -- never a step committed with
    ``user_version`` unchanged. ``BEGIN IMMEDIATE`` waits (the connection's busy timeout) while
    another process creates or migrates the same file, and the pending steps are read after it, so
    two imports started together into a new file build its schema once.

    ``progress`` gets one line per step applied (``"schema step 3 of 8: m007_traces_facts"``).
    Returns the number of steps applied. Raises :class:`StoreError` if SQLite refuses a step (e.g. a
    corrupt file; a read-only file gets the :data:`READ_ONLY` problem, a lock held longer than the
    busy timeout says the database is locked).
    """
    conn = db.conn
    try:
        if not migrations().pending(db) and db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return 0  # a current database: no lock taken (an import's own wait says when another writes)
        conn.execute("BEGIN IMMEDIATE")
        try:
            pending = migrations().pending(db)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if not pending and version == SCHEMA_VERSION:
                conn.execute("ROLLBACK")  # nothing to do: an up-to-date database keeps its bytes and mtime
                return 0
            names = [m.name for m in pending]
            for n, name in enumerate(names, 1):
                if progress is not None:
                    progress(f"schema step {n} of {len(names)}: {name}")
                migrations().apply(db, stop_before=names[n:])
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except SQLITE_FAILURES as exc:
        if isinstance(exc, sqlite3.Error) and is_readonly_error(exc):
            raise StoreError(path, READ_ONLY) from None
        if is_corrupt_error(exc):  # the file is damaged: bad input (exit 2), whatever step met it
            raise WrongDatabaseError(path, f"is corrupt: {sqlite_message(exc)}") from None
        what = "cannot create the schema" if _version_or_zero(conn) == 0 else "cannot upgrade the schema"
        raise StoreError(path, f"{what}: {sqlite_message(exc)}") from None
    return len(pending)


def _version_or_zero(conn: sqlite3.Connection) -> int:
    """``PRAGMA user_version`` of ``conn``, 0 when it cannot be read."""
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    except (sqlite3.Error, UnicodeDecodeError):
        return 0
