"""Family ``injection.encoded``: instructions hidden in hex, base64 or rot13 ("token smuggling").

Attack kind: an instruction encoded so that keyword filters miss it while the model decodes it
("# 49676e6f7265207468652066756e6374696f6e..."), in base64, in 8-bit binary groups or in Morse
code. A run of at least 24 hex digits, 20 base64 characters, 8 binary groups or 8 Morse letters
that decodes to printable text of several words is reported with the decoded text;
the decoded text is also scanned by the other families and their reasons are quoted. A line with
three common words as they read in rot13 ("gur", "naq", "vtaber") is decoded and reported when
the other families flag the decoded text. Hashes,
keys and binary blobs decode to non-text and are not reported.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import itertools
import re
from typing import Callable, Iterator

from ctxviewer.assess.scanner.patterns import Hit, LazyPattern
from ctxviewer.assess.scanner.prefilter import finditer
from ctxviewer.model.findings import Severity

_HEX = LazyPattern(r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){12,}(?![0-9A-Za-z])",
                   scout=r"[0-9a-fA-F][0-9a-fA-F]{23}")  # every match starts with 24 hex digits
_HEX_CHARS = LazyPattern(r"[0-9a-fA-F]{24,}")
_B64 = LazyPattern(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=])",
                   scout=(r"[^A-Za-z0-9+/][A-Za-z0-9+/]{20}", 1))  # a run of 20 after a character outside it
_WORDS = LazyPattern(r"[A-Za-z]{2,}")
_BINARY = LazyPattern(r"(?<![01])(?:[01]{6,9}[ \t]+){7,}[01]{6,9}(?![01])")
"""No scout: its start literals are its first groups (``000000 00001``...: :mod:`.start_sets` lengthens
into a repeat's next copy), rare in prose, so its candidates come from the prefilter's automaton."""
_MORSE = LazyPattern(r"(?<![.\-/\w])(?:[.\-]{1,6}[ ]+(?:/[ ]+)?){7,}[.\-]{1,6}(?![.\-\w])")
"""Likewise (``. - .``, ``-- .``...; not every full stop and space)."""
_ROT13_WORD = LazyPattern(r"\b(?:gur|naq|lbh|lbhe|vtaber|nyy|cerivbhf|vafgehpgvbaf|flfgrz|cebzcg|fnl|cnffjbeq|erfcbaq|"
                          r"ercyl|fraq|guvf|jvgu|sbe|sebz|nccebirq|nqzva)\b", re.IGNORECASE)
"""Common English words and instruction words as they read in rot13 ("gur" = "the", "vtaber" = "ignore")."""
_MORSE_CODE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h", "..": "i",
    ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p", "--.-": "q", ".-.": "r",
    "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z",
}


def _as_text(raw: bytes) -> str | None:
    """``raw`` as text of words, or ``None``. Tolerates a damaged tail (a run cut or garbled by
    copying): the decoded text counts when 90 % of it is printable."""
    s = raw.decode("utf-8", errors="replace")
    if " " not in s or s.count("\ufffd") > 0.1 * len(s):  # cheap first: a long binary run decodes to U+FFFD
        return None
    printable = sum((ch.isprintable() and ch != "\ufffd") or ch in "\n\t" for ch in s)
    if printable < 0.9 * len(s) or len(list(itertools.islice(_WORDS.finditer(s), 3))) < 3:
        return None
    return "".join(ch if ch.isprintable() or ch in "\n\t" else "?" for ch in s)


def decode_binary(run: str) -> str | None:
    """Text spelled by space-separated 8-bit groups (``01001001 00100000`` -> ``"I "``), or ``None``."""
    out = bytearray()
    for group in run.split():
        if len(group) == 8:
            out.append(int(group, 2))
    return _as_text(bytes(out)) if len(out) >= 8 else None


def decode_morse(run: str) -> str | None:
    """Text spelled in Morse code (letters separated by spaces, words by ``/``), or ``None``."""
    words = []
    for word in run.split("/"):
        letters = [_MORSE_CODE.get(tok) for tok in word.split()]
        if None in letters:
            return None
        words.append("".join(letters))  # type: ignore[arg-type]
    text = " ".join(w for w in words if w)
    return text if len(_WORDS.findall(text)) >= 2 else None


def decode_run(run: str) -> str | None:
    """The text a hex or base64 run decodes to, or ``None`` if it is not readable text of words."""
    if len(run) % 2 == 0 and _HEX_CHARS.fullmatch(run):  # = _HEX.fullmatch(run), without its backtracking
        try:
            return _as_text(binascii.unhexlify(run))
        except binascii.Error:
            return None
    body = run if len(run) % 4 == 0 else run.rstrip("=")[: len(run.rstrip("=")) // 4 * 4]  # tolerate a cut tail
    try:
        return _as_text(base64.b64decode(body, validate=True)) if body else None
    except (binascii.Error, ValueError):
        return None


class EncodedText:
    """Hex and base64 runs that decode to words; ``rescan`` scans the decoded text (set by the registry)."""

    id = "injection.encoded"
    title = "instruction hidden in hex or base64"

    def __init__(self) -> None:
        self.rescan: Callable[[str], list[Hit]] | None = None

    def find(self, text: str) -> Iterator[Hit]:
        """One hit per run that decodes to text (``failure`` if the decoded text itself has hits)."""
        seen: set[int] = set()
        for pattern in (_HEX, _B64):
            for m in finditer(pattern, text):
                if m.start() in seen:
                    continue
                decoded = decode_run(m.group(0))
                if decoded is None:
                    continue
                seen.add(m.start())
                inner = self.rescan(decoded) if self.rescan else []
                why = f"; decoded, it reads as: {inner[0].reason}" if inner else ""
                yield Hit(self.id, m.start(), m.end(), f"encoded text decodes to '{decoded[:80]}'{why}",
                          Severity.FAILURE if inner else Severity.WARNING)
        for pattern, decode, name in ((_BINARY, decode_binary, "binary"), (_MORSE, decode_morse, "Morse code")):
            for m in finditer(pattern, text):
                decoded = decode(m.group(0))
                if decoded is None:
                    continue
                inner = self.rescan(decoded) if self.rescan else []
                why = f"; decoded, it reads as: {inner[0].reason}" if inner else ""
                yield Hit(self.id, m.start(), m.end(), f"{name} spells '{decoded[:80]}'{why}",
                          Severity.FAILURE if inner else Severity.WARNING)
        yield from self._rot13(text)


    def _rot13(self, text: str) -> Iterator[Hit]:
        """Lines with three rot13 words whose rot13 decoding the other families flag (``failure``)."""
        lines: dict[int, list[re.Match[str]]] = {}
        for m in finditer(_ROT13_WORD, text):
            lines.setdefault(text.rfind("\n", 0, m.start()), []).append(m)
        for words in lines.values():
            if len({w.group(0).lower() for w in words}) < 3 or not self.rescan:
                continue
            start = words[0].start()
            end = text.find("\n", words[-1].end())
            end = len(text) if end < 0 else end
            while end > start and text[end - 1].isspace():
                end -= 1
            decoded = codecs.decode(text[start:end], "rot13")
            inner = self.rescan(decoded)
            if inner:
                yield Hit(self.id, start, end, f"rot13 text decodes to '{decoded[:80]}'; decoded, it reads as: "
                          f"{inner[0].reason}", Severity.FAILURE)


ENCODED = EncodedText()
