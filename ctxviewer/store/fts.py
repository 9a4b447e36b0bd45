"""Full-text search over item content: the SQLite FTS5 index ``content_fts`` and the search query.

Invariants
----------
``content_fts`` is a contentless FTS5 table (``content=''``; since schema 15) keyed by
``blobs.rowid``: it indexes each distinct *item* text once, however many items share it (the
serialized-request blobs are not indexed), in two columns: ``text``, the stored text, and
``joined``, its joined view (:func:`ctxviewer.util.invisible_fold.join_invisible`: zero-width
characters, joiners, BOM, soft hyphen, bidi controls and tag characters taken out, so
``ig\u200bnore prev\u200bious`` is indexed as "ignore previous" as well), ``NULL`` when the text
holds none. The stored text is never changed: the index is derived from it.
:meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` adds a row in the same transaction when it
stores a new item text (:func:`index_blob`); blobs are never rewritten or deleted, so the index only
grows. The schema-3 step built a one-column index (:data:`CREATE_SQL_V3`), the schema-15 step
replaces it (:func:`rebuild`). Tokenizer ``unicode61 remove_diacritics 0`` (letters and digits
form words, case folded, accents kept); prefix indexes for 2 and 3 characters.

Query language (:func:`match_expression`): words and ``"quoted phrases"``; every word and phrase
must occur in the same item, each word matched as the *prefix* of a word of the text
(``ignor prev`` finds "Ignore previous instructions"), case-insensitively; a one-letter word is
matched whole (:data:`MIN_PREFIX`); a phrase matches the stored text or its joined view, and the
query loses its invisible format characters too. Punctuation separates
words (``gpt-4o`` is the words ``gpt`` and ``4o`` as a phrase). The user's text never reaches FTS5
as syntax: each word is quoted.

Hits (:func:`search_page`) come texts where every word occurs whole first, then texts where a
word only starts a longer word, each in index order (blob rowid, then item rowid): the first page
is read without counting or ranking every hit, and the next page continues from
:attr:`SearchPage.next`. No Qt here.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from ctxviewer.util.invisible_fold import drop_invisible, join_invisible
from ctxviewer.util.visible import reveal

TOKENIZE = "unicode61 remove_diacritics 0"
"""The FTS5 tokenizer of ``content_fts`` (and the word rule of :func:`match_spans`)."""

CREATE_SQL_V3 = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS content_fts USING fts5("
    f"text, content='blobs', content_rowid='rowid', tokenize='{TOKENIZE}', prefix='2 3')"
)
"""DDL of the index from schema 3 to 14 (step ``m010_content_fts``): the stored text only."""
FILL_SQL_V3 = (
    "INSERT INTO content_fts (rowid, text) SELECT b.rowid, b.text FROM blobs b "
    "WHERE b.hash IN (SELECT content_hash FROM items WHERE content_hash IS NOT NULL)"
)
"""How step ``m010_content_fts`` filled schema 3's index (:data:`CREATE_SQL_V3`)."""
CREATE_SQL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS content_fts USING fts5("
    f"text, joined, content='', tokenize='{TOKENIZE}', prefix='2 3')"
)
"""DDL of the index since schema 15 (step ``m025_joined_view_fts``): the stored text and its
joined view (module docstring), contentless (the text lives in ``blobs``)."""

_WORD = re.compile(r"[^\W_]+")
_QUERY_PART = re.compile(r'"([^"]*)"?|([^\s"]+)')

MIN_PREFIX = 2
"""A word shorter than this (one letter) is matched as a whole word, not as a prefix: a one-letter
prefix would merge the lists of every word starting with it before the first hit."""

SNIPPET_CHARS = 90
"""Approximate length of a snippet, code points (context before and after the first match)."""


@dataclass(frozen=True)
class SearchHit:
    """One item whose content matches a search."""

    trace_id: str
    """The trace holding the item."""
    item_id: str
    """The item's stable id (``ContextItem.id``)."""
    ordinal: int
    """0-based index of the item in the trace's final order."""
    snippet: str
    """A one-line window of the content around the first match, invisible characters revealed
    (:func:`ctxviewer.util.visible.one_line`); ``…`` marks cut ends."""
    spans: tuple[tuple[int, int], ...]
    """``(start, length)`` of the matched words in :attr:`snippet`, code points."""
    cursor: tuple[int, int, int]
    """Where this hit sits (phase, text rowid, item rowid); pass it as ``after`` to continue after it."""


def query_terms(query: str) -> list[list[str]]:
    """The query as a list of phrases, each a list of folded words (a lone word is a phrase of
    one). ``'ignore "previous instr"'`` -> ``[["ignore"], ["previous", "instr"]]``. Words are runs
    of letters and digits (the tokenizer's rule); empty phrases are dropped. Words are lower-cased
    (``str.lower``, one character to one, as the ``unicode61`` tokenizer folds), not
    ``casefold``-ed: ``Straße`` stays ``straße``, the indexed word, not ``strasse``. Invisible
    format characters are taken out first (``ig\u200bnore`` -> ``ignore``), as in the joined view."""
    out: list[list[str]] = []
    for m in _QUERY_PART.finditer(drop_invisible(query)):
        part = m.group(1) if m.group(1) is not None else m.group(2)
        words = [w.lower() for w in _WORD.findall(part)]
        if words:
            out.append(words)
    return out


def match_expression(query: str) -> str | None:
    """The FTS5 MATCH expression for a user query (module docstring), or ``None`` when it has no
    word. Each phrase is quoted and marked as a prefix: ``ignore prev`` -> ``"ignore"* AND "prev"*``."""
    phrases = query_terms(query)
    if not phrases:
        return None
    return " AND ".join('"' + " ".join(p) + '"' + ("*" if len(p[-1]) >= MIN_PREFIX else "") for p in phrases)


def phrase_patterns(query: str) -> list[re.Pattern[str]]:
    """One case-insensitive regular expression per phrase of ``query``: its words in order with
    only separators between them, each a whole word except the last, which is a word prefix (a
    whole word when shorter than :data:`MIN_PREFIX`). The rule of the index, applied to text."""
    out = []
    for words in query_terms(query):
        parts = []
        for k, w in enumerate(words):
            prefix = k == len(words) - 1 and len(w) >= MIN_PREFIX
            parts.append(re.escape(w) + (r"[^\W_]*" if prefix else r"(?![^\W_])"))
        out.append(re.compile(r"(?<![^\W_])" + r"[\W_]+".join(parts), re.IGNORECASE))
    return out


def views(text: str) -> list[str]:
    """The texts a phrase may match in: ``[text]``, and its joined view when it has one
    (:func:`ctxviewer.util.invisible_fold.join_invisible`) -- the two columns of the index."""
    joined = join_invisible(text)
    return [text] if joined is None else [text, joined.text]


def matches(text_views: list[str], patterns: list[re.Pattern[str]]) -> bool:
    """Whether every pattern (one per phrase) matches one of ``text_views`` (:func:`views`), as the
    index matches a row when each phrase is in one of its columns."""
    return all(any(p.search(v) for v in text_views) for p in patterns)


def match_spans(text: str, query: str) -> list[tuple[int, int]]:
    """``(start, length)`` in code points of the stored ``text`` of every run that matches a phrase
    of ``query`` (:func:`phrase_patterns`: the last word of a phrase to the end of the word it
    starts), in the text or in its joined view (a run of the view mapped back, with the invisible
    characters inside it: ``ig\u200bnore`` is one span of 7), in text order, not overlapping.
    These are the characters the GUI highlights."""
    patterns = phrase_patterns(query)
    if not patterns:
        return []
    either = re.compile("|".join(f"(?:{p.pattern})" for p in patterns), re.IGNORECASE)
    found = [(m.start(), m.end() - m.start()) for m in either.finditer(text)]
    joined = join_invisible(text)
    if joined is None:
        return found
    found += [joined.to_stored(m.start(), m.end() - m.start()) for m in either.finditer(joined.text)]
    out: list[tuple[int, int]] = []
    for s, n in sorted(found, key=lambda sn: (sn[0], -sn[1])):
        if out and s < out[-1][0] + out[-1][1]:
            end = max(out[-1][0] + out[-1][1], s + n)
            out[-1] = (out[-1][0], end - out[-1][0])
        else:
            out.append((s, n))
    return out


def candidate_expression(query: str) -> str | None:
    """A fast FTS5 expression for the texts that may match ``query``, a superset checked with
    :func:`phrase_patterns` afterwards: the last word of each phrase is cut to its first 3
    characters as a prefix (``"ign"* AND "pre"*`` for ``ignore previous``), so every lookup uses
    a prefix index and streams in rowid order. (A longer prefix without its own index makes FTS5
    merge the lists of every word it starts before the first hit: 85 to 210 ms on 100k traces.)"""
    phrases = query_terms(query)
    if not phrases:
        return None
    out = []
    for p in phrases:
        last = p[-1]
        if len(last) >= MIN_PREFIX:
            out.append('"' + " ".join([*p[:-1], last[:3]]) + '"*')
        else:
            out.append('"' + " ".join(p) + '"')
    return " AND ".join(out)


def snippet(text: str, spans: list[tuple[int, int]], width: int = SNIPPET_CHARS) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A one-line window of ``text`` around ``spans[0]`` (about ``width`` code points), revealed
    with :func:`ctxviewer.util.visible.reveal` (line breaks too), and the spans that fall inside it
    moved into the window's display offsets. Without spans: the start of the text."""
    first = spans[0][0] if spans else 0
    start = max(0, first - width // 3)
    if start <= 16:  # so close to the beginning: show the beginning
        start = 0
    if start > 0:  # do not cut a word in two
        space = text.rfind(" ", max(0, start - 12), start)
        start = space + 1 if space >= 0 else start
    end = min(len(text), start + width)
    if spans and spans[0][0] + spans[0][1] > end:
        end = min(len(text), spans[0][0] + spans[0][1])
    window = text[start:end]
    shown = reveal(window, keep_newlines=False)
    lead = "…" if start > 0 else ""
    tail = "…" if end < len(text) else ""
    out: list[tuple[int, int]] = []
    for s, n in spans:
        if s >= start and s + n <= end:
            a = shown.to_display(s - start)
            b = shown.to_display(s + n - start)
            out.append((a + len(lead), b - a))
    return lead + shown.text + tail, tuple(out)


def joined_view(text: str | None) -> str | None:
    """The ``joined`` column of ``text``: its joined view, or ``None`` when it has none."""
    if not text:
        return None
    joined = join_invisible(text)
    return None if joined is None else joined.text


def index_blob(conn: sqlite3.Connection, rowid: int, text: str) -> None:
    """Add the blob ``rowid`` (whose text is ``text``) to ``content_fts``, with its joined view
    (:func:`joined_view`). Call once per blob, in the transaction that inserted it."""
    conn.execute("INSERT INTO content_fts (rowid, text, joined) VALUES (?, ?, ?)", (rowid, text, joined_view(text)))


def rebuild(conn: sqlite3.Connection) -> int:
    """(Re)fill ``content_fts`` (schema 15's two columns) from every blob some item references (the
    schema-15 step and a generator that wrote rows with its own SQL). Returns the number of blobs
    indexed."""
    conn.create_function("ctxviewer_joined_view", 1, joined_view, deterministic=True)
    conn.execute("INSERT INTO content_fts (content_fts) VALUES ('delete-all')")
    cur = conn.execute(
        "INSERT INTO content_fts (rowid, text, joined) SELECT b.rowid, b.text, ctxviewer_joined_view(b.text) "
        "FROM blobs b WHERE b.hash IN (SELECT content_hash FROM items WHERE content_hash IS NOT NULL)"
    )
    return int(cur.rowcount)


@dataclass(frozen=True)
class SearchPage:
    """One page of hits and where the next page starts."""

    hits: list[SearchHit]
    """The hits, in order."""
    next: tuple[int, int, int] | None
    """Pass as ``after`` for the next page; ``None`` when there are no more hits."""


WHOLE, PREFIX = 0, 1
"""Search phases: hits where every word occurs whole come first, then hits where some word only
starts a longer word (a crude relevance order that costs nothing)."""

SCAN_BUDGET = 300
"""Candidate texts :func:`search_page` examines in the prefix phase before it returns the page it
has (possibly short) with a cursor to go on: a rare word behind a common 3-letter start never
holds the caller for long."""


def search_page(
    conn: sqlite3.Connection, query: str, *, after: tuple[int, int, int] | None = None, limit: int = 50,
    budget: int = SCAN_BUDGET,
) -> SearchPage:
    """Up to ``limit`` hits of ``query`` (module docstring) after cursor ``after``: first the texts
    where every word of the query occurs whole (exact FTS5 terms, streamed in rowid order), then
    those where a word only starts a longer one (:func:`candidate_expression` checked with
    :func:`phrase_patterns`), never counting or ranking all hits. The prefix phase stops after
    ``budget`` candidate texts and returns a short page whose ``next`` goes on from there.
    Raises ``sqlite3.Error`` when the database cannot be read."""
    phrases = query_terms(query)
    if not phrases or limit == 0:
        return SearchPage([], None)
    whole = " AND ".join('"' + " ".join(p) + '"' for p in phrases)
    exact = [re.compile(r"(?<![^\W_])" + r"[\W_]+".join(re.escape(w) + r"(?![^\W_])" for w in p), re.IGNORECASE)
             for p in phrases]
    patterns = phrase_patterns(query)
    needles = [w for p in phrases for w in p]
    phase, blob_after, item_after = after if after is not None else (WHOLE, 0, 0)
    hits: list[SearchHit] = []
    while phase <= PREFIX:
        expr = whole if phase == WHOLE else candidate_expression(query)
        examined = 0
        cur = conn.execute("SELECT rowid FROM content_fts WHERE content_fts MATCH ? AND rowid >= ? ORDER BY rowid",
                           (expr, blob_after))
        for (blob_rowid,) in cur:
            first = item_after if blob_rowid == blob_after else 0
            if phase == PREFIX:
                examined += 1
                if examined > budget:
                    return SearchPage(hits, (PREFIX, blob_rowid, 0))
            row = conn.execute("SELECT hash, text FROM blobs WHERE rowid = ?", (blob_rowid,)).fetchone()
            if row is None:
                continue
            h, text = row
            if phase == PREFIX:
                seen = views(text)
                folded = " ".join(seen).lower()  # a cheap no first: the regular expressions cost 100x more
                if (not all(w in folded for w in needles) or not matches(seen, patterns)
                        or matches(seen, exact)):
                    continue  # not a match, or a whole-word match the first phase gave
            want = limit - len(hits)
            items = conn.execute(
                "SELECT rowid, trace_id, item_id, ordinal FROM items WHERE content_hash = ? AND rowid > ? "
                "ORDER BY rowid" + ("" if limit < 0 else " LIMIT ?"),
                (h, first) if limit < 0 else (h, first, want + 1),
            ).fetchall()
            if not items:
                continue
            snip, spans = snippet(text, match_spans(text, query))
            for item_rowid, trace_id, item_id, ordinal in items:
                if len(hits) == limit:
                    return SearchPage(hits, hits[-1].cursor)
                hits.append(SearchHit(str(trace_id), str(item_id), int(ordinal), snip, spans,
                                      (phase, int(blob_rowid), int(item_rowid))))
        phase, blob_after, item_after = phase + 1, 0, 0
    return SearchPage(hits, None)


def search(conn: sqlite3.Connection, query: str, *, limit: int = 50) -> list[SearchHit]:
    """The first ``limit`` hits of ``query`` (negative: all), page after page of
    :func:`search_page` (so a short page cut by the scan budget is followed up)."""
    hits: list[SearchHit] = []
    after: tuple[int, int, int] | None = None
    while limit < 0 or len(hits) < limit:
        page = search_page(conn, query, after=after, limit=-1 if limit < 0 else limit - len(hits))
        hits.extend(page.hits)
        if page.next is None:
            break
        after = page.next
    return hits
