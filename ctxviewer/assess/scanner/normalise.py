"""Normalisation before the rules: the text a model reads, with its disguises taken off.

An instruction split by zero-width characters (``i\u200bgnore``), spelt with look-alike letters
of another script (Cyrillic ``о`` in ``Ignоre``), in fullwidth or mathematical letters
(``Ｉｇｎｏｒｅ``), with soft hyphens, or in Unicode tag characters (which mirror ASCII) reads to a
model as the plain instruction, and to a regular expression as nothing. :func:`normalise` returns
the text with zero-width characters, soft hyphens, joiners, bidirectional controls and ASCII
control characters (NUL, ESC, ...) removed, tag characters decoded to
the ASCII they mirror, compatibility forms folded (NFKC, where the result is ASCII) and
homoglyphs mapped to the Latin letter they imitate -- only inside words that mix them with Latin
letters, or in a line that is mostly Latin, so Russian or Greek prose is left as it is. A
removed character between two words may have stood for a space (``Ignore\u200bprevious``): the
spaced view (``normalise(text, spaced=True)``) reads it as one, and the registry scans both. The
homoglyph table is Unicode's confusables (UTS #39) as shipped by ``confusable-homoglyphs``,
loaded on first need.

:class:`Normalised` maps a span of the normalised text back to the original (``span``): the
findings keep spans of the text the user sees. The registry scans the normalised text as well
and keeps the hits that cover a disguise. No Qt here.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass

from ctxviewer.assess.scanner import non_ascii
from ctxviewer.util.invisible_fold import FORMAT_DROP
from ctxviewer.util.visible import BIDI_CONTROLS

_DROP = FORMAT_DROP
"""The invisible format characters removed (one list with the search index's joined view)."""
_C0_CHARS = "".join(map(chr, (*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F)))
"""ASCII control characters a model reads past (NUL, ESC, ...): not tab, line feed, carriage
return, or the vertical tab and form feed, which break lines. Bidirectional controls
(:data:`ctxviewer.util.visible.BIDI_CONTROLS`) reorder what a reader sees while a model reads the
characters around them in stored order (``Ig\u202enore`` reads as ``Ignore``): both are taken off."""
_C0_RUN = re.compile(rf"\x1b\[[0-?]*[ -/]*[@-~]|[{re.escape(_C0_CHARS)}]")
"""An ANSI escape sequence (``ESC [ 31 m``: colour, cursor) taken off whole, or one of :data:`_C0_CHARS`."""
_NOT_C0 = bytes(b for b in range(256) if chr(b) not in _C0_CHARS)
"""Every UTF-8 byte but those of :data:`_C0_CHARS` (deleted to see whether any is left)."""


def _has_controls(text: str) -> bool:
    """Whether ``text`` holds one of :data:`_C0_CHARS`: its UTF-8 bytes with every other byte
    deleted are not empty (about 1.6 ms per 2 MB, against 9.5 ms for a regular-expression search)."""
    return bool(text.encode("utf-8", "surrogatepass").translate(None, _NOT_C0))
_SPACE = "\u2063"  # INVISIBLE SEPARATOR: a word break a reader cannot see
_BREAKS = frozenset("\u200b\u2060\ufeff" + _C0_CHARS) | BIDI_CONTROLS
"""Characters that may stand where a space was (zero-width space, word joiner, byte-order mark,
bidirectional and ASCII controls): between two words they are a word break in the spaced view
(:func:`normalise`). Not the joiners, soft hyphen or combining grapheme joiner, which sit inside
words (Persian and Hindi write the zero-width non-joiner between letters of one word)."""
_TAG_LO, _TAG_HI = 0xE0000, 0xE007F
_KIND = {"drop": "zero-width characters", "control": "control characters", "tag": "Unicode tag characters", "nfkc": "fullwidth or styled letters",
         "homoglyph": "look-alike letters of another script"}


@functools.cache
def _homoglyphs() -> dict[str, str]:
    """Non-ASCII character -> the ASCII letter or digit it imitates (same case where possible)."""
    from confusable_homoglyphs.confusables import confusables_data  # ~30 ms: only for non-ASCII text

    table: dict[str, str] = {}
    for ch, glyphs in confusables_data.items():
        if len(ch) != 1 or ch.isascii() or not ch.isalpha() or unicodedata.name(ch, "").startswith("LATIN"):
            continue  # accented Latin letters are spelling, not disguise
        ascii_ = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()]
        same_case = [c for c in ascii_ if c.isalpha() and c.isupper() == ch.isupper()]
        if same_case or ascii_:
            table[ch] = (same_case or ascii_)[0]
    return table


@dataclass(frozen=True)
class Normalised:
    """The normalised text and how to map its spans back."""

    text: str
    """The text with disguises taken off."""
    kinds: frozenset[str]
    """What was taken off, in words (e.g. ``"zero-width characters"``)."""
    _norm_starts: tuple[int, ...]
    _orig_starts: tuple[int, ...]
    _orig_ends: tuple[int, ...]
    _edited: tuple[bool, ...]
    _kinds: tuple[str | None, ...] = ()
    """Per piece, what its edit took off (a :attr:`kinds` word), ``None`` for a piece kept."""
    breaks: bool = False
    """Whether a removed character stood between two words (:func:`normalise`'s ``spaced``)."""

    def excerpts(self, context: int) -> list[tuple[int, int]]:
        """``[start, end)`` ranges of the normalised text around its edits, ``context`` characters
        either side, merged: a hit that covers an edit lies inside one of them."""
        out: list[tuple[int, int]] = []
        size = len(self.text)
        for k, changed in enumerate(self._edited):
            if not changed:
                continue
            end = self._norm_starts[k + 1] if k + 1 < len(self._norm_starts) else size
            a, b = max(0, self._norm_starts[k] - context), min(size, end + context)
            if out and a <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], b))
            else:
                out.append((a, b))
        return out

    def span(self, start: int, end: int) -> tuple[int, int, bool]:
        """The original ``[start, end)`` of the normalised span ``[start, end)``, and whether it
        covers an edit (a disguise)."""
        i = bisect.bisect_right(self._norm_starts, start) - 1
        j = bisect.bisect_right(self._norm_starts, max(start, end - 1)) - 1
        s = self._orig_starts[i] + (0 if self._edited[i] else start - self._norm_starts[i])
        e = self._orig_ends[j] if self._edited[j] else self._orig_starts[j] + (end - self._norm_starts[j])
        return s, e, any(self._edited[i:j + 1])

    def kinds_in(self, start: int, end: int) -> frozenset[str]:
        """What was taken off inside the normalised span ``[start, end)`` (the :attr:`kinds` of
        its edits only: a line with a zero-width space is not said to hold look-alike letters
        another line of the text holds)."""
        i = bisect.bisect_right(self._norm_starts, start) - 1
        j = bisect.bisect_right(self._norm_starts, max(start, end - 1)) - 1  # the pieces span() reads
        return frozenset(k for k in self._kinds[max(i, 0):j + 1] if k is not None) or self.kinds


def normalise(text: str, *, spaced: bool = False) -> Normalised | None:
    """``text`` with its disguises taken off (module docstring), or ``None`` when nothing changes
    (every ASCII text). Linear in the text's length.

    A character of :data:`_BREAKS` (or a whole ANSI sequence) is removed, which joins the letters
    around it: ``Ig\\x00nore`` reads "Ignore". The same character between two words
    (``Ignore\\u200bprevious``) hid a space; with ``spaced`` each run of them with a letter or digit
    on both sides reads as one space instead ("Ignore previous"). :attr:`Normalised.breaks`
    says whether the text has such a run (the spaced view is then worth scanning too).
    """
    ascii_only = text.isascii()
    controls = _has_controls(text)
    if ascii_only and not controls:
        return None
    pieces: list[str] = []
    norm_starts: list[int] = []
    orig_starts: list[int] = []
    orig_ends: list[int] = []
    edited: list[bool] = []
    piece_kinds: list[str | None] = []
    kinds: set[str] = set()
    pos = n = 0
    latin_lines: dict[int, bool] = {}
    breaks = False

    def between_words(s: int, e: int) -> bool:
        """Whether ``text[s:e]``, a removed character or sequence, is the first of a run of them
        with a letter or digit on both sides of the run."""
        if s == 0 or not text[s - 1].isalnum():
            return False
        while e < len(text) and (text[e] in _BREAKS or (text[e] == "\x1b" and _C0_RUN.match(text, e))):
            m = _C0_RUN.match(text, e) if text[e] == "\x1b" else None
            e = m.end() if m is not None else e + 1
        return e < len(text) and text[e].isalnum()

    last_end = -1  # where the last removed character or sequence ended: the next one there continues its run

    def removed(s: int, e: int, kind: str) -> None:
        """Take off ``text[s:e]`` (one character or an ANSI sequence); a space in the spaced view
        when it is the first of a run that stood between two words (the run is looked over once,
        from its first member: linear, one space per run)."""
        nonlocal breaks, last_end
        gap = s != last_end and (text[s] in _BREAKS or text[s] == "\x1b") and between_words(s, e)
        last_end = e
        breaks = breaks or gap
        edit(s, e, " " if gap and spaced else "", kind)

    def _piece(at: int, s: int, e: int, changed: bool, kind: str | None = None) -> None:
        norm_starts.append(at)
        orig_starts.append(s)
        orig_ends.append(e)
        edited.append(changed)
        piece_kinds.append(kind)

    def keep(upto: int) -> None:
        nonlocal pos, n
        if upto > pos:
            _piece(n, pos, upto, False)
            pieces.append(text[pos:upto])
            n += upto - pos
            pos = upto

    def edit(s: int, e: int, new: str, kind: str) -> None:
        nonlocal pos, n
        keep(s)
        # a removed character is a piece of length 0: never the piece a position falls in (the
        # next piece starts at the same place), but a span across it covers an edit
        _piece(n, s, e, True, _KIND[kind])
        pieces.append(new)
        n += len(new)
        pos = e
        kinds.add(_KIND[kind])

    done = 0
    # every edit is at a non-ASCII character or in its word: invisible and tag characters, fullwidth
    # and mathematical letters and digits (not fullwidth punctuation: Chinese and Japanese text is
    # written with it), and the words of non-ASCII letters (each checked for homoglyphs)
    runs = [] if ascii_only else list(non_ascii.runs(text))
    if controls:  # the ASCII controls are edits too, each a run of its own
        runs = sorted(runs + [(m.start(), m.end()) for m in _C0_RUN.finditer(text)])
    for run_start, run_end in runs:
        if run_end - run_start > 1 and text[run_start] == "\x1b" and run_start >= done:  # a whole ANSI sequence
            removed(run_start, run_end, "control")
            done = run_end
            continue
        for k in range(max(run_start, done), run_end):
            if k < done:
                continue
            ch = text[k]
            cp = ord(ch)
            if ch in _DROP:
                removed(k, k + 1, "drop")
            elif ch in BIDI_CONTROLS or ch in _C0_CHARS:
                removed(k, k + 1, "control")
            elif ch == _SPACE:
                edit(k, k + 1, " ", "drop")
            elif _TAG_LO <= cp <= _TAG_HI:
                edit(k, k + 1, chr(cp - _TAG_LO) if 0x20 <= cp - _TAG_LO < 0x7F else "", "tag")
            elif 0xFF10 <= cp <= 0xFF5A or 0x1D400 <= cp <= 0x1D7FF:
                folded = unicodedata.normalize("NFKC", ch)
                if folded != ch and folded.isascii():
                    edit(k, k + 1, folded, "nfkc")
            elif ch.isalpha():
                ws, we = k, k + 1
                while ws > pos and text[ws - 1].isalpha():
                    ws -= 1
                while we < len(text) and text[we].isalpha() and not 0xFF10 <= ord(text[we]) <= 0xFF5A:
                    we += 1
                _homoglyph_word(text, ws, we, edit, latin_lines)
                done = we
    if not kinds:
        return None
    keep(len(text))
    return Normalised("".join(pieces), frozenset(kinds), tuple(norm_starts), tuple(orig_starts), tuple(orig_ends),
                      tuple(edited), tuple(piece_kinds), breaks)


def _homoglyph_word(text: str, s: int, e: int, edit: object, latin_lines: dict[int, bool]) -> None:
    """Map the homoglyphs of the word ``text[s:e]`` when it mixes them with ASCII letters, or when
    every letter of it is one and its line is mostly ASCII letters (``latin_lines`` caches that)."""
    word = text[s:e]
    table = _homoglyphs()
    if not any(c.isascii() for c in word):
        if not all(c in table for c in word):
            return
        line_start = text.rfind("\n", 0, s) + 1
        latin = latin_lines.get(line_start)
        if latin is None:
            line_end = text.find("\n", line_start)
            line = text[line_start: line_end if line_end >= 0 else len(text)][:400]
            letters = [c for c in line if c.isalpha()]
            latin = latin_lines[line_start] = bool(letters) and sum(c.isascii() for c in letters) >= 0.5 * len(letters)
        if not latin:
            return
    for k, c in enumerate(word):
        if not c.isascii():
            if c in table:
                edit(s + k, s + k + 1, table[c], "homoglyph")  # type: ignore[operator]
            elif unicodedata.normalize("NFKC", c).isascii():
                edit(s + k, s + k + 1, unicodedata.normalize("NFKC", c), "nfkc")  # type: ignore[operator]
