"""Family ``injection.invisible``: text a person reading the item cannot see.

Attack kind: instructions written in Unicode tag characters (U+E0000..U+E007F, which mirror
ASCII and render as nothing: "ASCII smuggling"), runs of zero-width characters, and bidirectional
overrides that make the displayed order differ from the stored order (Trojan Source). Tag runs
are decoded and the decoded text is quoted in the reason. Zero-width joiners and non-joiners are
normal in Persian, Indic scripts and emoji, so a single one is not reported; a run of three or
more, or one between two ASCII letters, is. Display copies with these characters made visible
come from :func:`ctxviewer.util.visible.reveal` (one helper for every surface).
"""

from __future__ import annotations

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
        for m in finditer(BIDI, text):
            names = [_NAMES[c] for c in m.group(0) if c in _BIDI_NAMES]
            yield Hit(self.id, m.start(), m.end(), f"{len(names)} bidirectional control character(s) that reorder "
                      "the displayed text: " + " ".join(names), Severity.WARNING)


INVISIBLE = InvisibleText()
