"""The trace database: :class:`TraceStore` (see the package docstring for the tables).

A store is opened either read-only (:meth:`TraceStore.open`, what the viewer uses: SQLite URI
``mode=ro``, the file is never modified) or writable (:meth:`TraceStore.create`, which creates a
new database or migrates an older one). One store is one SQLite connection; use one store per
thread at a time (a worker thread opens its own). This module opens and closes it; the methods
that read and write are its parts, one module each: :mod:`~ctxviewer.store.listing`,
:mod:`~ctxviewer.store.keyed_listing`, :mod:`~ctxviewer.store.loading`,
:mod:`~ctxviewer.store.search`, :mod:`~ctxviewer.store.writes` and
:mod:`~ctxviewer.store.token_cache`, over the shared :mod:`~ctxviewer.store.connection`. No Qt here.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from types import TracebackType
from typing import Callable
from urllib.parse import quote

from ctxviewer.store.aggregates import TraceAggregates
from ctxviewer.store.damage import DAMAGE_SECONDS, find_damage
from ctxviewer.store.errors import READ_ONLY, StoreError
from ctxviewer.store.file_check import check_file, read_only_query
from ctxviewer.store.keyed_listing import KeyedListing
from ctxviewer.store.listing import TraceListing
from ctxviewer.store.loading import TraceLoading
from ctxviewer.store.migrate import migrate
from ctxviewer.store.runs import TraceRuns
from ctxviewer.store.schema_check import check_schema
from ctxviewer.store.search import TraceSearch
from ctxviewer.store.sessions import TraceSessions
from ctxviewer.store.token_cache import TokenCountCache
from ctxviewer.store.writes import TraceWrites

READ_WAIT_S = 10.0
"""Seconds a read (or the writer's schema check) waits while an import commits (SQLite busy timeout)."""


class TraceStore(TraceListing, TraceAggregates, TraceRuns, TraceSessions, KeyedListing, TraceLoading, TraceSearch, TraceWrites, TokenCountCache):
    """A ctxviewer trace database. Build with :meth:`open` (read-only) or :meth:`create`.

    Every method raises :class:`StoreError` (naming the file) when SQLite reports the file
    corrupt or unwritable. Its methods come from its parts (the module docstring): listing
    (``filter_where``, ``count``, ``list``), keyed listing (``first_rows``, ``row_keys``,
    ``key_chunks``, ``rows_by_key``, ``key_of``, ``count_where``, ``estimate_count``), loading
    (``load``, ``items``, ``blob``, ``session_trace_ids``), sessions (``sessions``, ``session_count``,
    ``session_calls``, ``call_orders``, ``otel_trace_calls``), search (``search``, ``search_hits``),
    writing (``add``, ``write_facts``, ``rebuild_search``) and the token-count cache
    (``token_count``, ``token_counts``); opening, closing and :meth:`damage` are here.
    """

    @classmethod
    def open(cls, path: str | Path) -> TraceStore:
        """Open an existing database read-only (SQLite URI ``mode=ro``); never modifies the file.

        Reading never writes: no ``-journal``, ``-wal`` or ``-shm`` file is created and the file's
        bytes and mtime stay as they were (a WAL-mode database from another tool, with no ``-wal``
        file beside it, is opened ``immutable``, so it also opens in a folder the viewer cannot
        write). While an import writes, reads go on (the writer holds its pages until commit,
        :meth:`add`); a read that meets the commit waits up to :data:`READ_WAIT_S`.

        Raises :class:`StoreError` for a missing file, a file that is not SQLite, a corrupt or
        truncated file, a schema newer than :data:`~ctxviewer.store.SCHEMA_VERSION` (or older, needing upgrade),
        and an SQLite file that is not a ctxviewer database.
        """
        path = Path(path)
        check_file(path, must_exist=True)
        uri = f"file:{quote(str(path.resolve()))}?{read_only_query(path)}"
        try:
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=READ_WAIT_S)
        except sqlite3.Error as exc:
            raise StoreError(path, f"cannot open: {exc}") from None
        try:
            check_schema(conn, path, writable=False)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, readonly=True)

    @classmethod
    def create(cls, path: str | Path, *, upgrade: bool = False,
               progress: Callable[[str], None] | None = None) -> TraceStore:
        """Open ``path`` writable: create a new database (its schema built in one transaction that
        waits while another process builds it, :func:`~ctxviewer.store.migrate.migrate`), or open a
        current one.

        An older-schema database is never upgraded in place: it raises
        :class:`~ctxviewer.store.errors.OldSchemaError` (``writing=True``, the file untouched) unless
        ``upgrade`` is given, which only :func:`~ctxviewer.store.upgrade_copy` does, on its own
        copy (``progress`` then gets one line per schema step). Raises :class:`StoreError` for the
        same bad files as :meth:`open` (an existing SQLite file with other tables is refused rather
        than written into), for an existing file the user cannot write (problem
        :data:`~ctxviewer.store.errors.READ_ONLY`), for a folder that is not writable (``"folder F is
        not writable"``: SQLite needs it for its journal, also to add to an existing file), or when
        the file cannot be created.
        """
        path = Path(path)
        check_file(path, must_exist=False)
        if path.exists() and not os.access(path, os.W_OK):
            raise StoreError(path, READ_ONLY)
        if not path.parent.is_dir():
            raise StoreError(path, f"cannot create: {path.parent} is not a folder" if path.parent.exists()
                             else f"cannot create: folder {path.parent} does not exist")
        if not os.access(path.parent, os.W_OK):  # SQLite writes its journal beside the database
            verb = "cannot add traces" if path.exists() else "cannot create"
            raise StoreError(path, f"{verb}: folder {path.parent} is not writable "
                                   "(read-only file system or no permission)")
        try:
            conn = sqlite3.connect(str(path), check_same_thread=False, timeout=READ_WAIT_S)
        except sqlite3.Error as exc:
            raise StoreError(path, f"cannot open: {exc}") from None
        try:
            check_schema(conn, path, writable=True, upgrade=upgrade)
            store = cls(conn, path, readonly=False)
            migrate(store._db, path, progress)
        except BaseException:
            conn.close()
            raise
        return store

    def close(self) -> None:
        """Write pending token-count cache rows (writable stores) and close. Idempotent."""
        if self._closed:
            return
        try:
            if not self.readonly and self._pending_counts:
                with self._db.atomic():
                    self._flush_counts()
                self._pending_counts.clear()
        except sqlite3.DatabaseError:
            pass  # only a cache; closing must still succeed
        finally:
            self._closed = True
            self._conn.close()

    def __enter__(self) -> TraceStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<TraceStore {str(self.path)!r} {'read-only' if self.readonly else 'writable'}>"

    def reader(self) -> TraceStore:
        """A new read-only store on the same file, for another thread (a SQLite connection
        belongs to one thread at a time). Raises :class:`StoreError` like :meth:`open`."""
        return TraceStore.open(self.path)

    def damage(self, seconds: float | None = DAMAGE_SECONDS) -> str | None:
        """Damaged pages SQLite's ``quick_check`` finds in this database within ``seconds``
        (:func:`~ctxviewer.store.damage.find_damage`), or ``None``. Only reads. ``list`` reads only
        the stored facts of ``traces``; this says when the content behind them is broken."""
        return find_damage(self._conn, seconds=seconds)
