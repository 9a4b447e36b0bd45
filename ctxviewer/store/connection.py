"""One open trace database as every part of :class:`~ctxviewer.store.TraceStore` sees it.

:class:`StoreConnection` holds the SQLite connection, the file, whether it is read-only,
sqlite-utils over the connection for writing, and the in-memory state of a write (token counts
and item texts not yet committed). The parts of the store are its subclasses, mixed into
:class:`~ctxviewer.store.TraceStore` (:mod:`ctxviewer.store.trace_store`, which opens the
connection): listing, keyed listing, loading, search, writing and the token-count cache.
One connection belongs to one thread at a time. No Qt here.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from sqlite_utils import Database

from ctxviewer.store.errors import StoreError
from ctxviewer.util.held_absent import sqlite_utils_module

_UNDECODABLE = re.compile(r"Could not decode to UTF-8 column '([^']*)' with text ")


def undecodable_column(exc: BaseException) -> str | None:
    """For the sqlite3 module's error on a stored text that is not UTF-8 (only damage, or another
    program, writes such bytes: ctxviewer stores ``str``): ``"database disk image is malformed
    (column 'text' holds bytes that are not UTF-8)"``; ``None`` for any other error."""
    m = _UNDECODABLE.match(str(exc)) if isinstance(exc, sqlite3.OperationalError) else None
    if m is None:
        return None
    return f"database disk image is malformed (column {m.group(1)!r} holds bytes that are not UTF-8)"


class StoreConnection:
    """The connection and state the parts of :class:`~ctxviewer.store.TraceStore` share (see the
    module docstring). Built only by :meth:`TraceStore.open <ctxviewer.store.TraceStore.open>` and
    :meth:`TraceStore.create <ctxviewer.store.TraceStore.create>`."""

    path: Path
    """The database file, as given."""
    readonly: bool
    """True when opened with :meth:`~ctxviewer.store.TraceStore.open`; writing
    (:meth:`~ctxviewer.store.TraceStore.add`) then raises :class:`StoreError`."""

    def __init__(self, conn: sqlite3.Connection, path: Path, readonly: bool) -> None:
        """Internal: use :meth:`TraceStore.open <ctxviewer.store.TraceStore.open>` or
        :meth:`TraceStore.create <ctxviewer.store.TraceStore.create>`."""
        self.path = path
        self.readonly = readonly
        self._conn = conn
        self._db_: Database | None = None
        self._pending_counts: dict[tuple[bytes, str], int] = {}  # (content digest, encoding) -> tokens
        self._stored_texts: dict[str, bytes] = {}  # item text -> its blob digest, written in this add()'s transaction
        self._stored_chars = 0
        self._closed = False

    @property
    def _db(self) -> Database:
        """sqlite-utils over the connection, for writing (imported on first write: a read-only
        store needs only ``sqlite3``)."""
        if self._db_ is None:
            self._db_ = sqlite_utils_module().Database(self._conn, execute_plugins=False, recursive_triggers=False)
        return self._db_

    def stop_when(self, cancelled: Callable[[], bool], every: int = 10_000) -> None:
        """Make every statement on this connection stop once ``cancelled()`` turns true: it is asked
        every ``every`` SQLite virtual-machine steps (``sqlite3``'s progress handler), and the
        statement then raises :class:`StoreError` ("interrupted") in the thread running it. For a
        connection a worker thread owns, so a Cancel reaches a statement already running (unlike a
        flag checked between statements)."""
        self._conn.set_progress_handler(lambda: 1 if cancelled() else 0, every)

    def _fail(self, what: str, exc: Exception) -> StoreError:
        """``StoreError("DB: WHAT: SQLite's message")``; a stored text that is not UTF-8 (the
        sqlite3 module's "Could not decode to UTF-8 column 'text' with text '<the whole damaged
        content>'") is said as the damage it is, naming the column, not quoting the text."""
        return StoreError(self.path, f"{what}: {undecodable_column(exc) or exc}")
