"""Huge item content shown as a preview first: a 48 MB item must not freeze the window.

Text longer than :data:`SHOW_LIMIT` code points (or with a line over :data:`LINE_LIMIT`) is shown as
its first lines up to that limit, under
a notice giving its size, kind and line count, with "Show all" to load the rest on request.
Syntax highlighting never runs on more than :data:`HIGHLIGHT_LIMIT` code points (the rest is
shown plain). :func:`preview` decides; the content view only paints. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

SHOW_LIMIT = 200_000
"""Code points of an item shown before "Show all" (about 200 KB: lays out in well under 100 ms)."""
LINE_LIMIT = 4_000
"""Longest line shown before "Show all": Qt lays out one paragraph at a time, and a single line of
200,000 characters takes seconds to wrap (a minified JSON body, a base64 blob)."""
HIGHLIGHT_LIMIT = 200_000
"""Code points highlighted at most; a longer text is highlighted on this prefix only."""


@dataclass(frozen=True)
class Preview:
    """What the content view shows first for one text."""

    text: str
    """The text shown: all of it, or its first lines up to :data:`SHOW_LIMIT`."""
    notice: str | None
    """``None`` when the whole text is shown; else e.g. ``"Large item: 48.0 MB, JSON, 50,331,648
    characters; showing the first 200,000 characters"`` (no line count: counting 50 MB costs more
    than painting the preview)."""

    @property
    def partial(self) -> bool:
        """True when only a prefix is shown."""
        return self.notice is not None


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def kind_of(text: str) -> str:
    """``"JSON"`` for text that starts like a JSON object or array, else ``"text"``."""
    head = text[:64].lstrip()
    return "JSON" if head[:1] in ("{", "[") else "text"


def _long_line(text: str, end: int, line_limit: int) -> int | None:
    """Offset at which the first line longer than ``line_limit`` within ``text[:end]`` reaches it."""
    start = 0
    while start < end:
        nl = text.find("\n", start, end)
        stop = end if nl < 0 else nl
        if stop - start > line_limit:
            return start + line_limit
        if nl < 0:
            return None
        start = nl + 1
    return None


def preview(text: str, limit: int = SHOW_LIMIT, line_limit: int = LINE_LIMIT) -> Preview:
    """The :class:`Preview` of ``text``: whole when it is at most ``limit`` code points with no line
    over ``line_limit``; else cut where the first over-long line reaches ``line_limit`` (the lines
    before it whole: ``"Summarise:\n"`` then a 408,000-character line shows 4,011 characters, not 10),
    or, with no such line, at the last line break before ``limit``."""
    long_at = _long_line(text, min(len(text), limit + 1), line_limit)
    if len(text) <= limit and long_at is None:
        return Preview(text, None)
    if long_at is not None:  # every line before it is whole: show up to where the long one reaches its limit
        cut = min(long_at, limit)
    else:
        cut = text.rfind("\n", 0, limit)
        cut = limit if cut <= 0 else cut
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    notice = (f"Large item: {_size(size)}, {kind_of(text)}, {len(text):,} characters; "
              f"showing the first {cut:,} characters")
    return Preview(text[:cut], notice)
