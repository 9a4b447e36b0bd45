"""The keyed list of the window: traces by row key (``rowid``), never by ``OFFSET``.

:meth:`KeyedListing.first_rows` reads the first page as an index walk; :meth:`~KeyedListing.row_keys`
and :meth:`~KeyedListing.key_chunks` read every matching key in list order, 8 bytes a trace;
:meth:`~KeyedListing.rows_by_key` turns the keys of the visible rows back into rows. The WHERE
fragments come from :meth:`~ctxviewer.store.listing.TraceListing.filter_where`. Reads only the
narrow ``traces`` table. No Qt here.
"""

from __future__ import annotations

import builtins
import sqlite3
from array import array
from typing import Any, Iterator, Sequence

from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.query import ROW_COLUMNS, TraceRow, keyed_sql

KEY_CHUNK = 16_384
"""Row keys per chunk of :meth:`TraceStore.key_chunks` (128 KiB as ``array('q')``; the Python ints
of one chunk are all that exist at once while a million keys are read)."""


class KeyedListing(StoreConnection):
    """The keyed-listing part of :class:`~ctxviewer.store.TraceStore` (the list methods of
    :class:`~ctxviewer.store.TraceSource` the window reads through)."""

    def first_rows(
        self, where: str = "", params: Sequence[Any] = (), order: str = "created", descending: bool = False,
        limit: int = 100,
    ) -> builtins.list[tuple[int, TraceRow]]:
        """The first ``limit`` rows of the list as ``(key, row)``: ``traces`` rows matching the WHERE
        fragment ``where`` (bound to ``params``; "" = all) ordered by ``order`` (a member of
        :data:`~ctxviewer.store.SORTABLE`) then ``trace_id``. The key is the row's ``rowid``. An
        index walk for the orders in :data:`~ctxviewer.store.query.INDEXED_SORTS`; never ``OFFSET``,
        never payload columns. Raises ``ValueError`` for an unknown ``order``."""
        sql = keyed_sql(where, order, descending, keys_only=False) + " LIMIT ?"
        try:
            return [(int(r[0]), TraceRow.from_sql(r[1:])) for r in self._conn.execute(sql, [*params, limit])]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot list traces", exc) from None

    def row_keys(
        self, where: str = "", params: Sequence[Any] = (), order: str = "created", descending: bool = False,
        cancelled: Any = None,
    ) -> array[int]:
        """Every matching row key in list order (see :meth:`first_rows`) as an ``array('q')``: 8
        bytes per trace; its length is the exact count. ``cancelled()`` (optional) is polled
        between chunks of :data:`KEY_CHUNK` keys; when it returns True the keys read so far are
        returned. Raises :class:`StoreError` when the database cannot be read."""
        keys: array[int] = array("q")
        for chunk in self.key_chunks(where, params, order, descending):
            keys.extend(chunk)
            if cancelled is not None and cancelled():
                break
        return keys

    def key_chunks(
        self, where: str = "", params: Sequence[Any] = (), order: str = "created", descending: bool = False,
    ) -> Iterator[array[int]]:
        """The keys of :meth:`row_keys` as consecutive ``array('q')`` chunks of at most
        :data:`KEY_CHUNK` keys, read as they are yielded (``fetchmany``): a caller that stores
        them in a preallocated array never holds more than one chunk of Python ints. Raises
        :class:`StoreError` when the database cannot be read."""
        sql = keyed_sql(where, order, descending, keys_only=True)
        try:
            cur = self._conn.execute(sql, builtins.list(params))
            while True:
                rows = cur.fetchmany(KEY_CHUNK)
                if not rows:
                    return
                chunk = array("q", [r[0] for r in rows])
                del rows
                yield chunk
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot list traces", exc) from None

    def rows_by_key(self, keys: Sequence[int]) -> builtins.list[TraceRow | None]:
        """The rows of ``keys`` (from :meth:`row_keys`), in the order given; ``None`` for a key
        no longer stored. One ``rowid IN (...)`` lookup per call (up to 500 keys each)."""
        found: dict[int, TraceRow] = {}
        sql_head = f"SELECT rowid, {', '.join(ROW_COLUMNS)} FROM traces WHERE rowid IN "
        try:
            for start in range(0, len(keys), 500):
                part = list(keys[start:start + 500])
                sql = sql_head + "(" + ",".join("?" * len(part)) + ")"
                for r in self._conn.execute(sql, part):
                    found[int(r[0])] = TraceRow.from_sql(r[1:])
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot list traces", exc) from None
        return [found.get(k) for k in keys]

    def key_of(self, trace_id: str) -> int | None:
        """The row key of ``trace_id`` (its ``rowid``), or ``None`` when it is not stored."""
        try:
            row = self._conn.execute("SELECT rowid FROM traces WHERE trace_id = ?", (trace_id,)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot list traces", exc) from None
        return None if row is None else int(row[0])

    def count_where(self, where: str = "", params: Sequence[Any] = ()) -> int:
        """Exact number of ``traces`` rows matching the WHERE fragment (a full index scan on a
        million rows: run it off the GUI thread)."""
        cond = f" WHERE ({where})" if where.strip() else ""
        try:
            return int(self._conn.execute(f"SELECT count(*) FROM traces{cond}", list(params)).fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot count traces", exc) from None

    def estimate_count(self, where: str = "") -> int | None:
        """A count known without scanning: for no filter, the largest row key (exact unless
        traces were replaced or deleted); ``None`` with a filter. Microseconds."""
        if where.strip():
            return None
        try:
            row = self._conn.execute("SELECT max(rowid) FROM traces").fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot count traces", exc) from None
        return int(row[0] or 0)
