"""Where a mostly ASCII text holds non-ASCII characters, found without a regular-expression pass
over every character.

``re.finditer("[^\\x00-\\x7f]+", text)`` has no literal or charset prefix to skip by, so the
engine tries every position: about 5 ns a character, 10 ms for 2 MB of English prose with a few
accented letters or typographic marks -- as much as a pattern of the scanner. :func:`runs` gives
exactly its matches, but asks ``str.isascii`` (a C loop over the buffer) of each chunk of
:data:`CHUNK` characters first and searches only the chunks that hold a non-ASCII character,
joining runs that cross a chunk's edge. Used by the prefilter (:mod:`.prefilter`), case folding
(:mod:`.case_fold`) and normalisation (:mod:`.normalise`). No Qt here.
"""

from __future__ import annotations

import re

CHUNK = 1024
"""Characters per ``isascii`` test (a slice that short costs less than a microsecond)."""

_RUN = re.compile("[^\x00-\x7f][^\x00-\x7f]*")
"""A run of non-ASCII characters: a class first, so the engine skips ASCII characters in its charset loop."""


def runs(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``[s, e)`` of every maximal run of non-ASCII characters of ``text[start:end]``, in order:
    the spans of ``re.finditer("[^\\x00-\\x7f]+", text, start, end)``. ``[]`` for ASCII text."""
    stop = len(text) if end is None else min(end, len(text))
    if start >= stop or text.isascii():
        return []
    out: list[tuple[int, int]] = []
    search = _RUN.finditer
    for lo in range(start, stop, CHUNK):
        hi = min(lo + CHUNK, stop)
        if text[lo:hi].isascii():
            continue
        for m in search(text, lo, hi):
            s, e = m.span()
            if out and out[-1][1] == s:  # a run across the chunk's edge
                out[-1] = (out[-1][0], e)
            else:
                out.append((s, e))
    return out
