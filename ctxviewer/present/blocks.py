"""The typed blocks a message is rendered from: what the window's Rendered view draws, never markup.

A message's text (an item's content, a response) is turned by :mod:`ctxviewer.present.message_blocks`
into a tuple of blocks; each block holds plain text only, already made visible
(:func:`ctxviewer.util.visible.reveal`: zero-width, bidi and control characters as markers), and
the style to draw it with. The GUI writes them into a document with plain-text inserts and
character / block formats, so nothing in a trace is ever read as HTML or rich text, no link can be
followed (a link is its text and its URL, shown) and no image is fetched (a remote one is an
:class:`ImageBlock` without data). No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

STYLES = ("bold", "italic", "code", "strike", "link", "url")
"""The inline styles a :class:`TextRun` may carry: ``link`` is a link's text, ``url`` the URL shown after it."""


@dataclass(frozen=True)
class TextRun:
    """A run of text with its inline styles (a subset of :data:`STYLES`, in that order)."""

    text: str
    styles: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextBlock:
    """A paragraph, heading, list item or horizontal rule.

    ``kind``: ``"paragraph"``, ``"heading"`` (``level`` 1..6), ``"item"`` (``level`` the list
    depth, 1 = top; ``marker`` ``"•"`` or ``"3."``) or ``"rule"`` (no spans). ``quote``: the
    block-quote depth (0 = none)."""

    kind: str
    spans: tuple[TextRun, ...]
    level: int = 0
    marker: str = ""
    quote: int = 0


@dataclass(frozen=True)
class CodeBlock:
    """Preformatted text (a fenced or indented code block), shown in a fixed font, verbatim."""

    text: str
    language: str | None = None
    quote: int = 0


@dataclass(frozen=True)
class TableBlock:
    """A table: ``header`` cells then ``rows`` of cells, each cell a tuple of spans."""

    header: tuple[tuple[TextRun, ...], ...]
    rows: tuple[tuple[tuple[TextRun, ...], ...], ...]
    quote: int = 0


@dataclass(frozen=True)
class ImageBlock:
    """An image: ``data`` the encoded bytes to decode locally (``None``: shown as its label only).

    ``label`` says what it is and where from, e.g. ``"image/png 228×148 (from the recorded
    request)"`` or ``"remote image, not fetched: https://x/cat.png"``; ``alt`` the alt text."""

    label: str
    data: bytes | None = None
    alt: str = ""
    quote: int = 0


@dataclass(frozen=True)
class ToolCallBlock:
    """A tool call the assistant made: ``name``, ``call_id`` (``None``: not recorded), and its
    arguments as :func:`ctxviewer.present.tool_arguments.arguments_view` words them."""

    name: str
    call_id: str | None
    heading: str
    body: str | None


@dataclass(frozen=True)
class ToolResultBlock:
    """A tool's result: ``label`` names the call it answers (or says it is not known),
    ``heading`` what the body is (``"result (JSON, re-indented):"``), ``body`` the text."""

    label: str
    heading: str
    body: str


Block = TextBlock | CodeBlock | TableBlock | ImageBlock | ToolCallBlock | ToolResultBlock
"""Any block of a rendered message."""
