"""Schema 9's compaction of an existing database (step ``m019_compact_storage``), and schema 13's of
its trace records (:func:`slim_record_attributes`, step ``m023_compact_attributes``): the trace records
slimmed (:mod:`~ctxviewer.store.record`) and ``details`` and ``token_counts`` rebuilt as
WITHOUT ROWID tables, so their primary key is the table itself instead of a second B-tree beside
it. SQL and :func:`~ctxviewer.store.record.slim` only: nothing is re-assessed. No Qt here.

Kept as they were: every index of ``traces``, ``items``, ``trace_findings``, ``trace_scores`` and
``run_spans`` (each is used by a query plan of the store's own queries:
``tests/store/test_query_plans.py``), and ``content_fts``, an FTS5 index
that holds no copy of ``blobs`` (external content then, contentless since schema 15), with full detail (quoted phrases are part of the search language, which
``detail=column`` cannot answer) and its 2- and 3-character prefix indexes (61 % of its bytes; the
word-prefix rule's lookups read them).

Measured with ``dbstat`` on 10,000 OTel GenAI chat traces (``benchmarks/bench_perf.py``), bytes a
trace: ``details`` 2,053 -> about 950 with its primary-key index (66) gone; ``token_counts``'
primary-key index (114) gone.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Iterator

from ctxviewer.store.record import ATTRIBUTE_COLUMNS, ATTRIBUTES_IN_ROW, COLUMNS, slim, slim_attributes
from ctxviewer.store.rows import content_digest

DETAILS_SQL = ("CREATE TABLE {name} (trace_id TEXT NOT NULL PRIMARY KEY, json TEXT NOT NULL, request_hash BLOB) "
               "WITHOUT ROWID")
"""DDL of ``details`` since schema 9 (``{name}``: the table's name)."""

TOKEN_COUNTS_SQL = ("CREATE TABLE {name} (content_hash BLOB NOT NULL, encoding TEXT NOT NULL, tokens INTEGER NOT NULL, "
                    "PRIMARY KEY (content_hash, encoding)) WITHOUT ROWID")
"""DDL of ``token_counts`` since schema 9."""

CHUNK = 5000
"""Records read, slimmed and written at a time."""


def _keyset_chunks(conn: sqlite3.Connection, select: str) -> Iterator[list[Any]]:
    """The rows of ``select`` (first column the key; parameters ``key > ?`` and ``LIMIT ?``) in
    chunks of :data:`CHUNK`, in key order."""
    after = ""
    while True:
        rows = conn.execute(select, (after, CHUNK)).fetchall()
        if not rows:
            return
        yield rows
        after = rows[-1][0]


def compact(conn: sqlite3.Connection) -> int:
    """Rebuild ``details`` (each record slimmed) and ``token_counts`` as WITHOUT ROWID tables, in
    the caller's transaction. A record that is not a JSON object is copied unchanged (``load``
    names its damage as before). Returns the records slimmed."""
    conn.execute(DETAILS_SQL.format(name="details_v9"))
    cols = ", ".join(f"t.{c}" for c in COLUMNS)
    select = (f"SELECT d.trace_id, d.json, d.request_hash, {cols} FROM details d "
              "LEFT JOIN traces t ON t.trace_id = d.trace_id WHERE d.trace_id > ? ORDER BY d.trace_id LIMIT ?")
    n = 0
    for rows in _keyset_chunks(conn, select):
        out = []
        for trace_id, text, request_hash, *values in rows:
            slimmed = _slimmed(conn, trace_id, text, dict(zip(COLUMNS, values)))
            n += slimmed is not None
            out.append((trace_id, text if slimmed is None else slimmed, request_hash))
        conn.executemany("INSERT INTO details_v9 (trace_id, json, request_hash) VALUES (?, ?, ?)", out)
    conn.execute("DROP TABLE details")
    conn.execute("ALTER TABLE details_v9 RENAME TO details")
    conn.execute(TOKEN_COUNTS_SQL.format(name="token_counts_v9"))
    conn.execute("INSERT OR IGNORE INTO token_counts_v9 (content_hash, encoding, tokens) "
                 "SELECT content_hash, encoding, tokens FROM token_counts WHERE content_hash IS NOT NULL AND encoding IS NOT NULL")
    conn.execute("DROP TABLE token_counts")
    conn.execute("ALTER TABLE token_counts_v9 RENAME TO token_counts")
    return n


def _slimmed(conn: sqlite3.Connection, trace_id: str, text: Any, columns: dict[str, Any]) -> str | None:
    """The slim JSON of one record, or ``None`` to keep ``text`` as it is (not a JSON object)."""
    try:
        record = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    columns["trace_id"] = trace_id

    def ordinal_of(request: str) -> int | None:
        row = conn.execute("SELECT ordinal FROM items WHERE trace_id = ? AND content_hash = ? ORDER BY ordinal LIMIT 1",
                           (trace_id, content_digest(request))).fetchone()
        return None if row is None else int(row[0])

    return json.dumps(slim(record, columns, ordinal_of), ensure_ascii=False, separators=(",", ":"))


def slim_record_attributes(conn: sqlite3.Connection) -> int:
    """Schema 13, in the caller's transaction: every trace record's ``attributes`` without what its
    ``traces`` row holds (:func:`~ctxviewer.store.record.slim_attributes`), rewritten in place. A
    record that is not a JSON object, or already slimmed, stays as it is. Returns the records rewritten."""
    cols = ", ".join(f"t.{c}" for c in ATTRIBUTE_COLUMNS)
    select = (f"SELECT d.trace_id, d.json, {cols} FROM details d JOIN traces t ON t.trace_id = d.trace_id "
              "WHERE d.trace_id > ? ORDER BY d.trace_id LIMIT ?")
    n = 0
    for rows in _keyset_chunks(conn, select):
        out = []
        for trace_id, text, *values in rows:
            try:
                record = json.loads(text)
            except (TypeError, ValueError):
                continue
            if isinstance(record, dict) and ATTRIBUTES_IN_ROW not in record:
                slim_attributes(record, dict(zip(ATTRIBUTE_COLUMNS, values)))
                if ATTRIBUTES_IN_ROW in record:
                    out.append((json.dumps(record, ensure_ascii=False, separators=(",", ":")), trace_id))
        conn.executemany("UPDATE details SET json = ? WHERE trace_id = ?", out)
        n += len(out)
    return n
