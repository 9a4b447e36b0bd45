"""Word matching for the diagnostics: words of a text, BM25 relevance to the question, citations.

Used by the Table 3.1 checks (row 2 "carried by a retained item", row 3 "best matching the
question", row 4 "occurs in the cited text") and by the evidence position map. Deterministic and
offline; no model is asked.

* :func:`words` -- lower-cased word tokens (letters, digits, ``.``/``-`` inside a token, so
  ``"179.95"`` and ``"nw-4497710"`` stay whole), stop words removed, a plural ``s`` stripped.
* :func:`bm25` -- Okapi BM25 scores (k1 = 1.2, b = 0.75) of each document against a query.
* :func:`cites` -- whether an answer names an identifier as a whole token (``[KB-1001]``,
  ``"KB-1001"`` in a JSON list), case-sensitive.

No Qt here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

_WORD = re.compile(r"[^\W_]+(?:[.\-'][^\W_]+)*", re.UNICODE)
STOP_WORDS = frozenset(
    ["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "for", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "i", "my", "me", "you", "your", "we", "our", "us", "he", "she", "they", "them", "their", "his", "her", "can", "could", "do", "does", "did", "done", "with", "at", "by", "from", "as", "so", "if", "not", "no", "now", "then", "than", "there", "what", "when", "how", "just", "still", "get", "got", "have", "has", "had", "will", "would", "shall", "should", "may", "might", "must", "am", "also", "any", "all", "some", "into", "out", "up", "about", "over", "after", "before", "again", "here", "which", "who", "whom", "whose", "why", "very", "too", "only", "own", "same", "such", "both", "each", "few", "more", "most", "other", "off", "once", "until", "while", "because", "yes", "ok", "okay", "hi", "hello", "thanks", "thank", "please", "let", "i'm", "i've", "i'd", "i'll", "you're", "we're", "it's", "that's", "don't", "can't"]
)
"""English function words that carry no topic (matching is about content words)."""


MEMO_CHARS = 16_000_000
"""Characters of text whose :func:`words` are remembered (the same documents, tool
definitions and history turns recur across the traces of an import, and the checks read them
again for every trace); past it the memo starts again empty. Texts over 1/64 of it are not kept."""
_MEMO: dict[str, tuple[str, ...]] = {}
_MEMO_SIZE = [0]


def words(text: str) -> list[str]:
    """Content-word tokens of ``text`` in order: lower-cased, stop words dropped, a trailing
    plural ``s`` (and possessive ``'s``) stripped from words longer than 3 letters. A pure
    function of ``text``, remembered for recent texts (:data:`MEMO_CHARS`); a new list each call."""
    got = _MEMO.get(text)
    if got is None:
        got = tuple(_words(text))
        if len(text) <= MEMO_CHARS // 64:
            if _MEMO_SIZE[0] + len(text) > MEMO_CHARS:
                _MEMO.clear()
                _MEMO_SIZE[0] = 0
            _MEMO[text] = got
            _MEMO_SIZE[0] += len(text)
    return list(got)


_NORM: dict[str, str] = {}
"""Each raw word seen -> its content word, or ``""`` for a stop word (words recur across texts)."""
NORM_WORDS = 1_000_000
"""Raw words :data:`_NORM` remembers; past it, it starts again empty."""


def _norm(w: str) -> str:
    if w.endswith("'s"):
        w = w[:-2]
    if w in STOP_WORDS:
        return ""
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss") and w.isalpha():
        w = w[:-1]
    return w


def _words(text: str) -> list[str]:
    norm = _NORM
    raw = _WORD.findall(text.lower())
    try:
        out = [norm[w] for w in raw]
    except KeyError:  # a raw word not seen before: learn every new one, then read them all
        for w in raw:
            if w not in norm:
                if len(norm) >= NORM_WORDS:
                    norm.clear()
                norm[w] = _norm(w)
        out = [norm[w] if w in norm else _norm(w) for w in raw]
    return [w for w in out if w]


DOC_CHARS = 4_000_000
"""Characters of text whose BM25 term frequencies are remembered (a Counter takes several times
the text's size); past it the memo starts again empty. Texts over 1/64 of it are not kept."""
_DOCS: dict[str, tuple[Counter[str], int]] = {}
_DOCS_SIZE = [0]


def _doc(text: str) -> tuple[Counter[str], int]:
    """Term frequencies and word count of ``text`` (remembered like :func:`words`)."""
    got = _DOCS.get(text)
    if got is None:
        w = _MEMO.get(text)
        d = w if w is not None else _words(text)
        got = (Counter(d), len(d))
        if len(text) <= DOC_CHARS // 64:
            if _DOCS_SIZE[0] + len(text) > DOC_CHARS:
                _DOCS.clear()
                _DOCS_SIZE[0] = 0
            _DOCS[text] = got
            _DOCS_SIZE[0] += len(text)
    return got


def bm25(query: str, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Okapi BM25 score of each of ``documents`` for ``query`` (same order; 0.0 = no shared word).

    IDF is ``ln(1 + (N - df + 0.5) / (df + 0.5))`` over ``documents`` (never negative). Each
    document's term frequencies are remembered per text (documents recur across the traces of
    an import); the scores are the same floats as computed afresh."""
    docs = [_doc(d) for d in documents]
    if not docs:
        return []
    avg = (sum(n for _, n in docs) / len(docs)) or 1.0
    terms = set(words(query))
    order = {w: k for k, w in enumerate(terms)}  # the sum runs in the set's order, as it always did
    shared = [terms.intersection(tf) for tf, _ in docs]
    df: Counter[str] = Counter()
    for common in shared:
        df.update(common)
    n = len(docs)
    scores = []
    for (tf, length), common in zip(docs, shared):
        s = 0.0
        for w in sorted(common, key=order.__getitem__):
            f = tf[w]
            idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * length / avg))
        scores.append(s)
    return scores


def cites(text: str, identifier: str) -> bool:
    """True if ``text`` names ``identifier`` as a whole token (not inside a longer id)."""
    if not identifier:
        return False
    pattern = r"(?<![\w\-#])" + re.escape(identifier) + r"(?![\w\-])"
    return re.search(pattern, text) is not None


def coverage(needle: Sequence[str], haystack: set[str]) -> float:
    """Share (0..1) of the distinct words in ``needle`` that occur in ``haystack``; 1.0 if empty."""
    distinct = set(needle)
    if not distinct:
        return 1.0
    return len(distinct & haystack) / len(distinct)


def shingles(text: str, n: int = 3) -> set[tuple[str, ...]]:
    """The set of ``n``-word shingles of ``text``'s content words (one shingle for shorter texts)."""
    w = words(text)
    if len(w) <= n:
        return {tuple(w)} if w else set()
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def jaccard(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    """``|a & b| / |a | b|`` (0.0 when both are empty)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


_IDENT = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+|[A-Za-z]*\d[A-Za-z0-9]{3,}")


def identifiers(text: str) -> set[str]:
    """Identifier-like tokens of ``text`` that hold a digit and 5+ characters (``NW-4497710``,
    ``TCK-58213``, ``1Z88W417``); used to tell which records a question names."""
    return {m for m in _IDENT.findall(text) if any(c.isdigit() for c in m) and len(m) >= 5}
