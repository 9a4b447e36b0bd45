"""Family ``injection.invisible``: text a person reading the item cannot see.

Attack kind: instructions written in Unicode tag characters (U+E0000..U+E007F, which mirror
ASCII and render as nothing: "ASCII smuggling"), runs of zero-width characters, and bidirectional
overrides that make the displayed order differ from the stored order (Trojan Source). Tag runs
are decoded and the decoded text is quoted in the reason. Zero-width joiners and non-joiners are
normal in Persian, Indic scripts and emoji, so a single one is not reported; a run of three or
more, or one between two ASCII letters, is. A byte-order mark (U+FEFF) is normal at the very start
of a text and reported anywhere else (info: it is also what concatenated files leave behind).
Terminal escape sequences (ESC, U+001B: ANSI/ECMA-48 CSI and OSC sequences) make a terminal show
something else than the stored text: one that moves the cursor, erases, hides text (SGR 8,
conceal), sets a title or a hyperlink (OSC), or a bare ESC, is a warning each; colour and style
sequences alone (SGR, coloured tool output) are one info finding per text. Display copies with
these characters made visible come from :func:`ctxviewer.util.visible.reveal` (one helper for
every surface, which marks ESC and BOM too).
"""

from __future__ import annotations

import re
from typing import Iterator

from ctxviewer.assess.scanner.patterns import Hit, LazyPattern
from ctxviewer.assess.scanner.prefilter import finditer
from ctxviewer.model.findings import Severity

TAGS = LazyPattern("[\U000e0000-\U000e007f]+")
VARIATION_RUN = LazyPattern("[\U000e0100-\U000e01ef]{4,}", scout="[\U000e0100-\U000e01ef][\U000e0100-\U000e01ef]{3}")
ZERO_WIDTH = LazyPattern("[\u200b\u200c\u200d\u2060\u180e\ufeff\u2062\u2063\u2064]")
ZW_RUN = LazyPattern("[\u200b\u200c\u200d\u2060\u180e\ufeff\u2062\u2063\u2064]{3,}")
ZW_IN_WORD = LazyPattern("(?<=[A-Za-z])[\u200b\u2060\u180e\ufeff\u2062\u2063\u2064\u200c\u200d]+(?=[A-Za-z])")
BIDI = LazyPattern("[\u202a-\u202e\u2066-\u2069](?:[ \t\u200e\u200f\u061c]*[\u202a-\u202e\u2066-\u2069])*")
"""One span of bidi controls (embeddings, overrides, isolates and their closers): controls next to
each other or apart only by spaces, tabs and direction marks (LRM, RLM, ALM) are one finding
(Trojan Source writes ``RLO LRI`` as ``\u202e \u2066``), never one per character."""

BOM = LazyPattern("\ufeff+")
"""A run of byte-order marks (reported when not at the text's start and not already in a zero-width run)."""
ESCAPE = LazyPattern("\x1b(?:\\[[0-?]*[ -/]*[@-~]|\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|[@-Z\\\\-_])?")
"""One terminal escape: ECMA-48 CSI (``ESC [`` parameters, intermediates, final byte), OSC
(``ESC ]`` ... BEL or ST), another two-character escape, or a bare ESC."""
_SGR = LazyPattern(r"\x1b\[([0-9;:]*)m")
"""A Select Graphic Rendition sequence (colour and style) and its parameters."""

_NAMES = {  # for the reasons
    "\u200b": "ZWSP", "\u200c": "ZWNJ", "\u200d": "ZWJ", "\u2060": "WJ", "\u180e": "MVS", "\ufeff": "BOM",
    "\u2062": "INVISIBLE TIMES", "\u2063": "INVISIBLE SEPARATOR", "\u2064": "INVISIBLE PLUS",
    "\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO",
    "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI", "\u200e": "LRM", "\u200f": "RLM",
    "\u061c": "ALM",
}
_BIDI_NAMES = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def decode_tags(run: str) -> str:
    """The ASCII text a run of Unicode tag characters mirrors (U+E0041 -> ``"A"``); tags outside
    the printable range become ``"?"``."""
    out = []
    for ch in run:
        cp = ord(ch) - 0xE0000
        out.append(chr(cp) if 0x20 <= cp < 0x7F else "?")
    return "".join(out)


class InvisibleText:
    """Tag-character runs (decoded), zero-width runs and bidi controls."""

    id = "injection.invisible"
    title = "invisible text: Unicode tags, zero-width or bidi controls"

    def find(self, text: str) -> Iterator[Hit]:
        """One hit per run of invisible characters."""
        for m in finditer(TAGS, text):
            yield Hit(self.id, m.start(), m.end(), f"{len(m.group(0))} invisible Unicode tag characters spelling "
                      f"'{decode_tags(m.group(0))[:80]}'", Severity.FAILURE)
        for m in finditer(VARIATION_RUN, text):
            yield Hit(self.id, m.start(), m.end(), f"{len(m.group(0))} variation selectors in a run (bytes smuggled "
                      "in invisible characters)", Severity.FAILURE)
        seen: set[int] = set()
        for pattern in (ZW_RUN, ZW_IN_WORD):
            for m in finditer(pattern, text):
                if m.start() in seen or (m.start() == 0 and m.group(0) == "\ufeff"):
                    continue
                seen.add(m.start())
                yield Hit(self.id, m.start(), m.end(), f"{len(m.group(0))} zero-width character(s) hidden in the text",
                          Severity.WARNING)
        for m in finditer(BOM, text):
            if m.start() == 0 or any(k in seen for k in range(m.start(), m.end())):
                continue  # the start of a document, or reported in a zero-width run above
            yield Hit(self.id, m.start(), m.end(), f"{len(m.group(0))} byte-order mark(s) (U+FEFF) inside the text, "
                      "where it is an invisible zero-width no-break space", Severity.INFO)
        yield from _escapes(self.id, text)
        for m in finditer(BIDI, text):
            names = [_NAMES[c] for c in m.group(0) if c in _BIDI_NAMES]
            yield Hit(self.id, m.start(), m.end(), f"{len(names)} bidirectional control character(s) that reorder "
                      "the displayed text: " + " ".join(names), Severity.WARNING)


def _shown(seq: str) -> str:
    """An escape sequence for a reason: ESC spelt out, other controls as ``^G``-style names."""
    return "".join("ESC" if c == "\x1b" else f"^{chr(ord(c) + 64)}" if ord(c) < 0x20 else c for c in seq[:24])


def _conceals(params: str) -> bool:
    """Whether SGR parameters ``params`` (``"1;38;5;8"``) turn on conceal (8), not counting the
    colour arguments of 38, 48 and 58 (``5;N`` or ``2;R;G;B``)."""
    ps = params.replace(":", ";").split(";")
    i = 0
    while i < len(ps):
        if ps[i] in {"38", "48", "58"}:
            i += 3 if i + 1 < len(ps) and ps[i + 1] == "5" else 5
            continue
        if ps[i] == "8":
            return True
        i += 1
    return False


def _escapes(rule: str, text: str) -> Iterator[Hit]:
    """The terminal escape hits of ``text`` (module docstring): a warning per sequence that is not
    colour or style, one info hit (at the first) for all the colour and style sequences."""
    styles: list[re.Match[str]] = []
    for m in finditer(ESCAPE, text):
        sgr = _SGR.fullmatch(m.group(0))
        if sgr is not None and not _conceals(sgr.group(1)):
            styles.append(m)
            continue
        yield Hit(rule, m.start(), m.end(), f"terminal escape sequence {_shown(m.group(0))} (moves the cursor, erases, "
                  "hides text or sets a title or link on a terminal)", Severity.WARNING)
    if styles:
        first = styles[0]
        yield Hit(rule, first.start(), first.end(), f"{len(styles)} terminal colour or style escape sequence(s) "
                  f"(first: {_shown(first.group(0))})", Severity.INFO)


INVISIBLE = InvisibleText()
