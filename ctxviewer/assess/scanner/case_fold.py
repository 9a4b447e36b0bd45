"""Text folded the way the regular-expression engine compares characters under ``re.IGNORECASE``.

The prefilter (:mod:`.prefilter`) looks for start literals (:mod:`.start_sets`) in folded text; both
sides must fold alike, one code point for one code point, so offsets in the folded text are offsets
in the original. No Qt here.
"""

from __future__ import annotations

import functools
import re
from re._casefix import _EXTRA_CASES  # type: ignore[import-not-found]

from ctxviewer.assess.scanner import non_ascii

SPACES = frozenset(ch for ch in map(chr, range(0x3000 + 1)) if ch.isspace())
"""What ``\\s`` matches in a ``str`` pattern (``str.isspace``; none above U+3000)."""


def _canon() -> dict[int, str]:
    """Code point -> the one character the engine treats it as (case equivalences, white space)."""
    table: dict[int, str] = {0x130: "i"}  # U+0130's simple lower case is "i" (str.lower gives two characters)
    for lo, extra in _EXTRA_CASES.items():
        canon = min((lo, *extra))
        for cp in (lo, *extra):
            if cp != canon:
                table[cp] = chr(canon)
    for ch in SPACES - {"\n", " "}:
        table[ord(ch)] = " "
    return table


_CANON = _canon()
_ASCII_CANON = str.maketrans({cp: v for cp, v in _CANON.items() if cp < 128})
_ASCII_SPACES = "".join(sorted(ch for ch in SPACES - {"\n", " "} if ch.isascii()))
_NEEDS_CANON = re.compile("[" + "".join(re.escape(chr(cp)) for cp in sorted(_CANON) if cp >= 128) + "]")


def _canon_of(m: re.Match[str]) -> str:
    return _CANON[ord(m.group())]


def fold(text: str) -> str:
    """``text`` folded as the regular-expression engine compares characters, one code point for
    one code point (offsets are kept): simple lower case, the engine's extra case equivalences
    mapped to one member, and every white-space character but the line break mapped to a space
    (so ``\\s`` is two literals, not twenty-five)."""
    if text.isascii():
        return text.lower().translate(_ASCII_CANON)
    low = text.replace("\u0130", "i").lower()
    for ch in _ASCII_SPACES:
        if ch in low:
            low = low.replace(ch, " ")
    parts = []
    pos = 0
    for s, e in non_ascii.runs(low):  # what _NEEDS_CANON may match, found without a pass over every character
        parts.append(low[pos:s])
        parts.append(_NEEDS_CANON.sub(_canon_of, low[s:e]))
        pos = e
    parts.append(low[pos:])
    return "".join(parts)


@functools.cache
def fold_char(cp: int) -> str:
    """:func:`fold` of one code point (cached: the syntax-tree walk asks for the same few often)."""
    return fold(chr(cp))
