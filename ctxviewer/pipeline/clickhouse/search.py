"""Full-text search over a ClickHouse spans table: the SQLite store's query language and hits,
read in place (``ctxviewer search URL QUERY``, the window's search dock).

The query language and the hit are those of :mod:`ctxviewer.store.fts` (every word a word prefix,
``"quoted phrases"``, one item holding them all; snippet and highlighted spans by
:func:`~ctxviewer.store.fts.snippet` / :func:`~ctxviewer.store.fts.match_spans`), and hits come in
the same two phases: items where every word occurs whole first, then items where a word only
starts a longer one. Within a phase hits are in ``(Timestamp, SpanId)`` order of their chat span,
then item order (SQLite lists the items sharing one text together, in the order that text was
first stored; the set of hits is the same).

How: the server narrows the chat spans of the window to those whose OTel trace holds every ASCII
word of the query somewhere in its attribute and event text (``positionCaseInsensitive``: a
superset, since a word of the text is also a substring of the exporter's JSON text; a word with
other characters is not looked for on the server, whose JSON may escape it), walking the window
in :data:`SLICE_NS` slices, newest data never read ahead; each candidate is then read whole
(:meth:`ClickHouseSource.load <ctxviewer.pipeline.clickhouse.source.ClickHouseSource.load>`, the
mapping ``show`` reads) and its items matched exactly as the SQLite search matches a text (the
text or its joined view, :func:`~ctxviewer.store.fts.views`). The server's narrowing looks for
the words as written, so a word split by invisible characters (``ig\u200bnore``) is not found
here unless another word of the query narrows to its trace; the SQLite store finds it. A
search with no hit therefore scans the window once, a slice at a time: ``cancelled()`` is polled
between slices and :meth:`ClickHouseSource.cancel` kills the slice in flight on a server.

Cursor: ``(phase, Timestamp ns, span << 24 | ordinal)`` (the span id's UTF-8 bytes as an
integer), three non-negative integers as :func:`ctxviewer.store.cursor.encode_search_cursor`
takes them. No Qt here.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, Protocol

from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.clickhouse.schema import TableSchema
from ctxviewer.store.fts import (
    PREFIX,
    WHOLE,
    SearchHit,
    SearchPage,
    match_spans,
    matches,
    phrase_patterns,
    query_terms,
    snippet,
    views,
)


class SearchedSource(Protocol):
    """What a search reads of :class:`ctxviewer.pipeline.clickhouse.source.ClickHouseSource`."""

    schema: TableSchema
    window: tuple[int, int]

    def _query(self, sql: str, **params: Any) -> list[tuple[Any, ...]]: ...

    def load(self, trace_id: str) -> RequestTrace: ...

SLICE_NS = 3600 * 10**9
"""The time slice one candidate query reads (1 h of the window, nanoseconds)."""
CANDIDATES = 200
"""Candidate spans one query returns at most (keyset-paged within the slice)."""
_ORD_BITS = 24


def span_number(span: str) -> int:
    """``span`` (a SpanId) as a non-negative integer: its UTF-8 bytes, big-endian."""
    return int.from_bytes(span.encode("utf-8"), "big")


def span_text(number: int) -> str:
    """The SpanId of :func:`span_number` ``number``."""
    return number.to_bytes((number.bit_length() + 7) // 8, "big").decode("utf-8")


def cursor_of(phase: int, ns: int, span: str, ordinal: int) -> tuple[int, int, int]:
    """The search cursor of the item ``ordinal`` of chat span ``span`` (started at ``ns``)."""
    return phase, ns, (span_number(span) << _ORD_BITS) | ordinal


def _words(query: str) -> list[str]:
    """The query's words the server may look for: ASCII letters and digits only (module docstring)."""
    return sorted({w for p in query_terms(query) for w in p if w.isascii()})


def candidate_keys(source: SearchedSource, query: str, after: tuple[int, str] | None = None,
                   cancelled: Callable[[], bool] | None = None) -> Iterator[tuple[int, str, str]]:
    """``(Timestamp ns, TraceId, SpanId)`` of the chat spans after the key ``after`` whose OTel
    trace (within the window) holds every ASCII word of ``query``, in ``(Timestamp, SpanId)``
    order, a time slice at a time. Stops early when ``cancelled()`` turns true. Raises
    :class:`~ctxviewer.store.StoreError` when a query fails (or is killed)."""
    schema = source.schema
    words = _words(query)
    params = {f"w{i}": w for i, w in enumerate(words)}
    lo, hi = source.window
    start = max(lo, after[0]) if after else lo
    while start <= hi:
        end = min(hi, start + SLICE_NS - 1)
        key = after
        while True:
            if cancelled is not None and cancelled():
                return
            sql = schema.search_candidates_sql(len(words), key is not None)
            extra = {"s_lo": start, "s_hi": end, "limit": CANDIDATES, **params}
            if key is not None:
                extra.update(ts=key[0], span=key[1])
            rows = source._query(sql, **extra)
            for ns, tr, sp in rows:
                yield int(ns), str(tr), str(sp)
            if len(rows) < CANDIDATES:
                break
            key = (int(rows[-1][0]), str(rows[-1][2]))
        after = None
        start = end + 1


def search_page(source: SearchedSource, query: str, *, after: tuple[int, int, int] | None = None,
                limit: int = 50, cancelled: Callable[[], bool] | None = None) -> SearchPage:
    """Up to ``limit`` hits (negative: all) of ``query`` after the cursor ``after`` (module
    docstring), and the cursor of the next page (``None``: no more). Raises
    :class:`~ctxviewer.store.StoreError` when the store cannot be read."""
    phrases = query_terms(query)
    if not phrases or limit == 0:
        return SearchPage([], None)
    exact = [re.compile(r"(?<![^\W_])" + r"[\W_]+".join(re.escape(w) + r"(?![^\W_])" for w in p), re.IGNORECASE)
             for p in phrases]
    patterns = phrase_patterns(query)
    needles = [w for p in phrases for w in p]
    phase, ns_after, packed = after if after is not None else (WHOLE, 0, 0)
    span_after = span_text(packed >> _ORD_BITS) if after is not None and packed >> _ORD_BITS else ""
    ord_after = packed & ((1 << _ORD_BITS) - 1) if after is not None else -1
    hits: list[SearchHit] = []

    def matched(ns: int, tr: str, sp: str, phase: int, skip_to: int) -> SearchPage | None:
        """Add the hits of chat span ``sp`` after item ``skip_to``; the full page when ``limit`` is reached."""
        try:
            trace = source.load(f"{tr}:{sp}")
        except KeyError:
            return None
        for ordinal, item in enumerate(trace.items):
            text = item.content
            if ordinal <= skip_to or not text:
                continue
            seen = views(text)  # the text and its joined view, as the SQLite index
            folded = " ".join(seen).lower()  # a cheap no first, as the SQLite search
            if not all(w in folded for w in needles) or not matches(seen, patterns):
                continue
            if (phase == WHOLE) != matches(seen, exact):
                continue  # not this phase's hit
            if len(hits) == limit:
                return SearchPage(hits, hits[-1].cursor)
            snip, spans = snippet(text, match_spans(text, query))
            hits.append(SearchHit(trace.trace_id, item.id, ordinal, snip, spans, cursor_of(phase, ns, sp, ordinal)))
        return None

    key: tuple[int, str] | None = (ns_after, span_after) if span_after else None
    while phase <= PREFIX:
        if key is not None:  # the rest of the cursor's span first, then the spans after it
            found = source._query(source.schema.trace_of_span_sql(), ts=key[0], span=key[1])
            tr = str(found[0][0]) if found else None
            if tr is not None:
                full = matched(key[0], tr, key[1], phase, ord_after)
                if full is not None:
                    return full
        for ns, tr, sp in candidate_keys(source, query, key, cancelled):
            full = matched(ns, tr, sp, phase, -1)
            if full is not None:
                return full
        if cancelled is not None and cancelled():
            return SearchPage(hits, None)
        phase, key, ord_after = phase + 1, None, -1
    return SearchPage(hits, None)
