"""Family ``injection.encoded``: instructions hidden in hex or base64 ("token smuggling").

Attack kind: an instruction encoded so that keyword filters miss it while the model decodes it
("# 49676e6f7265207468652066756e6374696f6e..."). A run of at least 24 hex digits or 20 base64
characters that decodes to printable text of several words is reported with the decoded text;
the decoded text is also scanned by the other families and their reasons are quoted. Hashes,
keys and binary blobs decode to non-text and are not reported.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Callable, Iterator

from ..findings import Severity
from ._api import Hit

_HEX = re.compile(r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){12,}(?![0-9A-Za-z])")
_B64 = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=])")
_WORDS = re.compile(r"[A-Za-z]{2,}")


def _as_text(raw: bytes) -> str | None:
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in s)
    if printable < len(s) or len(_WORDS.findall(s)) < 3 or " " not in s:
        return None
    return s


def decode_run(run: str) -> str | None:
    """The text a hex or base64 run decodes to, or ``None`` if it is not readable text of words."""
    if _HEX.fullmatch(run):
        try:
            return _as_text(binascii.unhexlify(run))
        except binascii.Error:
            return None
    try:
        return _as_text(base64.b64decode(run + "=" * (-len(run) % 4), validate=True))
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
            for m in pattern.finditer(text):
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


ENCODED = EncodedText()
