"""Exact token counts of a concatenation from per-item counts plus the tokens at item junctions.

tiktoken first splits text into pre-tokenizer *pieces* (a left-to-right regex scan) and runs BPE on
each piece alone, so ``tokens(A + B)`` differs from ``tokens(A) + tokens(B)`` only through the few
pieces next to the join. Each segment is analysed once (cached per encoding): its token count, its
first ``K`` pieces (*head*), its last ``K`` pieces (*tail*) and the tokens of everything between
(*body*). A segment with too few pieces for a head and a tail apart is *short*.

The count of a concatenation is then the bodies of its long segments plus, for each *window*
between two consecutive long segments (or the start/end of the text), the tokens of
``tail(left) + every short segment between + head(right)``. A window is encoded with one extra
piece on each side (the last body piece of the left segment, the first of the right one) and is
accepted only if the scan gives back those two pieces unchanged -- the proof that the join did not
reach further; otherwise ``K`` doubles and, past the whole segment, :class:`JunctionUnstable` tells
the caller to encode the full text. ``tests/core/test_builder_junctions.py`` checks the sums against
real encodes of random texts. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import regex

from ..tokens import get_encoding

K = 3
"""Pieces in a head or a tail."""


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
    """The body piece right after the head (the window's right guard)."""
    x_before_tail: str = ""
    """The body piece right before the tail (the window's left guard)."""
    c_after_head: int = 0
    c_before_tail: int = 0


class JunctionCounter:
    """Segments and windows of one encoding, each computed once and cached."""

    def __init__(self, encoding: str, k: int = K) -> None:
        self.encoding = encoding
        self.enc = get_encoding(encoding)
        self.pat = regex.compile(self.enc._pat_str)
        self.k = k
        self.segments: dict[str, CountedSegment] = {}
        self.windows: dict[tuple[int, tuple[int, ...], int], int] = {}
        """Window tokens keyed by the ids of its segments (segments are kept, so ids stay valid)."""
        self.pairs: dict[int, dict[int, int]] = {}
        """Windows without short segments: ``pairs[id(left)][id(right)]`` (no key allocation)."""
        self.full_encodes = 0

    def _n(self, text: str) -> int:
        return len(self.enc.encode_ordinary(text)) if text else 0

    def segment(self, text: str) -> CountedSegment:
        """The cached analysis of ``text`` (one encode and one pre-tokenizer scan per text)."""
        seg = self.segments.get(text)
        if seg is not None:
            return seg
        tokens = self._n(text)
        pieces = self.pat.findall(text)
        k = self.k
        if len(pieces) < 2 * k + 2:
            seg = CountedSegment(text, tokens, False)
        else:
            head_p, tail_p = pieces[:k], pieces[-k:]
            xa, xb = pieces[k], pieces[-k - 1]
            edges = sum(self._n(p) for p in head_p) + sum(self._n(p) for p in tail_p)
            seg = CountedSegment(text, tokens, True, tokens - edges, "".join(head_p), "".join(tail_p),
                          xa, xb, self._n(xa), self._n(xb))
        self.segments[text] = seg
        return seg

    def window(self, left: CountedSegment | None, shorts: Sequence[CountedSegment], right: CountedSegment | None) -> int:
        """Tokens of ``tail(left) + shorts + head(right)`` as they are encoded inside the whole text.

        ``left``/``right`` ``None`` stand for the start/end of the text. Raises
        :class:`JunctionUnstable` when the join reaches past the guard pieces.
        """
        key = (id(left), tuple(map(id, shorts)) if shorts else (), id(right))
        hit = self.windows.get(key)
        if hit is not None:
            return hit
        mid = "".join(s.text for s in shorts)
        lg = left.x_before_tail if left else ""
        rg = right.x_after_head if right else ""
        text = lg + (left.tail if left else "") + mid + (right.head if right else "") + rg
        pieces = self.pat.findall(text)
        if (lg and (not pieces or pieces[0] != lg)) or (rg and (not pieces or pieces[-1] != rg)):
            raise JunctionUnstable("a join reaches past the guard pieces")
        n = self._n(text) - (left.c_before_tail if left else 0) - (right.c_after_head if right else 0)
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
