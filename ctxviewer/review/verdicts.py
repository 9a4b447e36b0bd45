"""The review file: verdicts and notes in their own SQLite file, never in the trace database.

Beside it, ``traces.db`` -> ``traces.review.sqlite`` (:func:`review_path`), when its folder is
writable; else elsewhere (:mod:`.location` decides, for every surface). The trace database is never
written (it stays read-only); a review file can be shared or deleted on its own. One table::

    reviews(trace_id, item_id, rule, span_start, span_end,   -- the FindingKey (primary key)
            verdict,      -- 'confirmed' | 'false_positive' | 'follow_up' | NULL (note only)
            note,         -- free text, '' when none
            reviewed_at,  -- ISO 8601 UTC
            reviewer)     -- who wrote it (schema 2); NULL: not recorded

plus ``meta(key, value)`` with ``schema_version = 2``. Every write is one transaction (a crash
leaves the previous state); the file is created on the first write. Opening and reading never
write: an existing file is only read until a verdict or note is written. A file of schema 1 (no
``reviewer`` column) is read as it is, its reviews' reviewer "not recorded"; the first write
migrates it (the column added, ``schema_version`` set to 2, in the write's transaction), keeping
every verdict.

Every failure is a :class:`ReviewFileError` whose message names the file and the real cause, and
keeps two kinds apart:

* the file cannot be created, opened or written -- ``cannot create the review file: folder ro is
  not writable (verdicts cannot be saved there; give --review-file PATH to save them elsewhere)``, ``cannot save to the review
  file: the file is read-only ...``;
* the file is there but is not a review file -- ``is a directory, not a ctxviewer review file``,
  ``not a ctxviewer review file (file is not a database)``, ``not a ctxviewer review file (it
  holds other tables: notes)``, ``the review file is damaged (database disk image is malformed)``.

A file that is not a review file is never written into (no table is added to someone else's
database).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from ctxviewer.review.keys import FindingKey, Review, ReviewVerdict

SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reviews (
    trace_id TEXT NOT NULL, item_id TEXT NOT NULL, rule TEXT NOT NULL,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    verdict TEXT CHECK (verdict IN ('confirmed', 'false_positive', 'follow_up')),
    note TEXT NOT NULL DEFAULT '',
    reviewed_at TEXT NOT NULL,
    reviewer TEXT,
    PRIMARY KEY (trace_id, item_id, rule, span_start, span_end)
);
"""
_COLUMNS = ("trace_id", "item_id", "rule", "span_start", "span_end", "verdict", "note", "reviewed_at")
"""The columns every review file has (schema 1); schema 2 adds ``reviewer``."""
_MIGRATIONS = {2: ("ALTER TABLE reviews ADD COLUMN reviewer TEXT",)}
"""Schema version -> the statements that bring a file of the version before up to it."""


def utc_now() -> datetime:
    """The time a review is written: now in UTC, whole seconds."""
    return datetime.now(timezone.utc).replace(microsecond=0)


class ReviewFileError(Exception):
    """The review file cannot be created, read or written, or is not a ctxviewer review file.

    ``str(exc)`` is ``"PATH: PROBLEM"`` (see the module docstring); :attr:`path` and
    :attr:`problem` hold the two parts."""

    def __init__(self, path: str | Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


def review_path(db: str | Path) -> Path:
    """The review file beside ``db``: ``dir/traces.db`` -> ``dir/traces.review.sqlite``."""
    db = Path(db)
    return db.with_name(db.stem + ".review.sqlite")


def _errorname(exc: sqlite3.Error) -> str:
    return str(getattr(exc, "sqlite_errorname", ""))


def _read_problem(exc: sqlite3.Error) -> str:
    """What a failed read of an existing file means."""
    name = _errorname(exc)
    if name == "SQLITE_NOTADB":
        return f"not a ctxviewer review file ({exc})"
    if name == "SQLITE_CORRUPT":
        return f"the review file is damaged ({exc})"
    return f"cannot read the review file ({exc})"


def _folder_not_writable(folder: Path) -> str:
    return (f"cannot create the review file: folder {folder} is not writable (verdicts cannot be saved there; "
            "give --review-file PATH to save them elsewhere)")


_READ_ONLY_FILE = "cannot save to the review file: the file is read-only (verdicts cannot be saved)"


def _journal_folder_not_writable(folder: Path) -> str:
    return (f"cannot save to the review file: folder {folder} is not writable (SQLite writes its journal there; "
            "verdicts cannot be saved)")


class ReviewFile:
    """Verdicts and notes of one trace database (see the module docstring).

    Raises :class:`ReviewFileError` when ``path`` exists and cannot be read or is not a review
    file; :meth:`write` and :meth:`clear` raise it when the verdict cannot be saved. With
    ``make_folder`` the file's folder is created (with its parents) on the first write (the user
    data directory, :mod:`.location`); else a missing folder is an error.
    """

    def __init__(self, path: str | Path, make_folder: bool = False) -> None:
        self.path = Path(path)
        self.make_folder = make_folder
        self._conn: sqlite3.Connection | None = None
        self._has_schema = False
        self._has_reviewer = False
        if self.path.exists() or self.path.is_symlink():
            self._conn = self._open()

    # ------------------------------------------------------------------ opening
    def _open(self) -> sqlite3.Connection:
        """Connect to the existing file and check it is a review file (reads only)."""
        p = self.path
        if p.is_dir():
            raise ReviewFileError(p, "is a directory, not a ctxviewer review file")
        if not p.exists():
            raise ReviewFileError(p, "cannot open the review file: it is a broken symbolic link")
        if not os.access(p, os.R_OK):
            raise ReviewFileError(p, "cannot open the review file: no permission to read it")
        try:
            conn = sqlite3.connect(p)
        except sqlite3.Error as exc:
            raise ReviewFileError(p, f"cannot open the review file ({exc})") from None
        try:
            self._has_schema = self._check(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _check(self, conn: sqlite3.Connection) -> bool:
        """True when ``conn`` holds the review tables, False when it is empty (a new file); raises
        :class:`ReviewFileError` for anything else."""
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                      if not str(r[0]).startswith("sqlite_")}
            if not tables:
                return False
            if "reviews" not in tables:
                raise ReviewFileError(self.path, f"not a ctxviewer review file (it holds other tables: "
                                                 f"{', '.join(sorted(tables))})")
            columns = {r[1] for r in conn.execute("PRAGMA table_info(reviews)")}
        except sqlite3.Error as exc:
            raise ReviewFileError(self.path, _read_problem(exc)) from None
        missing = [c for c in _COLUMNS if c not in columns]
        if missing:
            raise ReviewFileError(self.path, f"not a ctxviewer review file (its reviews table has no "
                                             f"{', '.join(missing)} column)")
        self._has_reviewer = "reviewer" in columns
        return True

    def _create(self) -> tuple[sqlite3.Connection, bool]:
        """Create the file (empty; the schema follows in :meth:`_writable`) and connect; the flag
        is False when another process created it meanwhile (then it is opened like any other)."""
        p, folder = self.path, self.path.parent
        if self.make_folder and not folder.is_dir():
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ReviewFileError(p, f"cannot create the review file: cannot create folder {folder} "
                                         f"({exc.strerror or exc})") from None
        if not folder.is_dir():
            raise ReviewFileError(p, f"cannot create the review file: folder {folder} does not exist")
        if not os.access(folder, os.W_OK):
            raise ReviewFileError(p, _folder_not_writable(folder))
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            return self._open(), False  # created meanwhile (another window)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise ReviewFileError(p, _folder_not_writable(folder)) from None
            raise ReviewFileError(p, f"cannot create the review file: {exc.strerror or exc}") from None
        os.close(fd)
        try:
            return sqlite3.connect(p), True
        except sqlite3.Error as exc:
            self._remove_new()
            raise ReviewFileError(p, f"cannot create the review file ({exc})") from None

    def _remove_new(self) -> None:
        """Remove the file this object just created and could not initialise (it held nothing)."""
        try:
            if self.path.is_file() and self.path.stat().st_size == 0:
                self.path.unlink()
        except OSError:
            pass

    def _write_problem(self, exc: sqlite3.Error) -> str:
        """What a failed write means: a read-only file or folder, a bad file, or SQLite's words."""
        p = self.path
        if not os.access(p, os.W_OK):
            return _READ_ONLY_FILE
        if not os.access(p.parent, os.W_OK):
            return _journal_folder_not_writable(p.parent)
        if _errorname(exc) in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
            return _read_problem(exc)
        return f"cannot save to the review file ({exc})"

    def _writable(self) -> sqlite3.Connection:
        """The connection for a write, the file created and its schema written when needed.
        Checks up front that the file and its folder (SQLite's journal) can be written."""
        p, created = self.path, False
        if self._conn is None:
            if p.exists() or p.is_symlink():
                self._conn = self._open()
            else:
                self._conn, created = self._create()
        conn = self._conn
        if not created:
            if not os.access(p, os.W_OK):
                raise ReviewFileError(p, _READ_ONLY_FILE)
            if not os.access(p.parent, os.W_OK):
                raise ReviewFileError(p, _journal_folder_not_writable(p.parent))
        if not self._has_schema:
            try:
                with conn:
                    conn.execute("BEGIN")  # the tables and the version in one transaction
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                self._has_reviewer = True
            except sqlite3.Error as exc:
                if not created:
                    raise ReviewFileError(p, self._write_problem(exc)) from None
                self.close()  # leave no empty file behind, and say what failed: the creation
                self._remove_new()
                raise ReviewFileError(p, _folder_not_writable(p.parent) if not os.access(p.parent, os.W_OK)
                                      else f"cannot create the review file ({exc})") from None
            self._has_schema = True
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        """Bring a schema-1 file up to :data:`SCHEMA_VERSION` inside the caller's transaction."""
        if self._has_reviewer:
            return
        for statement in _MIGRATIONS[2]:
            conn.execute(statement)
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        """Close the connection (a later write reopens it)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
            self._has_schema = self._has_reviewer = False

    def __enter__(self) -> ReviewFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reading and writing
    def all(self) -> dict[FindingKey, Review]:
        """Every recorded review by key (empty when the file does not exist yet or is empty)."""
        if self._conn is None or not self._has_schema:
            return {}
        columns = ", ".join((*_COLUMNS, "reviewer" if self._has_reviewer else "NULL"))
        try:
            rows = self._conn.execute(f"SELECT {columns} FROM reviews").fetchall()
            return {FindingKey(t, i, r, s, e): Review(ReviewVerdict(v) if v else None, n, datetime.fromisoformat(at), who)
                    for t, i, r, s, e, v, n, at, who in rows}
        except sqlite3.Error as exc:
            raise ReviewFileError(self.path, _read_problem(exc)) from None
        except (TypeError, ValueError) as exc:  # a verdict or time no ctxviewer wrote
            raise ReviewFileError(self.path, f"the review file is damaged ({exc})") from None

    def write(self, key: FindingKey, verdict: ReviewVerdict | None, note: str, reviewer: str | None = None) -> Review:
        """Record ``verdict``, ``note`` and ``reviewer`` (``None``: not recorded) for ``key`` at
        :func:`utc_now`, in one transaction (replacing what was there; a schema-1 file migrated in
        it). Returns the stored :class:`Review`; raises :class:`ReviewFileError` when it cannot be
        saved (nothing is written then)."""
        now = utc_now()
        conn = self._writable()
        try:
            with conn:
                conn.execute("BEGIN")
                self._migrate(conn)
                conn.execute(
                    f"INSERT OR REPLACE INTO reviews ({', '.join(_COLUMNS)}, reviewer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (key.trace_id, key.item_id, key.rule, key.start, key.end, verdict.value if verdict else None,
                     note, now.isoformat(), reviewer),
                )
        except sqlite3.Error as exc:
            raise ReviewFileError(self.path, self._write_problem(exc)) from None
        self._has_reviewer = True
        return Review(verdict, note, now, reviewer)

    def clear(self, key: FindingKey) -> None:
        """Forget the review of ``key`` (one transaction)."""
        if self._conn is None or not self._has_schema:
            return
        conn = self._writable()
        try:
            with conn:
                conn.execute("DELETE FROM reviews WHERE trace_id=? AND item_id=? AND rule=? AND span_start=? "
                             "AND span_end=?", (key.trace_id, key.item_id, key.rule, key.start, key.end))
        except sqlite3.Error as exc:
            raise ReviewFileError(self.path, self._write_problem(exc)) from None
