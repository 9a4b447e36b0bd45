"""Word-level text diff: which words of text A were deleted and which words of text B inserted.

Texts are split into word tokens (a run of word characters, a run of whitespace, or one other
character) and compared with :class:`difflib.SequenceMatcher`. Long texts are first compared line
by line and only the changed line blocks word by word, so a pair of 1 MB texts diffs in about a
second instead of minutes (``benchmarks/bench_diff.py``).

Offsets are Python code points of the texts as given; convert with
:func:`ctxviewer.util.highlight.utf16_offsets` before painting in Qt. No Qt here.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Callable, Literal

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)
_LINE = re.compile(r"[^\n]*\n|[^\n]+")

WORD_LEVEL_MAX_TOKENS = 20_000
"""Above this many tokens on either side, texts are aligned by lines first (then words inside the
changed line blocks of at most this many tokens; bigger blocks stay whole-line changes)."""

Op = Literal["equal", "delete", "insert"]


@dataclass(frozen=True)
class Segment:
    """One run of the merged diff: ``equal`` text in both, ``delete`` (only in A) or ``insert`` (only in B)."""

    op: Op
    text: str


@dataclass(frozen=True)
class WordDiff:
    """The word diff of text A against text B.

    ``segments`` interleave equal, deleted and inserted runs (reading them in order and keeping
    ``equal`` + ``delete`` gives A; ``equal`` + ``insert`` gives B). ``spans_a`` / ``spans_b`` are
    the deleted / inserted ranges as ``(start, end)`` code points in A / B.
    """

    segments: tuple[Segment, ...]
    spans_a: tuple[tuple[int, int], ...]
    spans_b: tuple[tuple[int, int], ...]

    @property
    def changed(self) -> bool:
        """True when A and B differ."""
        return bool(self.spans_a or self.spans_b)

    @property
    def words_deleted(self) -> int:
        """Number of words (runs of word characters) only in A."""
        return sum(_words(s.text) for s in self.segments if s.op == "delete")

    @property
    def words_inserted(self) -> int:
        """Number of words (runs of word characters) only in B."""
        return sum(_words(s.text) for s in self.segments if s.op == "insert")

    def text_a(self) -> str:
        """Text A, rebuilt from the segments."""
        return "".join(s.text for s in self.segments if s.op != "insert")

    def text_b(self) -> str:
        """Text B, rebuilt from the segments."""
        return "".join(s.text for s in self.segments if s.op != "delete")


_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def tokenize(text: str) -> list[str]:
    """Word tokens of ``text``; ``"".join(tokenize(t)) == t``."""
    return _TOKEN.findall(text)


class _Builder:
    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.spans_a: list[tuple[int, int]] = []
        self.spans_b: list[tuple[int, int]] = []
        self.pos_a = 0
        self.pos_b = 0

    def add(self, op: Op, text: str) -> None:
        if not text:
            return
        if self.segments and self.segments[-1].op == op:
            self.segments[-1] = Segment(op, self.segments[-1].text + text)
        else:
            self.segments.append(Segment(op, text))
        n = len(text)
        if op != "insert":
            if op == "delete":
                _extend(self.spans_a, self.pos_a, self.pos_a + n)
            self.pos_a += n
        if op != "delete":
            if op == "insert":
                _extend(self.spans_b, self.pos_b, self.pos_b + n)
            self.pos_b += n

    def result(self) -> WordDiff:
        return WordDiff(tuple(self.segments), tuple(self.spans_a), tuple(self.spans_b))


def _extend(spans: list[tuple[int, int]], start: int, end: int) -> None:
    if spans and spans[-1][1] == start:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))


def _diff_tokens(a: list[str], b: list[str], out: _Builder) -> None:
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            out.add("equal", "".join(a[i1:i2]))
        else:
            out.add("delete", "".join(a[i1:i2]))
            out.add("insert", "".join(b[j1:j2]))


def word_diff(a: str | None, b: str | None, cancelled: Callable[[], bool] | None = None) -> WordDiff:
    """Word diff of ``a`` against ``b`` (``None`` counts as empty text).

    ``cancelled`` is polled between line blocks of a long text; when it returns True the rest of
    the texts is reported as one deleted and one inserted run (the result stays consistent).
    """
    a, b = a or "", b or ""
    out = _Builder()
    if a == b:
        out.add("equal", a)
        return out.result()
    ta, tb = tokenize(a), tokenize(b)
    if max(len(ta), len(tb)) <= WORD_LEVEL_MAX_TOKENS:
        _diff_tokens(ta, tb, out)
        return out.result()
    la, lb = _LINE.findall(a), _LINE.findall(b)
    sm = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    opcodes = sm.get_opcodes()
    for n, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if cancelled is not None and cancelled():
            rest = opcodes[n:]
            out.add("delete", "".join(la[rest[0][1]:]))
            out.add("insert", "".join(lb[rest[0][3]:]))
            break
        if tag == "equal":
            out.add("equal", "".join(la[i1:i2]))
            continue
        ba, bb = tokenize("".join(la[i1:i2])), tokenize("".join(lb[j1:j2]))
        if max(len(ba), len(bb)) <= WORD_LEVEL_MAX_TOKENS:
            _diff_tokens(ba, bb, out)
        else:
            out.add("delete", "".join(ba))
            out.add("insert", "".join(bb))
    return out.result()
