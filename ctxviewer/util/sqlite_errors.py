"""What an SQLite error means: a read-only file, a lock another connection holds, damage, and
SQLite's own message (also when it is not valid UTF-8).

Knowledge of SQLite, not of traces: the store names its errors with these, and the importers use
them to say why an SQLite file given as a trace file is not imported. No Qt here.
"""

from __future__ import annotations

import sqlite3

__all__ = ["SQLITE_FAILURES", "is_busy_error", "is_corrupt_error", "is_readonly_error", "sqlite_message"]


def is_readonly_error(exc: sqlite3.Error) -> bool:
    """True when SQLite refused a write because the database file is read-only (SQLITE_READONLY)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool((code & 0xFF) == sqlite3.SQLITE_READONLY)
    return "readonly database" in str(exc)


SQLITE_FAILURES = (sqlite3.DatabaseError, UnicodeDecodeError)
"""What reading a damaged database raises: SQLite's errors, and ``UnicodeDecodeError`` when SQLite's
own error message holds bytes that are not UTF-8 (the sqlite3 module decodes it strictly): a corrupt
``sqlite_master`` quoted in "malformed database schema (...)". Catch both wherever a database that
may be corrupt is read, and name the problem with :func:`sqlite_message`."""


def sqlite_message(exc: BaseException) -> str:
    """The text of one of :data:`SQLITE_FAILURES`: SQLite's message, also when it is not UTF-8 (its
    undecodable bytes shown as ``\\xNN``), not the codec's complaint about it."""
    if isinstance(exc, UnicodeDecodeError) and isinstance(exc.object, bytes):
        return exc.object.decode("utf-8", "backslashreplace")
    return str(exc)


def is_corrupt_error(exc: BaseException) -> bool:
    """True when SQLite found the database file corrupt (SQLITE_CORRUPT, or a message it could not
    give in UTF-8: only damage puts such bytes in it), not merely unreadable."""
    if isinstance(exc, UnicodeDecodeError):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool((code & 0xFF) == sqlite3.SQLITE_CORRUPT)
    return "malformed" in str(exc)


def is_busy_error(exc: sqlite3.Error) -> bool:
    """True when SQLite could not get a lock because another connection holds it (SQLITE_BUSY)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool((code & 0xFF) == sqlite3.SQLITE_BUSY)
    return "database is locked" in str(exc)
