"""The token-count cache of a trace database: tokens per (content sha256, encoding), counted once.

Counting a long text with tiktoken costs far more than reading a cached count, and the same
documents, tool definitions and history turns recur across the traces of an import, so the store
keeps every count in ``token_counts`` (schema 1) keyed by the text's 32-byte sha256 digest and the
encoding name. :class:`TokenCountCache` is the part of :class:`~ctxviewer.store.TraceStore` that
reads and fills it; new counts wait in memory and are written with the next ``add`` or at
``close`` (a read-only store keeps them in memory only). No Qt here.
"""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Mapping

from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.rows import content_digest


class TokenCountCache(StoreConnection):
    """Token counts of texts, cached in ``token_counts`` (see the module docstring). Mixed into
    :class:`~ctxviewer.store.TraceStore`; its pending counts are written by
    :meth:`~ctxviewer.store.TraceStore.add` and :meth:`~ctxviewer.store.TraceStore.close`."""

    def token_count(self, text: str, encoding: str) -> int:
        """Tokens in ``text`` under ``encoding`` (a tiktoken name), cached per (content sha256, encoding).

        A miss counts with :func:`ctxviewer.tokens.counting.count_tokens` (raises its
        ``UnknownEncodingError`` for an encoding not available offline). Writable stores save new
        counts in ``token_counts`` with the next :meth:`add` or at :meth:`close`; read-only stores
        keep them in memory only.
        """
        key = (content_digest(text), encoding)
        cached = self._pending_counts.get(key)
        if cached is not None:
            return cached
        try:
            row = self._conn.execute(
                "SELECT tokens FROM token_counts WHERE content_hash = ? AND encoding = ?", key
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the token-count cache", exc) from None
        if row is not None:
            return int(row[0])
        from ctxviewer.tokens.counting import count_tokens  # a miss only (a read of the list never counts)

        n = count_tokens(text, encoding)
        self._pending_counts[key] = n
        return n

    def token_counts(self, texts: builtins.list[str], encoding: str) -> builtins.list[int]:
        """:meth:`token_count` of each of ``texts`` (in order): each distinct text hashed once,
        counts made in this run or cached in ``token_counts`` (looked up 500 hashes a query) first,
        then every distinct text not cached counted once, in parallel over the cores
        (:func:`ctxviewer.tokens.counting.count_many`). Raises like :meth:`token_count`."""
        from ctxviewer.tokens.counting import count_many

        keys = {t: content_digest(t) for t in dict.fromkeys(texts)}  # each distinct text hashed once
        known: dict[str, int] = {}
        ask: dict[bytes, str] = {}  # digest -> text, not counted in this run yet
        for text, h in keys.items():
            n = self._pending_counts.get((h, encoding))
            if n is None:
                ask[h] = text
            else:
                known[text] = n
        hashes = builtins.list(ask)
        try:
            for i in range(0, len(hashes), 500):  # the cache, 500 hashes a query
                part = hashes[i:i + 500]
                sql = (f"SELECT content_hash, tokens FROM token_counts WHERE encoding = ? "
                       f"AND content_hash IN ({', '.join('?' * len(part))})")
                for h, n in self._conn.execute(sql, (encoding, *part)):
                    known[ask[h]] = int(n)
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot read the token-count cache", exc) from None
        missing = [t for t in ask.values() if t not in known]
        for text, n in zip(missing, count_many(missing, encoding) if missing else ()):
            self._pending_counts[(keys[text], encoding)] = n
            known[text] = n
        return [known[t] for t in texts]

    def remember_counts(self, counts: Mapping[tuple[bytes, str], int]) -> None:
        """Token counts made outside this store -- ``(content digest, encoding) -> tokens``, by an
        import's worker processes -- written into ``token_counts`` with this run's own (a count
        already cached is kept)."""
        for key, n in counts.items():
            self._pending_counts.setdefault(key, n)

    def _flush_counts(self) -> None:
        """Write the pending counts into ``token_counts`` (inside the caller's transaction)."""
        self._conn.executemany(
            "INSERT OR IGNORE INTO token_counts (content_hash, encoding, tokens) VALUES (?, ?, ?)",
            [(h, enc, n) for (h, enc), n in self._pending_counts.items()],
        )
