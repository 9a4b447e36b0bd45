"""Writing the trace database: traces with their stored facts (:meth:`TraceWrites.add`, one
transaction, waiting for another import's write lock), the facts alone (:meth:`~TraceWrites.write_facts`,
the back-fill after an upgrade), the search index rebuilt (:meth:`~TraceWrites.rebuild_search`), and
content stored once by its sha256 in ``blobs``. Only a store opened with
:meth:`~ctxviewer.store.TraceStore.create` writes; the store never assesses. No Qt here.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ctxviewer.store import fts, session_rollup
from ctxviewer.store.errors import READ_ONLY, StoreError
from ctxviewer.store.facts import FACT_COLUMNS, StoredFacts, write_findings
from ctxviewer.store.query import ROW_COLUMNS
from ctxviewer.store.record import first_ordinal, slim, slim_attributes
from ctxviewer.store.rows import ITEM_COLUMNS, content_digest, item_row
from ctxviewer.store.score_rows import write_scores
from ctxviewer.store.token_cache import TokenCountCache
from ctxviewer.store.trace_row import trace_row_values
from ctxviewer.util.sqlite_errors import is_busy_error, is_readonly_error

if TYPE_CHECKING:
    from ctxviewer.model.run import RunSpan
    from ctxviewer.model.trace import RequestTrace

WRITE_WAIT_S = 60.0
"""Seconds :meth:`TraceStore.add` waits for another import to finish writing before giving up."""
SPILL_PAGES = 8192
"""Dirty pages (about 32 MB at 4 KiB) an import keeps in memory before writing to the database file
mid-transaction (import memory stays bounded whatever the file's size); below it -- about 5,000
traces of a few KB -- readers never wait for the import, only for its commit; past it a reader
waits for the commit (a write-ahead-log database never makes them wait)."""
FLUSH_TRACES = 512
"""Traces :meth:`TraceWrites.add` writes between flushes of what it holds in memory for the
transaction (the run steps read so far, the new token counts): memory flat in the import's size."""


STATEMENT_JOURNAL = "MEMORY"
"""``PRAGMA temp_store`` while :meth:`TraceWrites.add` writes: each ``INSERT OR REPLACE INTO traces``
(its session-rollup triggers, its indexes) keeps a statement journal of the pages it changes, which
SQLite moves to a temporary file past 64 KiB and keeps there for the rest of the transaction --
about 57,000 ``pwrite`` calls for 2,000 traces. In memory it is the same journal without the system
calls (a few dozen pages per statement, freed as the statement ends); the database written is the
same. Set back afterwards."""


class WriteCancelled(Exception):
    """Raised by :meth:`TraceStore.add` when ``cancelled()`` became true while waiting for the write lock."""


STORED_TEXT_CHARS = 8_000_000
"""Characters of item text one :meth:`TraceStore.add` remembers as already stored (about as much
memory as the texts themselves, which the traces of an import mostly share)."""


class TraceWrites(TokenCountCache):
    """The writing part of :class:`~ctxviewer.store.TraceStore`; the token counts made meanwhile
    (:class:`~ctxviewer.store.token_cache.TokenCountCache`) are written in the same transaction."""

    def add(self, traces: Iterable[tuple[RequestTrace, StoredFacts]], waiting: Callable[[str], None] | None = None,
            cancelled: Callable[[], bool] | None = None, write_wait_s: float | None = None,
            runs: Iterable[RunSpan] = (), details: Callable[[RequestTrace], dict[str, Any] | None] | None = None) -> int:
        """Store ``traces`` -- ``(trace, facts)`` pairs -- in one transaction: all of them, or (on
        any exception) none.

        ``facts`` is the trace's :class:`~ctxviewer.store.facts.StoredFacts`, the assessment's
        conclusions stored on its row; the store never assesses (the import pipeline does:
        :func:`ctxviewer.pipeline.stored_facts.with_facts`, or over the cores
        :func:`ctxviewer.pipeline.assess_pool.assessed`). A bare trace raises ``TypeError``.
        A trace whose trace_id is already stored replaces it. ``traces`` may be a generator; an
        exception it raises (e.g. a cancelled import) rolls everything back and propagates, and the
        token counts made meanwhile are dropped (nothing is written outside the transaction).
        Returns the number of traces written. ``runs``, the steps of the runs the traces belong to
        (:class:`~ctxviewer.model.run.RunSpan`, the run tree), are written after the traces in the
        same transaction; it may be a list the ``traces`` generator fills as it goes (the import),
        which is then written and emptied every :data:`FLUSH_TRACES` traces, with the new token
        counts, so the memory held for the transaction does not grow with its size. ``details(trace)``
        may give the JSON form of the trace without its items (``trace_to_dict(replace(trace,
        items=()))``, which the import made when it checked the trace could be read back:
        :func:`ctxviewer.pipeline.sanitize.checked`), or ``None``; the store then does not convert
        it again. The dict is consumed (changed) by the write.

        Concurrency: the write lock is taken first (``BEGIN IMMEDIATE``). When another import holds
        it, ``waiting(message)`` is called once (``"another program is writing to X; waiting up to
        60 s"``) and the lock is retried every 0.1 s for ``write_wait_s`` seconds (default
        :data:`WRITE_WAIT_S`), polling ``cancelled()``; readers are not blocked until the commit
        while the writer keeps its pages in memory, up to :data:`SPILL_PAGES` pages.

        Raises :class:`StoreError` if the store is read-only, another import kept writing past the
        wait (problem starts ``"another program is writing"``), or SQLite refuses the write.
        """
        if self.readonly:
            raise StoreError(self.path, "is open read-only; cannot add traces")
        n = 0
        temp = self._temp_store(STATEMENT_JOURNAL)
        try:
            self._begin_write(waiting, cancelled, WRITE_WAIT_S if write_wait_s is None else write_wait_s)
            try:
                self._conn.execute(f"PRAGMA cache_spill = {SPILL_PAGES}")
                for entry in traces:
                    if not isinstance(entry, tuple):
                        raise TypeError("TraceStore.add takes (trace, StoredFacts) pairs; assess first "
                                        "(ctxviewer.pipeline.stored_facts.with_facts)")
                    self._write(*entry, None if details is None else details(entry[0]))
                    n += 1
                    if n % FLUSH_TRACES == 0:
                        self._flush_held(runs)
                self.write_runs(runs)  # type: ignore[attr-defined]  # TraceRuns'
                self._flush_counts()
                session_rollup.refresh(self._conn)
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
        finally:
            self._temp_store(temp)  # back, for this connection's readers
        self._pending_counts.clear()
        self._forget_stored_texts()
        return n

    def remove(self, trace_ids: Iterable[str]) -> int:
        """Delete the traces ``trace_ids`` (their row, items, details and findings) in one
        transaction; ids not stored are skipped. Their content stays in ``blobs`` (shared by
        content hash; search reaches a text only through an item). For the live receiver, whose
        re-derived OTel trace no longer makes a trace it made before (a tool execution kept on its
        own until the chat span it fed arrived). Returns the number of traces deleted. Raises
        :class:`StoreError` if the store is read-only or SQLite refuses the write."""
        if self.readonly:
            raise StoreError(self.path, "is open read-only; cannot remove traces")
        ids = [(t,) for t in dict.fromkeys(trace_ids)]
        if not ids:
            return 0
        try:
            self._begin_write(None, None, WRITE_WAIT_S)
            try:
                n = self._conn.executemany("DELETE FROM traces WHERE trace_id = ?", ids).rowcount  # not the triggers'
                for table in ("items", "details", "trace_findings"):
                    self._conn.executemany(f"DELETE FROM {table} WHERE trace_id = ?", ids)
                session_rollup.refresh(self._conn)
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            if is_readonly_error(exc):
                raise StoreError(self.path, READ_ONLY) from None
            raise self._fail("cannot remove traces", exc) from None
        return n

    def use_write_ahead_log(self) -> None:
        """Switch the database to SQLite's write-ahead log (``PRAGMA journal_mode = WAL``), for a
        writer that commits often while readers read (the live receiver,
        :mod:`ctxviewer.pipeline.live_writer`): readers then never wait for a commit. A WAL
        database opens read-only as any other (:func:`~ctxviewer.store.file_check.read_only_query`).
        Raises :class:`StoreError` when the store is read-only or SQLite refuses."""
        if self.readonly:
            raise StoreError(self.path, "is open read-only; cannot switch its journal")
        try:
            self._conn.execute("PRAGMA journal_mode = WAL").fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot switch to the write-ahead log", exc) from None

    def leave_write_ahead_log(self) -> bool:
        """Back to the rollback journal (``PRAGMA journal_mode = DELETE``), which needs the database
        to itself: returns False (it stays a WAL database, which reads the same) while a reader has
        it open. Never raises."""
        try:
            row = self._conn.execute("PRAGMA journal_mode = DELETE").fetchone()
        except sqlite3.DatabaseError:
            return False
        return bool(row) and str(row[0]).lower() == "delete"

    def _flush_held(self, runs: Iterable[RunSpan]) -> None:
        """Mid-transaction: write the run steps read so far when ``runs`` is the list the reader
        fills (and empty it), and the pending token counts (then forgotten: they are in the
        database now, where :meth:`token_counts` finds them)."""
        if isinstance(runs, list) and runs:
            self.write_runs(runs)  # type: ignore[attr-defined]  # TraceRuns'
            runs.clear()
        self._flush_counts()
        self._pending_counts.clear()

    def _temp_store(self, value: str | int | None) -> int | None:
        """Set ``PRAGMA temp_store`` to ``value`` (``None``: leave it); returns the setting before,
        ``None`` when SQLite refused (it refuses within a transaction once the connection has temp
        tables): the add then goes on with the setting it has, whose journals are the same."""
        if value is None:
            return None
        try:
            before = int(self._conn.execute("PRAGMA temp_store").fetchone()[0])
            self._conn.execute(f"PRAGMA temp_store = {value}")
        except sqlite3.DatabaseError:
            return None
        return before

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
                    raise StoreError(self.path, f"another program is writing to this database (an import, or any "
                                                f"holder of its write lock); waited {wait_s:g} s for it to finish; "
                                                "try again when it has")
                if not told and waiting is not None:
                    waiting(f"another program is writing to {self.path}; waiting up to {wait_s:g} s")
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
                session_rollup.refresh(self._conn)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot reassess traces", exc) from None
        return n

    def rebuild_search(self) -> int:
        """Rebuild the full-text index of item content (:func:`ctxviewer.store.fts.rebuild`) and
        re-sum the sessions marked stale (:func:`ctxviewer.store.session_rollup.refresh`) and
        refresh the planner's statistics (``ANALYZE``), for a database whose rows were written
        with direct SQL (``benchmarks/gen_traces.py``). Returns the texts indexed. Raises
        :class:`StoreError` when read-only or when SQLite refuses."""
        if self.readonly:
            raise StoreError(self.path, "is open read-only; cannot rebuild the search index")
        try:
            with self._conn:
                n = fts.rebuild(self._conn)
                session_rollup.refresh(self._conn)
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

    def _write(self, t: RequestTrace, stored: StoredFacts, known: dict[str, Any] | None = None) -> None:
        tid = t.trace_id
        item_rows = [item_row(tid, ordinal, item, None if item.content is None else self._content_ref(item.content))
                     for ordinal, item in enumerate(t.items)]
        if known is None:
            from ctxviewer.model.serialize import trace_to_dict  # the codec: only writing needs it

            known = trace_to_dict(replace(t, items=()))  # items live in their own table
        details = known
        details.pop("items", None)
        details["omissions_recorded"] = t.omissions_recorded  # always, so load() never asks the row
        request_hash: bytes | None = None
        if t.request.content is not None:
            request_hash = self._put_blob(t.request.content)
            details["request"].pop("content", None)
            details["request"]["sha256"] = request_hash.hex()  # users see hex
        stored.check_for(tid)
        row = trace_row_values(t, stored)  # in ROW_COLUMNS order
        columns = dict(zip(ROW_COLUMNS, row))
        slim(details, columns, first_ordinal([item.content for item in t.items]))  # schema 9: no repeats
        slim_attributes(details, columns)  # schema 13
        c = self._conn
        c.execute("DELETE FROM items WHERE trace_id = ?", (tid,))
        c.executemany(
            f"INSERT INTO items ({', '.join(ITEM_COLUMNS)}) VALUES ({', '.join('?' * len(ITEM_COLUMNS))})",
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
        write_scores(c, tid, t.attributes)
