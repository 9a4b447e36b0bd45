"""Make invisible and control characters visible, without changing the stored text.

Trace text is untrusted: a right-to-left override (U+202E) turns "evil" into "live" on screen,
zero-width and Unicode tag characters hide text from a reviewer, NUL and escape sequences upset
terminals. :func:`reveal` returns a display copy in which each such character (or run of tag
characters) is replaced by a visible marker, plus the ranges of those markers and a map from
offsets in the stored text to offsets in the display text, so highlights computed on the stored
text (pygments spans, scanner hits, diff hunks) land on the right characters.

Markers (all plain text):

* C0 controls and DEL as Unicode control pictures (``NUL`` -> ``␀``, ESC -> ``␛``); tab and
  line feed stay as they are unless ``keep_newlines=False`` (then ``⏎`` and ``⇥``); CR -> ``␍``.
  After :func:`use_control_names` ``(True)`` (the window does this when its font has no control
  pictures, which would show as boxes) by their ASCII names instead: ``⟨ESC⟩``, ``⟨BEL⟩``, ``⟨CR⟩``.
* bidi controls, zero-width characters and other invisible format characters by name in angle
  brackets: ``⟨RLO⟩``, ``⟨ZWSP⟩``, ``⟨BOM⟩``; C1 controls and lone surrogates as ``⟨U+0085⟩``.
* a run of Unicode tag characters (U+E0000..U+E007F) decoded: ``⟨tags: ignore all rules⟩``.
* a run of variation selectors from the supplement (U+E0100..U+E01EF, used to smuggle bytes)
  as ``⟨VS×12⟩``.

A zero-width joiner between two pictographic characters (emoji sequences) and the emoji
variation selector U+FE0F are left alone. Offsets are code points. No Qt here.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

_NAMED: dict[str, str] = {
    "\u061c": "ALM", "\u200e": "LRM", "\u200f": "RLM",
    "\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO",
    "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI",
    "\u200b": "ZWSP", "\u200c": "ZWNJ", "\u200d": "ZWJ", "\u2060": "WJ", "\ufeff": "BOM",
    "\u00ad": "SHY", "\u180e": "MVS", "\u2061": "FA", "\u2062": "IT", "\u2063": "IS", "\u2064": "IP",
    "\u034f": "CGJ", "\u115f": "HCF", "\u1160": "HJF", "\u3164": "HF", "\uffa0": "HWHF",
    "\u2028": "LSEP", "\u2029": "PSEP", "\ufff9": "IAA", "\ufffa": "IAS", "\ufffb": "IAT",
}
"""Invisible characters shown by name: bidi controls, zero-width and other format characters."""

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional formatting characters (Unicode UAX #9), which can reorder what is shown."""


@dataclass(frozen=True)
class Revealed:
    """A display copy of a text with its invisible characters made visible."""

    text: str
    """The display text (markers in place of invisible characters)."""
    marks: tuple[tuple[int, int], ...]
    """``(start, length)`` of each marker in :attr:`text`, in code points, in order."""
    _src: tuple[int, ...] = ()
    _dst: tuple[int, ...] = ()

    def to_display(self, offset: int) -> int:
        """The display offset of stored-text offset ``offset`` (code points). An offset inside a
        replaced run maps to the start of its marker; the end of the text maps to the end."""
        i = bisect.bisect_right(self._src, offset) - 1
        if i < 0:
            return offset
        if i % 2 == 0:  # entries alternate: start of a replaced run, then the offset after it
            return self._dst[i]
        return self._dst[i] + (offset - self._src[i])

    @property
    def changed(self) -> bool:
        """True when anything was replaced."""
        return bool(self.marks)


C0_NAMES = ("NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
            "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
            "FS", "GS", "RS", "US")
"""ASCII names of the C0 control characters U+0000..U+001F, in code-point order."""

_names = False  # C0 controls and DEL by name (⟨ESC⟩) instead of as control pictures (␛)


def use_control_names(on: bool) -> bool:
    """Show C0 controls and DEL as ``⟨ESC⟩``, ``⟨BEL⟩``, ``⟨CR⟩``, ``⟨DEL⟩`` (``on``) or as Unicode
    control pictures ``␛ ␇ ␍ ␡`` (the default, what the CLI prints). For a display whose font
    lacks the control-pictures block. Process-wide; returns the previous setting (to restore)."""
    global _names
    previous, _names = _names, bool(on)
    return previous


def _pictographic(ch: str) -> bool:
    return bool(ch) and (unicodedata.category(ch) == "So" or 0x1F000 <= ord(ch) <= 0x1FAFF)


def _marker(text: str, i: int, keep_newlines: bool) -> tuple[str, int] | None:
    """``(marker, chars consumed)`` for an invisible character at ``text[i]``, or ``None``."""
    ch = text[i]
    cp = ord(ch)
    if ch in "\n\t":
        if keep_newlines:
            return None
        return ("⏎" if ch == "\n" else "⇥"), 1
    if cp < 0x20:
        return (f"⟨{C0_NAMES[cp]}⟩" if _names else chr(0x2400 + cp)), 1
    if cp == 0x7F:
        return ("⟨DEL⟩" if _names else "\u2421"), 1
    if 0xE0000 <= cp <= 0xE007F:
        j = i
        while j < len(text) and 0xE0000 <= ord(text[j]) <= 0xE007F:
            j += 1
        decoded = "".join(chr(ord(c) - 0xE0000) if 0x20 <= ord(c) - 0xE0000 < 0x7F else "" for c in text[i:j])
        return f"⟨tags: {decoded}⟩", j - i
    if 0xE0100 <= cp <= 0xE01EF:
        j = i
        while j < len(text) and 0xE0100 <= ord(text[j]) <= 0xE01EF:
            j += 1
        return f"⟨VS×{j - i}⟩", j - i
    name = _NAMED.get(ch)
    if name is not None:
        if ch == "\u200d" and i > 0 and i + 1 < len(text) and _pictographic(text[i - 1]) and _pictographic(text[i + 1]):
            return None  # emoji sequence
        return f"⟨{name}⟩", 1
    if 0x80 <= cp <= 0x9F or 0xD800 <= cp <= 0xDFFF:
        return f"⟨U+{cp:04X}⟩", 1
    return None


def reveal(text: str, *, keep_newlines: bool = True) -> Revealed:
    """The display copy of ``text`` (see the module docstring for the markers).

    ``keep_newlines=False`` also replaces line feeds and tabs (for one-line table cells and
    headers). Never raises; the stored ``text`` is not changed. Cost is linear in ``len(text)``.
    """
    out: list[str] = []
    marks: list[tuple[int, int]] = []
    src: list[int] = []
    dst: list[int] = []
    pos = 0  # display length so far
    start = 0  # start of the pending run of ordinary characters
    finder = SUSPECT if keep_newlines else _SUSPECT_LINES
    for m in finder.finditer(text):  # jump from suspect to suspect: ordinary text is never looped over
        i = m.start()
        if i < start:
            continue  # inside a run already replaced (tag characters, variation selectors)
        hit = _marker(text, i, keep_newlines)
        if hit is None:
            continue
        marker, used = hit
        if start < i:
            out.append(text[start:i])
            pos += i - start
        src.append(i)
        dst.append(pos)
        out.append(marker)
        marks.append((pos, len(marker)))
        pos += len(marker)
        start = i + used
        src.append(start)
        dst.append(pos)
    if not marks:
        return Revealed(text, ())
    out.append(text[start:])
    return Revealed("".join(out), tuple(marks), tuple(src), tuple(dst))


def _suspect(ch: str) -> bool:
    """Cheap pre-filter: could ``ch`` need a marker?"""
    cp = ord(ch)
    return cp < 0x20 or 0x7F <= cp <= 0x9F or ch in _NAMED or 0xD800 <= cp <= 0xDFFF or cp >= 0xE0000


SUSPECT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\U000e0000-\U000e007f\U000e0100-\U000e01ef"
    + "".join(re.escape(ch) for ch in _NAMED) + "]"
)
"""Matches every character :func:`reveal` may replace (tab and line feed excluded): a fast test,
in C, for whether a text needs revealing at all."""


_SUSPECT_LINES = re.compile(SUSPECT.pattern[:-1] + "\n\t]")
""":data:`SUSPECT` plus line feed and tab (for ``keep_newlines=False``)."""


def needs_reveal(text: str) -> bool:
    """True when ``text`` holds a character :func:`reveal` (with ``keep_newlines=True``) may mark."""
    return SUSPECT.search(text) is not None


def one_line(text: str | None) -> str:
    """``text`` revealed for a table cell, header or terminal line: invisible characters and line
    breaks shown as markers (``reveal(text, keep_newlines=False).text``); ``None`` -> ``""``."""
    if not text:
        return ""
    return reveal(text, keep_newlines=False).text


EDGE_SPACE = "\u2423"
"""``␣`` (OPEN BOX): a space at the start or end of an identifier, where it cannot be seen."""


def visible_id(text: str | None) -> str:
    """An identifier (trace id, item id) for a cell or a line: :func:`one_line`, with each space at
    its start or end shown as :data:`EDGE_SPACE` -- ``"  spaced  "`` reads ``␣␣spaced␣␣``, so
    the id a user copies from the list is the one the database holds. Inner spaces stay."""
    shown = one_line(text)
    core = shown.strip(" ")
    if core == shown:
        return shown
    lead = len(shown) - len(shown.lstrip(" "))
    trail = len(shown) - len(shown.rstrip(" "))
    return EDGE_SPACE * lead + core + EDGE_SPACE * trail
