"""Exact token counts of a concatenation from per-item counts plus the tokens at item junctions.

tiktoken first splits text into pre-tokenizer *pieces* (a left-to-right regex scan) and runs BPE on
each piece alone, so ``tokens(A + B)`` differs from ``tokens(A) + tokens(B)`` only through the few
pieces next to the join. Each segment is analysed once (cached per encoding): its token count, a
*head* (its start), a *tail* (its end) and the tokens of everything between (*body*). A segment with
no head and tail apart is *short*.

The count of a concatenation is then the bodies of its long segments plus, for each *window*
between two consecutive long segments (or the start/end of the text), the tokens of
``tail(left) + every short segment between + head(right)``, encoded on its own.

Heads and tails are found in one of two ways:

* **Fixed cuts** (:func:`fixed_cut`; cl100k_base, o200k_base, o200k_harmony -- the pre-tokenizer
  patterns in :data:`FIXED_CUT_PATTERNS`). A *fixed cut* is a piece boundary in every text that
  contains it, which no text before or after can move, between two characters ``x y`` where
  (a) ``x`` is an ASCII letter and ``y`` an ASCII character that is not a letter and not ``'``, or
  (b) ``x`` is not whitespace (in any Unicode version: also not U+180E, U+200B-U+200D, U+2060,
  U+FEFF) and ``y`` is a space (U+0020). Proof, from the patterns: ``x`` is consumed by a letter
  class (``\\p{L}``, or o200k's ``Lu/Lt/Lm/Lo/Ll/M`` classes), a contraction letter, a digit class
  (``\\p{N}{1,3}``), a punctuation run (``[^\\s\\p{L}\\p{N}]`` then ``[\\r\\n]*`` or o200k's
  ``[\\r\\n/]*``) or the optional one-character prefix before letters; never by a whitespace
  element. Every test the regex engine can make right after consuming ``x`` is one of those
  classes, a contraction letter or ``'`` (o200k's optional ``'s``...), and each fails on ``y``
  exactly as it fails at the end of the string (a space: not a letter, digit, mark, punctuation,
  newline, ``/`` or ``'``; in (a) ``y`` may be punctuation but then ``x`` is a letter, which only
  letter-class and contraction tests follow). ``$`` and ``(?!\\S)`` are only tested after
  whitespace. So the piece holding ``x`` ends at the cut, and scanning the text cut there yields
  the same pieces as scanning the whole text. The head is the text up to the segment's first
  fixed cut, the tail the text from its last one: a window starts and ends on fixed cuts, so
  encoding it alone is exact without any check, and the head, tail and body token counts are read
  off the segment's one encode (tokens never span a piece boundary). Finding the cuts costs a
  character search near each end, not a regex scan of the segment. Used when a segment's first
  and last cuts lie within :data:`EDGE_CHARS` of its ends, or when they lie further in but the
  guarded scan would find the segment short (one long word, a CJK run: a window then holds the
  text up to the cut instead of every short neighbour).
* **Guarded pieces** (any other pattern, or a segment without fixed cuts near its ends): one
  pre-tokenizer scan of the segment; the head is its first ``K`` pieces, the tail its last ``K``.
  A window is encoded with one extra piece on each guarded side (the last body piece of the left
  segment, the first of the right one) and is accepted only if the scan gives back those pieces
  unchanged -- the proof that the join did not reach further; otherwise :class:`JunctionUnstable`
  tells the caller to encode the full text.

``tests/builder/test_builder_exact.py`` checks the fixed-cut lemma and the sums against real
encodes of random texts. No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import regex

from ctxviewer.tokens.counting import get_encoding

K = 3
"""Pieces in a guarded head or tail."""

EDGE_CHARS = 128
"""A segment takes the fixed-cut path when its first fixed cut is at most this many characters
(code points) from its start and its last one at most this many from its end (windows stay short)."""

FIXED_CUT_PATTERNS: frozenset[str] = frozenset({
    # cl100k_base (as tiktoken 0.12 to 0.14 write it, like o200k below)
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    # o200k_base and o200k_harmony
    "|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]),
})
"""Pre-tokenizer patterns for which the fixed-cut proof in the module docstring was made (and the
lemma is property-tested). Another pattern text, e.g. from another tiktoken, takes the guarded path."""

_CUT = re.compile(r"[A-Za-z](?=[\x00-\x26\x28-\x40\x5b-\x60\x7b-\x7f])|[^\s\u180e\u200b-\u200d\u2060\ufeff](?= )")
"""A fixed cut is at ``match.end()`` (cases (a) and (b) in the module docstring; ``re``'s ``\\s`` is
Python's ``str.isspace``, a superset of Unicode White_Space)."""
_LAST_CUT = re.compile(r"(?s:.*)(?:" + _CUT.pattern + ")")
"""The last fixed cut (greedy ``.*`` backtracks from the end)."""


def fixed_cut(text: str, start: int = 0, end: int | None = None) -> int | None:
    """The first fixed cut (a character index, see the module docstring) in ``text[start:end]``,
    or ``None``. A cut ``c`` means ``text[:c]`` and ``text[c:]`` scan (and encode) to exactly the
    pieces (tokens) of ``text`` before and after ``c``, under the patterns in
    :data:`FIXED_CUT_PATTERNS`."""
    m = _CUT.search(text, start, len(text) if end is None else end)
    return m.end() if m else None


def last_fixed_cut(text: str, start: int = 0) -> int | None:
    """The last fixed cut at or after ``start`` in ``text``, or ``None``."""
    m = _LAST_CUT.match(text, start)
    return m.end() if m else None


def _utf8_len(text: str) -> int:
    """Bytes of ``text`` as tiktoken encodes it (lone surrogates become U+FFFD, as in its
    ``encode_ordinary``)."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return len(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8"))


class JunctionUnstable(Exception):
    """A window's edge pieces changed even at the widest window: count the full text instead."""


@dataclass(frozen=True)
class CountedSegment:
    """One segment's counts (tokens) and edge texts. Short segments keep only ``text``/``tokens``."""

    text: str
    tokens: int
    long: bool
    body: int = 0
    head: str = ""
    tail: str = ""
    x_after_head: str = ""
    """Guarded path: the body piece right after the head (the window's right guard); fixed cuts: ``""``."""
    x_before_tail: str = ""
    """Guarded path: the body piece right before the tail (the window's left guard); fixed cuts: ``""``."""
    c_after_head: int = 0
    c_before_tail: int = 0


class JunctionCounter:
    """Segments and windows of one encoding, each computed once and cached."""

    def __init__(self, encoding: str, k: int = K) -> None:
        self.encoding = encoding
        self.enc = get_encoding(encoding)
        self.pat = regex.compile(self.enc._pat_str)
        self.fixed_cuts = self.enc._pat_str in FIXED_CUT_PATTERNS
        """True when heads and tails are cut at fixed cuts (see the module docstring)."""
        self.k = k
        self.segments: dict[str, CountedSegment] = {}
        self.windows: dict[tuple[int, tuple[int, ...], int], int] = {}
        """Window tokens keyed by the ids of its segments (segments are kept, so ids stay valid)."""
        self.pairs: dict[int, dict[int, int]] = {}
        """Windows without short segments: ``pairs[id(left)][id(right)]`` (no key allocation)."""
        self.window_texts: dict[tuple[str, int, int], int] = {}
        """Window tokens by window text and guard lengths (templated items repeat the same junction text)."""
        self.full_encodes = 0
        self._token_bytes: dict[int, int] = {}

    def _n(self, text: str) -> int:
        return len(self.enc.encode_ordinary(text)) if text else 0

    def _tokens_in(self, ids: Sequence[int], nbytes: int, reverse: bool) -> int | None:
        """How many of ``ids`` (from the front, or the back when ``reverse``) make up exactly
        ``nbytes`` bytes; ``None`` if no token edge falls there."""
        lens = self._token_bytes
        seen = 0
        n = len(ids)
        for i in range(n):
            t = ids[n - 1 - i] if reverse else ids[i]
            b = lens.get(t)
            if b is None:
                b = lens[t] = len(self.enc.decode_single_token_bytes(t))
            seen += b
            if seen >= nbytes:
                return i + 1 if seen == nbytes else None
        return None

    def segment(self, text: str) -> CountedSegment:
        """The cached analysis of ``text``: one encode, plus a search for fixed cuts near its ends
        or else one pre-tokenizer scan."""
        seg = self.segments.get(text)
        if seg is not None:
            return seg
        seg = self._fixed(text, EDGE_CHARS) if self.fixed_cuts else None
        if seg is None:
            seg = self._guarded(text)
            if not seg.long and self.fixed_cuts:
                seg = self._fixed(text, None) or seg
        self.segments[text] = seg
        return seg

    def _fixed(self, text: str, edge: int | None) -> CountedSegment | None:
        """The fixed-cut analysis, or ``None`` when no cut lies within ``edge`` characters of each
        end (``None``: anywhere)."""
        n = len(text)
        first = fixed_cut(text, 0, None if edge is None else edge + 1)
        last = last_fixed_cut(text, 0 if edge is None else max(0, n - edge - 1)) if first is not None else None
        if first is None or last is None or (edge is not None and n - last > edge):
            return None
        ids = self.enc.encode_ordinary(text)
        head, tail = text[:first], text[last:]
        h = self._tokens_in(ids, _utf8_len(head), False)
        t = self._tokens_in(ids, _utf8_len(tail), True)
        if h is None or t is None or h + t > len(ids):  # cannot happen by the proof; stay exact
            return None
        return CountedSegment(text, len(ids), True, len(ids) - h - t, head, tail)

    def _guarded(self, text: str) -> CountedSegment:
        tokens = self._n(text)
        pieces = self.pat.findall(text)
        k = self.k
        if len(pieces) < 2 * k + 2:
            return CountedSegment(text, tokens, False)
        head_p, tail_p = pieces[:k], pieces[-k:]
        xa, xb = pieces[k], pieces[-k - 1]
        edges = sum(self._n(p) for p in head_p) + sum(self._n(p) for p in tail_p)
        return CountedSegment(text, tokens, True, tokens - edges, "".join(head_p), "".join(tail_p),
                              xa, xb, self._n(xa), self._n(xb))

    def window(self, left: CountedSegment | None, shorts: Sequence[CountedSegment], right: CountedSegment | None) -> int:
        """Tokens of ``tail(left) + shorts + head(right)`` as they are encoded inside the whole text.

        ``left``/``right`` ``None`` stand for the start/end of the text. Raises
        :class:`JunctionUnstable` when the join reaches past a guard piece.
        """
        key = (id(left), tuple(map(id, shorts)) if shorts else (), id(right))
        hit = self.windows.get(key)
        if hit is not None:
            return hit
        mid = "".join(s.text for s in shorts)
        lg = left.x_before_tail if left else ""
        rg = right.x_after_head if right else ""
        text = lg + (left.tail if left else "") + mid + (right.head if right else "") + rg
        tkey = (text, len(lg), len(rg))  # the guards' counts are subtracted: part of the key
        n = self.window_texts.get(tkey)
        if n is None:
            if lg or rg:
                pieces = self.pat.findall(text)
                if (lg and (not pieces or pieces[0] != lg)) or (rg and (not pieces or pieces[-1] != rg)):
                    raise JunctionUnstable("a join reaches past the guard pieces")
            n = self._n(text) - (left.c_before_tail if left else 0) - (right.c_after_head if right else 0)
            if len(self.window_texts) > 200_000:
                self.window_texts.clear()
            self.window_texts[tkey] = n
        self.windows[key] = n
        if not shorts:
            self.pairs.setdefault(id(left), {})[id(right)] = n
        return n

    def count(self, texts: Sequence[str]) -> int:
        """Exact tokens of ``"".join(texts)`` from cached segments and windows (full encode if unstable)."""
        try:
            total, left, shorts = 0, None, []
            for t in texts:
                seg = self.segment(t)
                if not seg.long:
                    shorts.append(seg)
                    continue
                total += seg.body + self.window(left, shorts, seg)
                left, shorts = seg, []
            return total + self.window(left, shorts, None)
        except JunctionUnstable:
            self.full_encodes += 1
            return self._n("".join(texts))
