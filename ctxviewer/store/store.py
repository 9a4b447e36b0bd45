"""The trace database: :class:`TraceStore` (see the package docstring for the tables).

A store is opened either read-only (:meth:`TraceStore.open`, what the viewer uses: SQLite URI
``mode=ro``, the file is never modified) or writable (:meth:`TraceStore.create`, which creates a
new database or migrates an older one). One store is one SQLite connection; use one store per
thread at a time (a worker thread opens its own). No Qt here.
"""

from __future__ import annotations

import builtins
import json
import os
import sqlite3
import time
from array import array
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence
from urllib.parse import quote

if TYPE_CHECKING:
    from sqlite_utils import Database

from ctxviewer.model.serialize import TraceFormatError, format_created, item_from_dict, trace_from_dict, trace_to_dict
from ctxviewer.model.span_facts import row_values as span_row_values
from ctxviewer.model.trace import (
    ContextItem,
    Kind,
    RequestTrace,
    SourceRef,
    Status,
    TokenProvenance,
    TokenSource,
    Trust,
)
from ctxviewer.store import fts
from ctxviewer.store.facts import FACT_COLUMNS, StoredFacts, write_findings
from ctxviewer.store.filters import compile_filter
from ctxviewer.store.fts import SearchHit, SearchPage
from ctxviewer.store.query import ROW_COLUMNS, TraceQuery, TraceRow, count_sql, keyed_sql, list_sql
from ctxviewer.store.rows import content_digest, item_row
from ctxviewer.store.schema import (
    DAMAGE_SECONDS,
    READ_ONLY,
    StoreError,
    check_file,
    check_schema,
    find_damage,
    migrate,
    missing_item_blob,
    read_only_query,
)
from ctxviewer.store.token_cache import TokenCountCache
from ctxviewer.util.sqlite_errors import is_busy_error, is_readonly_error

READ_WAIT_S = 10.0
"""Seconds a read (or the writer's schema check) waits while an import commits (SQLite busy timeout)."""
WRITE_WAIT_S = 60.0
"""Seconds :meth:`TraceStore.add` waits for another import to finish writing before giving up."""
SPILL_PAGES = 65536
"""Dirty pages (about 256 MB at 4 KiB) an import keeps in memory before writing to the database file
mid-transaction; below it, readers never wait for the import, only for its commit."""


class WriteCancelled(Exception):
    """Raised by :meth:`TraceStore.add` when ``cancelled()`` became true while waiting for the write lock."""


_ITEM_COLUMNS = (
    "trace_id",
    "ordinal",
    "item_id",
    "kind",
    "status",
    "position",
    "priority",
    "trust",
    "tokens",
    "omission_reason",
    "role",
    "source",
    "tokens_source",
    "tokens_encoding",
    "content_hash",
)
_ITEM_KEYS = {"item_id": "id"}  # items column -> serialize.item_to_dict key, where they differ
_PROVENANCE_COLUMNS = {"tokens_source": "source", "tokens_encoding": "encoding"}
"""items columns -> keys of ``item_to_dict``'s ``tokens_provenance`` object."""


PROBE_ROWS = 5000
"""A filter term keeping at most this many rows drives the list query (:meth:`TraceStore.filter_where`):
looking up and sorting 5,000 rows costs tens of milliseconds, walking a million in list order to
find them seconds. Above it, a term is better tested row by row along the list order: measured on
1M generated traces, ``omitted > 2`` (2,207 rows) driven 15-22 ms against 105 ms walked, and
``finding == injection`` (12,996) walked 55-70 ms against 249 ms driven."""


KEY_CHUNK = 16_384
"""Row keys per chunk of :meth:`TraceStore.key_chunks` (128 KiB as ``array('q')``; the Python ints
of one chunk are all that exist at once while a million keys are read)."""


_MEMBER = "(traces.trace_id IN ("
"""How a compiled ``finding`` / ``text`` term starts (:mod:`ctxviewer.store.filters`): membership in a list of trace ids."""


_SOURCE_KEYS = {"store": str, "document_id": str, "url": str, "turn": int}


def _item_from_row(item_id: Any, kind: Any, status: Any, position: Any, priority: Any, trust: Any, tokens: Any,
                   omission_reason: Any, role: Any, source: Any, tokens_source: Any, tokens_encoding: Any,
                   text: Any) -> ContextItem | None:
    """The item of one ``items`` row built directly (issue 11: selecting a 500-item trace spent most
    of its time in the general JSON codec), or ``None`` when any value is not exactly what
    :func:`~ctxviewer.model.serialize.item_from_dict` would accept unchanged -- the caller then takes
    that slower path, which names what is wrong."""
    try:
        if type(item_id) is not str or not item_id.strip() or not all(v is None or type(v) is str for v in (omission_reason, role, tokens_encoding, text)):
            return None
        if not all(v is None or (type(v) is int and v >= 0) for v in (tokens, position)):
            return None
        if priority is not None and type(priority) not in (int, float):
            return None
        src = None
        if source is not None:
            d = json.loads(source)
            if not isinstance(d, dict) or not all(k in _SOURCE_KEYS and type(v) is _SOURCE_KEYS[k] for k, v in d.items()):
                return None
            if d.get("turn", 0) < 0:
                return None
            src = SourceRef(**d) if d else None
        prov = None
        if tokens_source is not None:
            prov = TokenProvenance(TokenSource(tokens_source), tokens_encoding)
        elif tokens_encoding is not None:
            return None
        return ContextItem(kind=Kind(kind), id=item_id, content=text, status=Status(status), tokens=tokens,
                           position=position, priority=priority, trust=Trust(trust), source=src,
                           omission_reason=omission_reason, role=role, tokens_provenance=prov)
    except (ValueError, TypeError):
        return None


STORED_TEXT_CHARS = 64_000_000
"""Characters of item text one :meth:`TraceStore.add` remembers as already stored (about as much
memory as the texts themselves, which the traces of an import mostly share)."""


class TraceStore(TokenCountCache):
    """A ctxviewer trace database. Build with :meth:`open` (read-only) or :meth:`create`.

    Every method raises :class:`StoreError` (naming the file) when SQLite reports the file
    corrupt or unwritable.
    """

    path: Path
    """The database file, as given."""
    readonly: bool
    """True when opened with :meth:`open`; :meth:`add` then raises :class:`StoreError`."""

    def __init__(self, conn: sqlite3.Connection, path: Path, readonly: bool) -> None:
        """Internal: use :meth:`open` or :meth:`create`."""
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
            from sqlite_utils import Database

            self._db_ = Database(self._conn, execute_plugins=False, recursive_triggers=False)
        return self._db_

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path) -> TraceStore:
        """Open an existing database read-only (SQLite URI ``mode=ro``); never modifies the file.

        Reading never writes: no ``-journal``, ``-wal`` or ``-shm`` file is created and the file's
        bytes and mtime stay as they were (a WAL-mode database from another tool, with no ``-wal``
        file beside it, is opened ``immutable``, so it also opens in a folder the viewer cannot
        write). While an import writes, reads go on (the writer holds its pages until commit,
        :meth:`add`); a read that meets the commit waits up to :data:`READ_WAIT_S`.

        Raises :class:`StoreError` for a missing file, a file that is not SQLite, a corrupt or
        truncated file, a schema newer than :data:`SCHEMA_VERSION` (or older, needing upgrade),
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
        waits while another process builds it, :func:`~ctxviewer.store.schema.migrate`), or open a
        current one.

        An older-schema database is never upgraded in place: it raises
        :class:`~ctxviewer.store.schema.OldSchemaError` (``writing=True``, the file untouched) unless
        ``upgrade`` is given, which only :func:`~ctxviewer.store.upgrade_copy` does, on its own
        copy (``progress`` then gets one line per schema step). Raises :class:`StoreError` for the
        same bad files as :meth:`open` (an existing SQLite file with other tables is refused rather
        than written into), for an existing file the user cannot write (problem
        :data:`~ctxviewer.store.schema.READ_ONLY`), or when the file cannot be created.
        """
        path = Path(path)
        check_file(path, must_exist=False)
        if path.exists() and not os.access(path, os.W_OK):
            raise StoreError(path, READ_ONLY)
        if not path.parent.is_dir():
            raise StoreError(path, f"cannot create: folder {path.parent} does not exist")
        if not path.exists() and not os.access(path.parent, os.W_OK):
            raise StoreError(path, f"cannot create: folder {path.parent} is not writable "
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

    # ------------------------------------------------------------------ reading

    def _fail(self, what: str, exc: Exception) -> StoreError:
        return StoreError(self.path, f"{what}: {exc}")

    def filter_where(self, query: TraceQuery | None) -> tuple[str, builtins.list[Any]]:
        """``(where, params)`` for ``query``'s display filter (``"1"`` for none), planned for this
        database: each top-level term an index answers alone (:attr:`CompiledFilter.probes
        <ctxviewer.store.filters.CompiledFilter.probes>`) is counted up to :data:`PROBE_ROWS` + 1 rows
        through its index, and when one keeps at most :data:`PROBE_ROWS`, the query is driven from
        it (``traces.rowid IN (...)``) instead of walking the sort order and filtering. The result
        reads ``traces`` without an alias (the list and count SQL of :mod:`.query`)."""
        compiled = compile_filter(query.text if query is not None else "")
        best: tuple[int, str, tuple[Any, ...]] | None = None
        where = compiled.where
        for sql, params in compiled.probes:
            n = int(self._conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM traces WHERE {sql} LIMIT {PROBE_ROWS + 1})", params).fetchone()[0])
            if n <= PROBE_ROWS and (best is None or n < best[0]):
                best = (n, sql, params)
            elif n > PROBE_ROWS and sql.startswith(_MEMBER):
                # SQLite would drive the list from this membership list anyway (a lookup per
                # member, then a sort of them all); unary + keeps it to a test along the list order
                where = where.replace(sql, "(+" + sql[1:], 1)
        if best is None:
            return where, builtins.list(compiled.params)
        return (f"traces.rowid IN (SELECT rowid FROM traces WHERE {best[1]}) AND {where}",
                [*best[2], *compiled.params])

    def damage(self, seconds: float | None = DAMAGE_SECONDS) -> str | None:
        """Damaged pages SQLite's ``quick_check`` finds in this database within ``seconds``
        (:func:`~ctxviewer.store.schema.find_damage`), or ``None``. Only reads. ``list`` reads only
        the stored facts of ``traces``; this says when the content behind them is broken."""
        return find_damage(self._conn, seconds=seconds)

    def count(self, query: TraceQuery | None = None) -> int:
        """Number of traces matching ``query`` (all traces when ``None``). Reads ``traces`` only."""
        try:
            sql, params = count_sql(query or TraceQuery(), self.filter_where(query))
            return int(self._conn.execute(sql, params).fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot count traces", exc) from None

    def list(self, query: TraceQuery | None = None, offset: int = 0, limit: int = 200) -> builtins.list[TraceRow]:
        """One page of trace rows: ``limit`` rows (negative: all) after skipping ``offset``.

        Reads only the narrow ``traces`` table (no payloads). Raises ``ValueError`` for a
        negative ``offset``.
        """
        try:
            sql, params = list_sql(query or TraceQuery(), offset, limit, self.filter_where(query))
            return [TraceRow.from_sql(r) for r in self._conn.execute(sql, params)]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot list traces", exc) from None

    # ------------------------------------------------------------------ keyed listing (TraceSource)

    def reader(self) -> TraceStore:
        """A new read-only store on the same file, for another thread (a SQLite connection
        belongs to one thread at a time). Raises :class:`StoreError` like :meth:`open`."""
        return TraceStore.open(self.path)

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

    def blob(self, sha256: str) -> str | None:
        """The stored text whose UTF-8 sha256 is ``sha256``, given as 64 hex characters (as users
        see it: ``request.sha256``, :func:`content_hash`; the database keys it by the 32-byte
        digest), or ``None`` if not stored or ``sha256`` is not hex."""
        try:
            digest = bytes.fromhex(sha256)
        except ValueError:
            return None
        return self._blob(digest)

    def _blob(self, digest: bytes) -> str | None:
        """The stored text whose key in ``blobs`` is ``digest`` (32 bytes), or ``None``."""
        try:
            row = self._conn.execute("SELECT text FROM blobs WHERE hash = ?", (digest,)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read content", exc) from None
        return None if row is None else str(row[0])

    def items(self, trace_id: str) -> tuple[ContextItem, ...]:
        """The items of one trace in final order, without reading the rest of the trace.

        Returns ``()`` for an unknown trace_id or a trace without items. :class:`StoreError` when
        damaged, e.g. a content blob missing (``trace 'T' is damaged: item 'I': content blob missing``).
        """
        cols = ", ".join(f"i.{c}" for c in _ITEM_COLUMNS[1:-1])
        sql = (
            f"SELECT {cols}, b.text FROM items i LEFT JOIN blobs b ON b.hash = i.content_hash "
            "WHERE i.trace_id = ? ORDER BY i.ordinal"
        )
        try:
            rows = self._conn.execute(sql, (trace_id,)).fetchall()
            lost = missing_item_blob(self._conn, trace_id) if any(r[-1] is None for r in rows) else None
        except sqlite3.DatabaseError as exc:
            raise self._fail(f"cannot read items of trace {trace_id!r}", exc) from None
        if lost is not None:
            raise StoreError(self.path, f"trace {trace_id!r} is damaged: item {lost!r}: content blob missing")
        out: builtins.list[ContextItem] = []
        for row in rows:
            fast = _item_from_row(*row[1:])
            if fast is not None:
                out.append(fast)
                continue
            d: dict[str, Any] = {}
            for col, value in zip(_ITEM_COLUMNS[2:-1], row[1:-1]):
                if value is None:
                    continue
                if col in _PROVENANCE_COLUMNS:
                    d.setdefault("tokens_provenance", {})[_PROVENANCE_COLUMNS[col]] = value
                else:
                    d[_ITEM_KEYS.get(col, col)] = json.loads(value) if col == "source" else value
            if row[-1] is not None:
                d["content"] = row[-1]
            try:
                out.append(item_from_dict(d, f"items[{row[0]}]"))
            except TraceFormatError as exc:
                raise self._fail(f"trace {trace_id!r} is damaged", exc) from None
        return tuple(out)

    def search(self, query: str, *, after: tuple[int, int, int] | None = None, limit: int = 50) -> SearchPage:
        """One page of full-text hits over item content (:func:`ctxviewer.store.fts.search_page`:
        every word of ``query`` as a word prefix, whole-word hits first, no count or ranking): at
        most ``limit`` hits (negative: all) after cursor ``after``, and the cursor of the next page
        (``None`` at the end). Raises :class:`StoreError` when the database cannot be read."""
        try:
            return fts.search_page(self._conn, query, after=after, limit=limit)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot search content", exc) from None

    def search_hits(self, query: str, limit: int = 50) -> builtins.list[SearchHit]:
        """The first ``limit`` hits of ``query`` (negative: all), following pages as needed
        (:func:`ctxviewer.store.fts.search`). Raises :class:`StoreError` when unreadable."""
        try:
            return fts.search(self._conn, query, limit=limit)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot search content", exc) from None

    def session_trace_ids(self, session_id: str) -> builtins.list[str]:
        """trace_ids of the traces whose ``session_id`` is ``session_id`` (one conversation), in
        send order. Reads the ``traces.session_id`` index (schema 3). Raises :class:`StoreError`
        when the database cannot be read."""
        sql = "SELECT trace_id FROM traces WHERE session_id = ? ORDER BY created, trace_id"
        try:
            return [str(r[0]) for r in self._conn.execute(sql, (session_id,))]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read conversation", exc) from None

    def load(self, trace_id: str) -> RequestTrace:
        """The full trace ``trace_id``, exactly as :meth:`add` stored it.

        The serialized request content comes back from ``blobs`` with ``request.sha256`` set to
        its hash. Raises ``KeyError`` if no such trace; :class:`StoreError` if its record is damaged.
        """
        try:
            row = self._conn.execute(
                "SELECT json, request_hash FROM details WHERE trace_id = ?", (trace_id,)
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail(f"cannot read trace {trace_id!r}", exc) from None
        if row is None:
            raise KeyError(trace_id)
        try:
            d = json.loads(row[0])
            if row[1] is not None:
                request = self._blob(row[1])
                if request is None:
                    raise StoreError(self.path, f"trace {trace_id!r} is damaged: request content blob missing")
                d.setdefault("request", {})["content"] = request
            d["items"] = []
            if "omissions_recorded" not in d:  # written before it was a field: the row's stored fact says
                d["omissions_recorded"] = self._stored_omissions_fact(trace_id)
            trace = trace_from_dict(d)
        except (ValueError, TypeError) as exc:  # TraceFormatError and json errors are ValueErrors
            raise self._fail(f"trace {trace_id!r} is damaged", exc) from None
        return replace(trace, items=self.items(trace_id))

    def _stored_omissions_fact(self, trace_id: str) -> bool:
        """The ``omissions_recorded`` fact on ``trace_id``'s row, for a record written before the
        trace had the field: True when the row has none (NULL) or cannot be read (the damage is
        reported by :meth:`damage`, not here)."""
        try:
            got = self._conn.execute("SELECT omissions_recorded FROM traces WHERE trace_id = ?", (trace_id,)).fetchone()
        except sqlite3.DatabaseError:
            return True
        return not (got is not None and got[0] == 0)

    def _flush_counts(self) -> None:
        self._conn.executemany(
            "INSERT OR IGNORE INTO token_counts (content_hash, encoding, tokens) VALUES (?, ?, ?)",
            [(h, enc, n) for (h, enc), n in self._pending_counts.items()],
        )

    # ------------------------------------------------------------------ writing

    def add(self, traces: Iterable[tuple[RequestTrace, StoredFacts]], waiting: Callable[[str], None] | None = None,
            cancelled: Callable[[], bool] | None = None, write_wait_s: float | None = None) -> int:
        """Store ``traces`` -- ``(trace, facts)`` pairs -- in one transaction: all of them, or (on
        any exception) none.

        ``facts`` is the trace's :class:`~ctxviewer.store.facts.StoredFacts`, the assessment's
        conclusions stored on its row; the store never assesses (the import pipeline does:
        :func:`ctxviewer.pipeline.stored_facts.with_facts`, or over the cores
        :func:`ctxviewer.pipeline.assess_pool.assessed`). A bare trace raises ``TypeError``.
        A trace whose trace_id is already stored replaces it. ``traces`` may be a generator; an
        exception it raises (e.g. a cancelled import) rolls everything back and propagates, and the
        token counts made meanwhile are dropped (nothing is written outside the transaction).
        Returns the number of traces written.

        Concurrency: the write lock is taken first (``BEGIN IMMEDIATE``). When another import holds
        it, ``waiting(message)`` is called once (``"another import is writing to X; waiting up to
        60 s"``) and the lock is retried every 0.1 s for ``write_wait_s`` seconds (default
        :data:`WRITE_WAIT_S`), polling ``cancelled()``; readers are not blocked until the commit,
        since the writer keeps its pages in memory up to :data:`SPILL_PAGES` pages.

        Raises :class:`StoreError` if the store is read-only, another import kept writing past the
        wait (problem starts ``"another import is writing"``), or SQLite refuses the write.
        """
        if self.readonly:
            raise StoreError(self.path, "is open read-only; cannot add traces")
        n = 0
        try:
            self._begin_write(waiting, cancelled, WRITE_WAIT_S if write_wait_s is None else write_wait_s)
            try:
                self._conn.execute(f"PRAGMA cache_spill = {SPILL_PAGES}")
                for entry in traces:
                    if not isinstance(entry, tuple):
                        raise TypeError("TraceStore.add takes (trace, StoredFacts) pairs; assess first "
                                        "(ctxviewer.pipeline.stored_facts.with_facts)")
                    self._write(*entry)
                    n += 1
                self._flush_counts()
                self._conn.execute("COMMIT")
            except BaseException:
                self._pending_counts.clear()
                self._forget_stored_texts()  # rolled back: those blobs are gone again
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            if is_readonly_error(exc):
                raise StoreError(self.path, READ_ONLY) from None
            raise self._fail("cannot add traces", exc) from None
        except UnicodeEncodeError as exc:
            raise self._fail("cannot add traces (text is not valid Unicode)", exc) from None
        self._pending_counts.clear()
        self._forget_stored_texts()
        return n

    def _forget_stored_texts(self) -> None:
        self._stored_texts = {}
        self._stored_chars = 0

    def _begin_write(self, waiting: Callable[[str], None] | None, cancelled: Callable[[], bool] | None,
                     wait_s: float) -> None:
        """``BEGIN IMMEDIATE``, waiting for another writer as :meth:`add` describes."""
        deadline = time.monotonic() + wait_s
        told = False
        old = self._conn.execute("PRAGMA busy_timeout").fetchone()[0]
        self._conn.execute("PRAGMA busy_timeout = 100")
        try:
            while True:
                try:
                    self._conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if not is_busy_error(exc):
                        raise
                if cancelled is not None and cancelled():
                    raise WriteCancelled()
                if time.monotonic() >= deadline:
                    raise StoreError(self.path, f"another import is writing to this database; waited {wait_s:g} s "
                                                "for it to finish; try again when it has")
                if not told and waiting is not None:
                    waiting(f"another import is writing to {self.path}; waiting up to {wait_s:g} s")
                told = True
                time.sleep(0.1)
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {int(old)}")

    def write_facts(self, facts: Iterable[StoredFacts]) -> int:
        """Rewrite the stored facts (the :data:`~ctxviewer.store.facts.FACT_COLUMNS` and
        ``trace_findings`` rows) of traces already stored, in one transaction; ``facts`` name their
        traces. The back-fill after an upgrade (:mod:`ctxviewer.pipeline.backfill`) computes them.
        Returns the rows rewritten. Raises :class:`StoreError` if read-only or SQLite refuses."""
        if self.readonly:
            raise StoreError(self.path, "is open read-only; cannot reassess traces")
        sql = f"UPDATE traces SET {', '.join(f'{c} = ?' for c in FACT_COLUMNS)} WHERE trace_id = ?"
        n = 0
        try:
            with self._db.atomic():
                for stored in facts:
                    self._conn.execute(sql, (*stored.values, stored.trace_id))
                    write_findings(self._conn, stored.trace_id, stored)
                    n += 1
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot reassess traces", exc) from None
        return n

    def rebuild_search(self) -> int:
        """Rebuild the full-text index of item content (:func:`ctxviewer.store.fts.rebuild`) and
        refresh the planner's statistics (``ANALYZE``), for a database whose rows were written
        with direct SQL (``benchmarks/gen_traces.py``). Returns the texts indexed. Raises
        :class:`StoreError` when read-only or when SQLite refuses."""
        if self.readonly:
            raise StoreError(self.path, "is open read-only; cannot rebuild the search index")
        try:
            with self._conn:
                n = fts.rebuild(self._conn)
            self._conn.execute("ANALYZE")
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot rebuild the search index", exc) from None
        return n

    def _put_blob(self, text: str, *, searchable: bool = False) -> bytes:
        """Store ``text`` once by its sha256 digest (returned, 32 bytes); a new item text
        (``searchable``) joins ``content_fts``."""
        h = content_digest(text)
        cur = self._conn.execute(
            "INSERT OR IGNORE INTO blobs (hash, text, bytes) VALUES (?, ?, ?)",
            (h, text, len(text.encode("utf-8", "surrogatepass"))),
        )
        if searchable and cur.rowcount == 1 and cur.lastrowid is not None:
            fts.index_blob(self._conn, cur.lastrowid, text)
        return h

    def _content_ref(self, text: str) -> bytes:
        """The blob reference of item text ``text``, stored (and indexed for search) by
        :meth:`_put_blob` the first time this transaction meets it; a text met again (the same
        documents, tool definitions and history turns recur across the traces of an import) is
        found in memory, without hashing or an INSERT. Remembers up to :data:`STORED_TEXT_CHARS`
        characters, then starts again (the INSERT OR IGNORE stays correct either way)."""
        ref = self._stored_texts.get(text)
        if ref is None:
            ref = self._put_blob(text, searchable=True)
            if self._stored_chars + len(text) > STORED_TEXT_CHARS:
                self._stored_texts.clear()
                self._stored_chars = 0
            self._stored_texts[text] = ref
            self._stored_chars += len(text)
        return ref

    def _write(self, t: RequestTrace, stored: StoredFacts) -> None:
        tid = t.trace_id
        item_rows = [item_row(tid, ordinal, item, None if item.content is None else self._content_ref(item.content))
                     for ordinal, item in enumerate(t.items)]
        details = trace_to_dict(replace(t, items=()))  # items live in their own table
        details.pop("items", None)
        details["omissions_recorded"] = t.omissions_recorded  # always, so load() never asks the row
        request_hash: bytes | None = None
        if t.request.content is not None:
            request_hash = self._put_blob(t.request.content)
            details["request"].pop("content", None)
            details["request"]["sha256"] = request_hash.hex()  # users see hex
        stored.check_for(tid)
        retained = sum(1 for i in t.items if i.status is Status.RETAINED)
        row = (  # in ROW_COLUMNS order
            tid, format_created(t.created), t.service, t.endpoint.provider, t.endpoint.model,
            t.endpoint.capacity, stored.input_tokens, t.reserved_output_tokens,
            retained, len(t.items) - retained, t.replay_of, t.source_format, *stored.values, t.session_id,
            *span_row_values(t.attributes),
        )
        c = self._conn
        c.execute("DELETE FROM items WHERE trace_id = ?", (tid,))
        c.executemany(
            f"INSERT INTO items ({', '.join(_ITEM_COLUMNS)}) VALUES ({', '.join('?' * len(_ITEM_COLUMNS))})",
            item_rows,
        )
        c.execute(
            "INSERT OR REPLACE INTO details (trace_id, json, request_hash) VALUES (?, ?, ?)",
            (tid, json.dumps(details, ensure_ascii=False, separators=(",", ":")), request_hash),
        )
        c.execute(
            f"INSERT OR REPLACE INTO traces ({', '.join(ROW_COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(ROW_COLUMNS))})",
            row,
        )
        write_findings(c, tid, stored)
