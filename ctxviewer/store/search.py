"""Full-text search of item content as the store answers it: :meth:`TraceSearch.search` (one page
after a cursor) and :meth:`~TraceSearch.search_hits` (the first hits). The index and the query
language are :mod:`ctxviewer.store.fts`. No Qt here.
"""

from __future__ import annotations

import builtins
import sqlite3
from typing import Callable

from ctxviewer.store import fts
from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.fts import SearchHit, SearchPage


class TraceSearch(StoreConnection):
    """The search part of :class:`~ctxviewer.store.TraceStore`. Raises
    :class:`~ctxviewer.store.StoreError` when the database cannot be read."""

    def search(self, query: str, *, after: tuple[int, int, int] | None = None, limit: int = 50,
               cancelled: Callable[[], bool] | None = None) -> SearchPage:
        """One page of full-text hits over item content (:func:`ctxviewer.store.fts.search_page`:
        every word of ``query`` as a word prefix, whole-word hits first, no count or ranking): at
        most ``limit`` hits (negative: all) after cursor ``after``, and the cursor of the next page
        (``None`` at the end). ``cancelled`` is not polled: a page is one bounded read of the
        index. Raises :class:`StoreError` when the database cannot be read."""
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
