"""The review file: verdicts and notes in their own SQLite file beside the trace database.

``traces.db`` -> ``traces.review.sqlite`` (:func:`review_path`). The trace database is never
written (it stays read-only); a review file can be shared or deleted on its own. One table::

    reviews(trace_id, item_id, rule, span_start, span_end,   -- the FindingKey (primary key)
            verdict,      -- 'confirmed' | 'false_positive' | 'follow_up' | NULL (note only)
            note,         -- free text, '' when none
            reviewed_at)  -- ISO 8601 UTC

plus ``meta(key, value)`` with ``schema_version = 1``. Every write is one transaction (a crash
leaves the previous state); the file is created on the first write.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from .keys import FindingKey, Review, ReviewVerdict

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reviews (
    trace_id TEXT NOT NULL, item_id TEXT NOT NULL, rule TEXT NOT NULL,
    span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
    verdict TEXT CHECK (verdict IN ('confirmed', 'false_positive', 'follow_up')),
    note TEXT NOT NULL DEFAULT '',
    reviewed_at TEXT NOT NULL,
    PRIMARY KEY (trace_id, item_id, rule, span_start, span_end)
);
"""


class ReviewFileError(Exception):
    """The review file exists but is not a ctxviewer review file (the message names it)."""


def review_path(db: str | Path) -> Path:
    """The review file beside ``db``: ``dir/traces.db`` -> ``dir/traces.review.sqlite``."""
    db = Path(db)
    return db.with_name(db.stem + ".review.sqlite")


class ReviewFile:
    """Verdicts and notes of one trace database (see the module docstring).

    Raises :class:`ReviewFileError` when ``path`` exists and is not a review file.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        if self.path.exists():
            self._connect()

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                conn = sqlite3.connect(self.path)
                with conn:
                    conn.executescript(_SCHEMA)
                    conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            except sqlite3.DatabaseError as exc:
                raise ReviewFileError(f"{self.path}: not a ctxviewer review file ({exc})") from None
            self._conn = conn
        return self._conn

    def close(self) -> None:
        """Close the connection (a later write reopens it)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> ReviewFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def all(self) -> dict[FindingKey, Review]:
        """Every recorded review by key (empty when the file does not exist yet)."""
        if self._conn is None:
            return {}
        rows = self._conn.execute("SELECT trace_id, item_id, rule, span_start, span_end, verdict, note, reviewed_at "
                                  "FROM reviews").fetchall()
        return {FindingKey(t, i, r, s, e): Review(ReviewVerdict(v) if v else None, n, datetime.fromisoformat(at))
                for t, i, r, s, e, v, n, at in rows}

    def write(self, key: FindingKey, verdict: ReviewVerdict | None, note: str) -> Review:
        """Record ``verdict`` and ``note`` for ``key`` in one transaction (replacing what was there).
        Returns the stored :class:`Review`."""
        now = datetime.now(timezone.utc).replace(microsecond=0)
        conn = self._connect()
        with conn:
            conn.execute(
                "INSERT OR REPLACE INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key.trace_id, key.item_id, key.rule, key.start, key.end, verdict.value if verdict else None,
                 note, now.isoformat()),
            )
        return Review(verdict, note, now)

    def clear(self, key: FindingKey) -> None:
        """Forget the review of ``key`` (one transaction)."""
        if self._conn is None:
            return
        with self._conn:
            self._conn.execute("DELETE FROM reviews WHERE trace_id=? AND item_id=? AND rule=? AND span_start=? "
                               "AND span_end=?", (key.trace_id, key.item_id, key.rule, key.start, key.end))
