"""Schema of the trace database, its migrations, and the checks run before a file is trusted.

The schema is built by named migration steps (``sqlite_utils.Migrations``, set ``"ctxviewer"``,
built by :func:`migrations` when a database is written: reading needs only ``sqlite3``);
the applied step names are recorded in ``_sqlite_migrations`` and the schema version reached is
kept in ``PRAGMA user_version``. Each schema version is a group of steps: to change the schema,
append new steps to :data:`STEPS` under ``SCHEMA_VERSION + 1`` and bump :data:`SCHEMA_VERSION`.
Steps are never edited once released; a database at version N gets the steps of N+1.. applied.

The tables themselves are documented in the package docstring (:mod:`ctxviewer.store`).
No Qt here.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ctxviewer.util.file_kind import special_kind
from ctxviewer.util.sqlite_errors import (
    SQLITE_FAILURES,
    is_busy_error,
    is_corrupt_error,
    is_readonly_error,
    sqlite_message,
)

if TYPE_CHECKING:  # sqlite-utils (and the numpy it may pull in) only when a database is written
    from sqlite_utils import Database, Migrations

SCHEMA_VERSION = 6
"""Highest schema version this ctxviewer reads and writes (``PRAGMA user_version``)."""

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite 3 database file."""

TABLES = ("traces", "blobs", "items", "details", "token_counts")
"""The tables every ctxviewer database (schema >= 1) holds."""


READ_ONLY = "the file is read-only; cannot import into it"
""":class:`StoreError` problem for a database the user cannot write (file mode or SQLite refusal)."""


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


class StoreError(Exception):
    """A trace database cannot be opened or written. The message names the file and the problem."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


class NotADatabaseError(StoreError):
    """The file is not an SQLite database at all (no ``SQLite format 3`` header): often a trace
    *file* given where a database was expected. The front ends say what it looks like and how to
    import it (:func:`ctxviewer.pipeline.hints.open_store`)."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(path, "is not an SQLite database (no 'SQLite format 3' header)")


class OldSchemaError(StoreError):
    """A database of an older schema was opened read-only, or given to a command that writes into
    it (``import -o``, ``whatif --save``): it is never upgraded in place. The message offers
    ``ctxviewer upgrade`` (an upgraded copy, :func:`ctxviewer.store.upgrade_copy`); ``writing`` says
    which case (the wording differs: "is opened read-only" or "is not written into")."""

    def __init__(self, path: Path | str, version: int, missing: tuple[str, ...] = (), *,
                 writing: bool = False) -> None:
        what = (f"uses an older schema ({version}; current {SCHEMA_VERSION})" if version < SCHEMA_VERSION
                else f"lacks schema steps of this ctxviewer ({', '.join(missing)})")
        if writing:
            problem = (f"{what}, so it is not written into (it is never upgraded in place); write an "
                       f"upgraded copy with `ctxviewer upgrade {path} -o NEW.db` and use that")
        else:
            problem = (f"{what} and is opened read-only, so it is not upgraded in place; write an upgraded "
                       f"copy with `ctxviewer upgrade {path} -o NEW.db` and open that")
        super().__init__(path, problem)
        self.version = version
        self.missing = missing


MIGRATION_SET = "ctxviewer"
"""Name of ctxviewer's migration set in ``_sqlite_migrations``."""
MIGRATIONS_TABLE = "_sqlite_migrations"
"""sqlite-utils' table of applied steps (``Migrations.migrations_table``)."""

STEPS: list[tuple[int, str]] = []
"""``(schema version, step name)`` for every step, in application order."""

_STEP_FNS: list[Callable[[Database], None]] = []
_MIGRATIONS: list[Migrations] = []


def migrations() -> Migrations:
    """The named schema steps as one ``sqlite_utils.Migrations`` set, applied in order by
    :func:`migrate` (built on first use, so opening a database read-only never imports sqlite-utils)."""
    if not _MIGRATIONS:
        from sqlite_utils import Migrations

        m = Migrations(MIGRATION_SET)
        for fn in _STEP_FNS:
            m()(fn)
        _MIGRATIONS.append(m)
    return _MIGRATIONS[0]


def _step(version: int) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
    def deco(fn: Callable[[Database], None]) -> Callable[[Database], None]:
        STEPS.append((version, fn.__name__))
        _STEP_FNS.append(fn)
        return fn

    return deco


# ------------------------------------------------------------------ schema version 1


@_step(1)
def m001_create_traces(db: Database) -> None:
    """The narrow trace table the list view pages through, with its listing indexes."""
    t = db.table("traces")
    t.create(
        {
            "trace_id": str,
            "created": str,
            "service": str,
            "provider": str,
            "model": str,
            "capacity": int,
            "input_tokens": int,
            "reserved_output_tokens": int,
            "retained_count": int,
            "omitted_count": int,
            "replay_of": str,
            "source_format": str,
        },
        pk="trace_id",
        not_null=["retained_count", "omitted_count"],
    )
    for col in ("created", "model", "input_tokens"):
        t.create_index([col, "trace_id"], index_name=f"idx_traces_{col}")
    t.create_index(["replay_of"], index_name="idx_traces_replay_of")


@_step(1)
def m002_create_blobs(db: Database) -> None:
    """Content-addressed text: every item text and serialized request is stored once."""
    db.table("blobs").create({"hash": str, "text": str, "bytes": int}, pk="hash", not_null=["text"])


@_step(1)
def m003_create_items(db: Database) -> None:
    """One row per context item, in final order, referencing its content in ``blobs``."""
    db.table("items").create(
        {
            "trace_id": str,
            "ordinal": int,
            "item_id": str,
            "kind": str,
            "status": str,
            "position": int,
            "priority": float,
            "trust": str,
            "tokens": int,
            "omission_reason": str,
            "role": str,
            "source": str,
            "content_hash": str,
        },
        pk=("trace_id", "ordinal"),
        not_null=["item_id", "kind", "status", "trust"],
    )
    db.table("items").create_index(["content_hash"], index_name="idx_items_content_hash")


@_step(1)
def m004_create_details(db: Database) -> None:
    """The rest of each trace as JSON, read only when that trace is selected."""
    db.table("details").create({"trace_id": str, "json": str, "request_hash": str}, pk="trace_id", not_null=["json"])


@_step(1)
def m005_create_token_counts(db: Database) -> None:
    """Cache of token counts per (content hash, encoding)."""
    db.table("token_counts").create(
        {"content_hash": str, "encoding": str, "tokens": int},
        pk=("content_hash", "encoding"),
        not_null=["tokens"],
    )


# ------------------------------------------------------------------ schema version 2


@_step(2)
def m006_items_token_provenance(db: Database) -> None:
    """Where each item's token count came from: ``tokens_source`` (``recorded``, ``reported`` or
    ``counted``) and ``tokens_encoding`` (the tiktoken encoding of the count). Rows of schema 1
    keep NULL (provenance not recorded)."""
    items = db.table("items")
    items.add_column("tokens_source", str)
    items.add_column("tokens_encoding", str)


@_step(2)
def m007_traces_facts(db: Database) -> None:
    """Facts known at import on each trace row (:mod:`ctxviewer.store.facts`): whether omissions
    are recorded, the eq. 3.1 margin and fit, the state, the worst finding's rule and severity and
    the verdict in words. The step only adds the columns (NULL: "not recorded"); ``upgrade`` then
    back-fills them by assessing every trace (:mod:`ctxviewer.pipeline.backfill`), so this step's
    result never depends on today's checks."""
    traces = db.table("traces")
    for col, kind in (("omissions_recorded", int), ("margin", int), ("fits", int), ("state", str),
                      ("worst_rule", str), ("worst_severity", str), ("verdict", str)):
        traces.add_column(col, kind)
    traces.create_index(["state", "trace_id"], index_name="idx_traces_state")


# ------------------------------------------------------------------ schema version 3


@_step(3)
def m008_filter_columns(db: Database) -> None:
    """What display filters (:mod:`ctxviewer.store.filters`) read: ``traces.session_id`` (the
    conversation, back-filled from ``details``) and a narrow one-column index per filtered
    column (:data:`FILTER_INDEXED`), then ``ANALYZE`` so the planner knows which index narrows a filter most."""
    traces = db.table("traces")
    traces.add_column("session_id", str)
    db.execute("UPDATE traces SET session_id = (SELECT json_extract(d.json, '$.session_id') FROM details d "
               "WHERE d.trace_id = traces.trace_id)")
    for col in FILTER_INDEXED:
        traces.create_index([col], index_name=f"idx_traces_{col}", if_not_exists=True)
    db.execute("ANALYZE")


@_step(3)
def m009_trace_findings(db: Database) -> None:
    """``trace_findings``: each finding rule of each trace (the ``finding`` filter field), with an
    index by rule; filled by ``upgrade``'s back-fill (:mod:`ctxviewer.pipeline.backfill`)."""
    db.execute(TRACE_FINDINGS_SQL)
    db.execute("CREATE INDEX IF NOT EXISTS idx_trace_findings_rule ON trace_findings (rule, trace_id)")


@_step(3)
def m010_content_fts(db: Database) -> None:
    """The full-text index of item content (:mod:`ctxviewer.store.fts`), built from the stored
    item texts."""
    from ctxviewer.store import fts

    db.execute(fts.CREATE_SQL)
    fts.rebuild(db.conn)


# ------------------------------------------------------------------ schema version 4


@_step(4)
def m012_sort_indexes(db: Database) -> None:
    """An index on ``(column, trace_id)`` for each sortable ``traces`` column that had none
    (:data:`SORT_INDEXED`), named ``idx_traces_<column>`` (replacing schema 3's one-column index of
    that name, whose entries the new one holds too): the trace list's first page in any order is an
    index walk, not a sort of every row; then ``ANALYZE traces`` for the planner."""
    for col in SORT_INDEXED:
        db.execute(f"DROP INDEX IF EXISTS idx_traces_{col}")
        db.execute(f"CREATE INDEX idx_traces_{col} ON traces ({col}, trace_id)")
    db.execute("ANALYZE traces")


SORT_INDEXED: tuple[str, ...] = (
    "provider", "service", "capacity", "reserved_output_tokens", "retained_count", "omitted_count",
)
"""``traces`` columns given an index on ``(column, trace_id)`` by ``m012_sort_indexes`` (the
list's sort order is the column, then ``trace_id``)."""


# ------------------------------------------------------------------ schema version 5


@_step(5)
def m013_span_columns(db: Database) -> None:
    """The span's own facts on each ``traces`` row (:mod:`ctxviewer.model.span_facts`): ``span_status``
    (``ok`` / ``error`` / ``unset`` / ``unfinished``), ``status_message``, ``agent``
    (``gen_ai.agent.name``) and ``operation`` (``gen_ai.operation.name``), the trace list's Span
    status and Agent / operation columns and the ``status``, ``agent`` and ``operation`` display
    filters; back-filled from the ``attributes`` of each trace's ``details`` JSON, then a narrow
    one-column index on each filtered column (:data:`SPAN_INDEXED`), analysed."""
    import json

    from ctxviewer.model.span_facts import SPAN_COLUMNS, row_values

    traces = db.table("traces")
    for col in SPAN_COLUMNS:
        traces.add_column(col, str)
    sql = f"UPDATE traces SET {', '.join(f'{c} = ?' for c in SPAN_COLUMNS)} WHERE trace_id = ?"
    cur = db.execute("SELECT trace_id, json_extract(json, '$.attributes') FROM details "  # CASE: in this order
                     "WHERE CASE WHEN json_valid(json) THEN json_type(json, '$.attributes') END = 'object'")
    while True:
        chunk = cur.fetchmany(5000)
        if not chunk:
            break
        rows = []
        for trace_id, attrs in chunk:
            values = row_values(json.loads(attrs))
            if any(v is not None for v in values):
                rows.append((*values, trace_id))
        db.conn.executemany(sql, rows)
    for col in SPAN_INDEXED:
        traces.create_index([col], index_name=f"idx_traces_{col}", if_not_exists=True)
        db.execute(f"ANALYZE idx_traces_{col}")


SPAN_INDEXED: tuple[str, ...] = ("span_status", "agent", "operation")
"""``traces`` columns given a one-column index by ``m013_span_columns`` (schema 5)."""


# ------------------------------------------------------------------ schema version 6


HASH_COLUMNS: dict[str, tuple[str, ...]] = {
    "blobs": ("hash",),
    "items": ("content_hash",),
    "details": ("request_hash",),
    "token_counts": ("content_hash",),
}
"""The content-address columns, per table: since schema 6 each holds a 32-byte sha256 digest
(BLOB), not its 64-character hex (``m014_compact_hashes``)."""

UNHEX = "ctxviewer_unhex"
"""Name under which ``m014_compact_hashes`` registers :func:`unhex` (SQLite 3.40 has no ``unhex()``)."""


def unhex(value: str | bytes | None) -> str | bytes | None:
    """The 32 bytes a 64-character hex sha256 stands for; any other value unchanged (NULL, a
    digest already, or text that is not a sha256 and so addresses nothing). The SQL function
    :data:`UNHEX` of ``m014_compact_hashes``."""
    if isinstance(value, str) and len(value) == 64:
        try:
            return bytes.fromhex(value)
        except ValueError:
            return value
    return value


@_step(6)
def m014_compact_hashes(db: Database) -> None:
    """Content addresses stored as the 32-byte sha256 digest instead of 64 hex characters, in every
    :data:`HASH_COLUMNS` column (on 1M generated traces, 11.8M ``items`` rows and their index: about
    0.75 GB). A database with rows is converted in place, SQL only (no re-assessment): each hex
    value becomes its digest (:func:`unhex`; the declared type stays TEXT, whose affinity keeps a
    BLOB value unchanged), so every rowid stays -- ``content_fts`` is keyed by ``blobs.rowid`` --
    and ``idx_items_content_hash`` is dropped before and rebuilt after (then analysed). A new,
    empty database gets its tables rebuilt with BLOB declared types instead."""
    conn = db.conn
    if not any(conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() for table in HASH_COLUMNS):
        for table, cols in HASH_COLUMNS.items():
            db.table(table).transform(types=dict.fromkeys(cols, bytes))
        return
    conn.create_function(UNHEX, 1, unhex, deterministic=True)
    conn.execute("DROP INDEX IF EXISTS idx_items_content_hash")
    for table, cols in HASH_COLUMNS.items():
        for col in cols:
            conn.execute(f"UPDATE {table} SET {col} = {UNHEX}({col}) WHERE typeof({col}) = 'text'")
    conn.execute("CREATE INDEX idx_items_content_hash ON items (content_hash)")
    conn.execute("ANALYZE idx_items_content_hash")


FILTER_INDEXED: tuple[str, ...] = ("capacity", "omitted_count", "provider", "service", "session_id", "worst_rule")
"""``traces`` columns given a one-column index (entries: value and rowid) by ``m008_filter_columns``."""

TRACE_FINDINGS_SQL = (
    "CREATE TABLE IF NOT EXISTS trace_findings (trace_id TEXT NOT NULL, rule TEXT NOT NULL, "
    "severity TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (trace_id, rule)) WITHOUT ROWID"
)
"""DDL of ``trace_findings`` (schema 3)."""


# ------------------------------------------------------------------ checks


def check_file(path: Path, *, must_exist: bool) -> bool:
    """Check ``path`` before SQLite touches it. Returns True if it exists with content.

    Reads only the 100-byte header. Raises :class:`StoreError` for a missing file (when
    ``must_exist``), a directory, a file that is not SQLite 3, one whose header gives an invalid page
    size (checked first: the size it implies would be wrong too), or one shorter than its header
    says (truncated). An empty (0-byte) file counts as absent for :func:`migrate` and as "not a
    ctxviewer database" when ``must_exist``.
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
        raise StoreError(path, f"is corrupt: truncated SQLite header ({size} bytes)")
    page_size = int.from_bytes(head[16:18], "big")
    if not (page_size == 1 or (512 <= page_size <= 32768 and page_size & (page_size - 1) == 0)):
        raise StoreError(path, f"is corrupt: invalid page size {page_size} in its header")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    header_valid = head[24:28] == head[92:96] and pages > 0
    if header_valid and not os.path.exists(f"{path}-wal") and size < page_size * pages:
        raise StoreError(
            path, f"is corrupt: truncated ({size} bytes; its header says {page_size * pages} bytes)"
        )
    return True


DAMAGE_SECONDS = 0.5
"""How long :func:`find_damage` may read before giving up (a large database is not checked whole)."""


def find_damage(conn: sqlite3.Connection, *, seconds: float | None = DAMAGE_SECONDS) -> str | None:
    """What SQLite's ``PRAGMA quick_check`` finds wrong in the pages of ``conn``'s database (the
    first three problems, one line), or ``None`` when it finds nothing -- or did not finish within
    ``seconds`` (``None``: no limit; the check is interrupted with ``conn.interrupt()``). Only reads."""
    timer = threading.Timer(seconds, conn.interrupt) if seconds is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        rows = conn.execute("PRAGMA quick_check(3)").fetchall()
    except sqlite3.OperationalError as exc:
        return None if "interrupt" in str(exc) else str(exc)
    except SQLITE_FAILURES as exc:
        return sqlite_message(exc)
    finally:
        if timer is not None:
            timer.cancel()
    lines = [" ".join(line.split()) for r in rows for line in str(r[0]).splitlines()]
    problems = [line for line in lines if line and line != "ok" and not line.startswith("***")]
    return "; ".join(problems[:3])[:300] or None


def missing_item_blob(conn: sqlite3.Connection, trace_id: str) -> str | None:
    """The id of the first item of ``trace_id`` (in final order) whose ``content_hash`` finds no
    ``blobs`` row -- damage the read names rather than returning ``None`` text -- or ``None``.
    Raises ``sqlite3.Error`` when unreadable."""
    row = conn.execute(
        "SELECT i.item_id FROM items i LEFT JOIN blobs b ON b.hash = i.content_hash "
        "WHERE i.trace_id = ? AND i.content_hash IS NOT NULL AND b.hash IS NULL "
        "ORDER BY i.ordinal LIMIT 1", (trace_id,)).fetchone()
    return None if row is None else str(row[0])


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
        raise StoreError(path, f"{what}: {sqlite_message(exc)}") from None
    return int(version), names


def check_schema(conn: sqlite3.Connection, path: Path, *, writable: bool, upgrade: bool = True) -> int:
    """Validate the schema of an open database and return its ``user_version``.

    Raises :class:`StoreError` when the file is not a ctxviewer database (missing tables; checked
    before the version, since other programs set ``user_version`` too), was written by a newer
    ctxviewer, or (read-only) is an older schema that needs upgrading. A writable
    database with version 0 and no tables at all is accepted: :func:`migrate` builds it. A writable
    database of an older schema is accepted only with ``upgrade`` (the upgraded copy of
    :func:`ctxviewer.store.upgrade_copy`); without it :class:`OldSchemaError` (``writing=True``).
    """
    version, names = inspect(conn, path)
    user_tables = {n for n in names if not n.startswith("sqlite_")}
    if version == 0:
        if writable and not user_tables:
            return 0
        if not user_tables:
            raise StoreError(path, "is an empty SQLite database, not a ctxviewer trace database")
        raise StoreError(
            path,
            "is an SQLite database but not a ctxviewer trace database "
            f"(tables: {', '.join(sorted(user_tables))})",
        )
    missing = [t for t in TABLES if t not in names]
    # The table check comes first: another program's database may set user_version too. A newer
    # ctxviewer may have reshaped its tables, but it still records its migration set.
    if missing and not (version > SCHEMA_VERSION and _has_ctxviewer_migrations(conn, names)):
        raise StoreError(path, f"is not a ctxviewer trace database (missing tables: {', '.join(missing)})")
    if version > SCHEMA_VERSION:
        raise StoreError(
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
        conn.execute("SELECT trace_id FROM traces LIMIT 1").fetchall()
    except SQLITE_FAILURES as exc:
        raise StoreError(path, f"is corrupt: {sqlite_message(exc)}") from None
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
        what = "cannot create the schema" if _version_or_zero(conn) == 0 else "cannot upgrade the schema"
        raise StoreError(path, f"{what}: {sqlite_message(exc)}") from None
    return len(pending)


def _version_or_zero(conn: sqlite3.Connection) -> int:
    """``PRAGMA user_version`` of ``conn``, 0 when it cannot be read."""
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    except (sqlite3.Error, UnicodeDecodeError):
        return 0
