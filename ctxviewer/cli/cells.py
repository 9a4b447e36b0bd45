"""One cell of a terminal table: its width in display columns (:func:`text_width`; a CJK
character takes two) and the cell cut to a width with "…" marking the cut (:func:`elide`), as
``ctxviewer list``'s table and the progress line fit their text. wcwidth is imported only for
text that is not printable ASCII.
"""

from __future__ import annotations

from ctxviewer.cli.simple_table import ELLIPSIS, wcswidth

__all__ = ["ELLIPSIS", "elide", "text_width"]


def text_width(text: str) -> int:
    """Display columns of ``text`` in a terminal (``wcwidth.wcswidth``; a character it cannot
    measure counts as one column)."""
    width = wcswidth(text)
    if width >= 0:
        return width
    from wcwidth import wcwidth

    return sum(max(wcwidth(ch), 1) for ch in text)


def _take(text: str, width: int, from_end: bool = False) -> str:
    """The longest start (or end) of ``text`` at most ``width`` display columns wide."""
    out: list[str] = []
    used = 0
    for ch in reversed(text) if from_end else text:
        w = 1 if ch.isascii() and ch.isprintable() else _char_width(ch)
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(reversed(out) if from_end else out)


def elide(text: str, width: int, where: str = "end") -> str:
    """``text`` cut to at most ``width`` display columns with :data:`ELLIPSIS` marking the cut:
    at the end (``"gpt-4o-mini-2…"``) or in the ``"middle"`` (``"7e1c0b5a…00000000000000b7"``);
    unchanged when it fits."""
    if text_width(text) <= width:
        return text
    room = max(width - 1, 0)
    if where == "middle":
        tail = _take(text, room // 2 + room % 2, from_end=True)
        return _take(text, room - text_width(tail)) + ELLIPSIS + tail
    return _take(text, room) + ELLIPSIS


def _char_width(ch: str) -> int:
    from wcwidth import wcwidth

    return max(int(wcwidth(ch)), 0)
