"""The text with its invisible format characters taken out, and the way back to stored offsets.

Zero-width characters, joiners, the word joiner, the byte-order mark, the soft hyphen, the other
invisible format characters of :data:`FORMAT_DROP`, the bidirectional controls
(:data:`ctxviewer.util.visible.BIDI_CONTROLS`) and Unicode tag characters (U+E0000..U+E007F) render
as nothing, so ``ig\\u200bnore`` reads "ignore" to a person and to a model, while a word rule
(letters and digits) splits it in two. :func:`join_invisible` returns the *joined view*: the text
with those characters removed (tag characters too: the scanner decodes what they spell,
:mod:`ctxviewer.assess.scanner.normalise`, which takes its list of removed characters from here),
and :meth:`Joined.to_stored` maps a span of the view back to the stored text, which is never
changed. The full-text index holds this view beside the stored text (:mod:`ctxviewer.store.fts`).
No Qt here.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ctxviewer.util.visible import BIDI_CONTROLS

FORMAT_DROP = "\u200b\u200c\u200d\u2060\u2061\u2062\u2064\ufeff\u00ad\u180e\u034f"
"""Invisible format characters a reader and a model read past: ZWSP, ZWNJ, ZWJ, WJ, FUNCTION
APPLICATION, INVISIBLE TIMES, INVISIBLE PLUS, BOM (ZWNBSP), SOFT HYPHEN, MONGOLIAN VOWEL SEPARATOR,
COMBINING GRAPHEME JOINER. Not U+2063 INVISIBLE SEPARATOR, which stands for a word break (a
separator for the index already)."""

_TAGS = "\U000e0000-\U000e007f"
_INVISIBLE = re.compile("[" + re.escape(FORMAT_DROP + "".join(sorted(BIDI_CONTROLS))) + _TAGS + "]+")
"""A run of characters :func:`join_invisible` removes."""


@dataclass(frozen=True)
class Joined:
    """The joined view of a text and the map back to it."""

    text: str
    """The text with every character of :data:`FORMAT_DROP`, every bidi control and every tag
    character removed."""
    _at: tuple[int, ...]
    """Per removed run, the view offset it was removed at (ascending)."""
    _shift: tuple[int, ...]
    """Per removed run, how many characters were removed up to and including it."""

    def stored_offset(self, offset: int) -> int:
        """The stored-text offset of the view character at ``offset`` (code points): removed
        characters just before it are skipped, not included."""
        k = bisect.bisect_right(self._at, offset)
        return offset + (self._shift[k - 1] if k else 0)

    def to_stored(self, start: int, length: int) -> tuple[int, int]:
        """``(start, length)`` in the stored text of the view span ``(start, length)``; removed
        characters inside the span are inside the result (``ig⟨ZWSP⟩nore`` for ``ignore``)."""
        if length <= 0:
            return self.stored_offset(start), 0
        s = self.stored_offset(start)
        return s, self.stored_offset(start + length - 1) + 1 - s


def join_invisible(text: str) -> Joined | None:
    """The joined view of ``text`` (module docstring), or ``None`` when it holds no character to
    remove (a fast C search; linear in the text's length)."""
    if _INVISIBLE.search(text) is None:
        return None
    pieces: list[str] = []
    at: list[int] = []
    shift: list[int] = []
    pos = removed = 0
    for m in _INVISIBLE.finditer(text):
        pieces.append(text[pos:m.start()])
        removed += m.end() - m.start()
        at.append(m.start() - (removed - (m.end() - m.start())))
        shift.append(removed)
        pos = m.end()
    pieces.append(text[pos:])
    return Joined("".join(pieces), tuple(at), tuple(shift))


def drop_invisible(text: str) -> str:
    """``text`` with the characters :func:`join_invisible` removes taken out (for a query and for
    the index, which need no map back)."""
    return _INVISIBLE.sub("", text)
