"""Is an open SQLite file a ctxviewer trace database of this schema? :func:`inspect` reads its
version and tables, :func:`check_schema` decides (another program's database, a newer or an older
schema, a pre-release one missing steps, a corrupt one). Run before a store trusts a file; only
reads. No Qt here.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ctxviewer.store.errors import OldSchemaError, StoreError, WrongDatabaseError
from ctxviewer.store.migrations import MIGRATION_SET, MIGRATIONS_TABLE, SCHEMA_VERSION, STEPS, TABLES
from ctxviewer.util.sqlite_errors import SQLITE_FAILURES, is_busy_error, is_corrupt_error, sqlite_message


def inspect(conn: sqlite3.Connection, path: Path) -> tuple[int, set[str]]:
    """``(user_version, table names)`` of an open database; :class:`StoreError` if unreadable
    (also when SQLite's message about it is not UTF-8, :data:`SQLITE_FAILURES`)."""
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except SQLITE_FAILURES as exc:
        if isinstance(exc, sqlite3.Error) and is_busy_error(exc):
            raise StoreError(path, "is being written by another import and stayed locked; try again "
                                   "when it has finished") from None
        journal = Path(f"{path}-journal")
        if journal.exists() and journal.stat().st_size > 0:
            raise StoreError(
                path,
                f"has an unfinished write ({journal.name} is present); open it once for writing "
                "(e.g. `ctxviewer import` into it) to roll the write back, then view it",
            ) from None
        what = "is corrupt" if is_corrupt_error(exc) else "is corrupt or not a database"
        raise WrongDatabaseError(path, f"{what}: {sqlite_message(exc)}") from None  # bad input, not a failed write
    return int(version), names


def check_schema(conn: sqlite3.Connection, path: Path, *, writable: bool, upgrade: bool = True) -> int:
    """Validate the schema of an open database and return its ``user_version``.

    Raises :class:`StoreError` when the file is not a ctxviewer database (missing tables; checked
    before the version, since other programs set ``user_version`` too), has a negative version (a
    damaged header: "is corrupt"), was written by a newer
    ctxviewer, or (read-only) is an older schema that needs upgrading. A writable database with
    version 0 and no tables at all is accepted: :func:`~ctxviewer.store.migrate.migrate` builds it.
    A writable database of an older schema is accepted only with ``upgrade`` (the upgraded copy of
    :func:`ctxviewer.store.upgrade_copy`); without it :class:`OldSchemaError` (``writing=True``).
    """
    version, names = inspect(conn, path)
    user_tables = {n for n in names if not n.startswith("sqlite_")}
    if version == 0:
        if writable and not user_tables:
            return 0
        if not user_tables:
            raise WrongDatabaseError(path, "is an empty SQLite database, not a ctxviewer trace database")
        raise WrongDatabaseError(
            path,
            "is an SQLite database but not a ctxviewer trace database "
            f"(tables: {', '.join(sorted(user_tables))})",
        )
    missing = [t for t in TABLES if t not in names]
    # The table check comes first: another program's database may set user_version too. A newer
    # ctxviewer may have reshaped its tables, but it still records its migration set.
    if missing and not (version > SCHEMA_VERSION and _has_ctxviewer_migrations(conn, names)):
        raise WrongDatabaseError(path, f"is not a ctxviewer trace database (missing tables: {', '.join(missing)})")
    if version < 0:  # bytes 60-63 of the header, damaged: "an older schema (-1)" would be false
        raise WrongDatabaseError(path, f"is corrupt: its schema version (PRAGMA user_version, bytes 60-63 of the header) "
                               f"reads {version}, which no ctxviewer writes")
    if version > SCHEMA_VERSION:
        raise WrongDatabaseError(
            path,
            f"was written by a newer ctxviewer (schema {version}; this version reads up to "
            f"{SCHEMA_VERSION}); upgrade ctxviewer to open it",
        )
    if version < SCHEMA_VERSION and not (writable and upgrade):
        raise OldSchemaError(path, version, writing=writable)
    steps = _missing_steps(conn, names)
    if steps and not (writable and upgrade):  # a pre-release database of this version
        raise OldSchemaError(path, version, steps, writing=writable)
    try:
        conn.execute("SELECT trace_id FROM traces NOT INDEXED LIMIT 1").fetchall()  # the table, not whichever index the planner picks
    except SQLITE_FAILURES as exc:
        raise WrongDatabaseError(path, f"is corrupt: {sqlite_message(exc)}") from None  # bad input, not a failed write
    return version


def _missing_steps(conn: sqlite3.Connection, names: set[str]) -> tuple[str, ...]:
    """Names of :data:`STEPS` not recorded in ``_sqlite_migrations`` (``()`` when the database
    does not record its steps at all)."""
    if MIGRATIONS_TABLE not in names:
        return ()
    try:
        done = {r[0] for r in conn.execute(
            f"SELECT name FROM {MIGRATIONS_TABLE} WHERE migration_set = ?", (MIGRATION_SET,))}
    except SQLITE_FAILURES:
        return ()
    return tuple(name for _, name in STEPS if name not in done)


def _has_ctxviewer_migrations(conn: sqlite3.Connection, names: set[str]) -> bool:
    """True when ``_sqlite_migrations`` records at least one step of the ``ctxviewer`` set."""
    if MIGRATIONS_TABLE not in names:
        return False
    try:
        row = conn.execute(
            f"SELECT 1 FROM {MIGRATIONS_TABLE} WHERE migration_set = ? LIMIT 1", (MIGRATION_SET,)
        ).fetchone()
    except SQLITE_FAILURES:
        return False
    return row is not None
