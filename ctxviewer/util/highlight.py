"""Syntax-highlight spans for item content, computed with pygments (no Qt).

The content view shows untrusted text as plain text and paints colours over ranges; this module
computes those ranges. A span is ``(start, length, token_type)``: ``start`` and ``length`` are in
Python code points of the text as given, ``token_type`` is a pygments token type name without the
``Token.`` prefix (``"Name.Tag"``, ``"Literal.String.Double"``, ``"Generic.Heading"``).

Qt counts positions in UTF-16 code units, so a character outside the Basic Multilingual Plane
(most emoji) is 1 code point but 2 Qt units. :func:`utf16_offsets` is the one place that converts;
scanner hits and diff hunks use the same helper.

Which lexer (:func:`guess_language`): text that parses as JSON (an object or array) is JSON; text
that starts with a code fence or has a Markdown heading is Markdown (fenced code blocks inside are
highlighted by their language); anything else is plain and gets no spans. Whitespace and plain
text tokens give no spans.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # pygments is imported when a text needs a lexer (plain prose never does)
    from pygments.lexer import Lexer
    from pygments.token import _TokenType

MAX_HIGHLIGHT_CHARS = 500_000
"""Longer texts are shown without spans (highlighting would stall the view), in code points."""

_HEADING = re.compile(r"^#{1,6}\s+\S", re.MULTILINE)


class StyleSpan(NamedTuple):
    """A highlighted range: ``start`` and ``length`` in code points (or UTF-16 units once converted)."""

    start: int
    length: int
    token_type: str


def guess_language(text: str) -> str | None:
    """``"json"``, ``"markdown"`` or ``None`` (plain) for ``text``, by the rules in the module docstring."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            json.loads(text)
        except ValueError:
            pass
        else:
            return "json"
    if stripped.startswith("```") or _HEADING.search(text):
        return "markdown"
    return None


def _lexer(language: str) -> Lexer | None:
    from pygments.lexers import JsonLexer, MarkdownLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    opts = {"stripnl": False, "stripall": False, "ensurenl": False}
    lexer: Lexer
    if language == "json":
        lexer = JsonLexer(**opts)
        return lexer
    if language == "markdown":
        lexer = MarkdownLexer(**opts)
        return lexer
    try:
        return get_lexer_by_name(language, **opts)
    except ClassNotFound:
        return None


_ready: set[str] = set()
"""Languages whose lexer has highlighted a text in this process (pygments imported, rules built)."""


def warm_up() -> None:
    """Import pygments and build the JSON and Markdown lexers' rules now (0.1 to 0.2 s, once per
    process), so the first :func:`highlight_spans` of a session is as fast as the next ones. The
    window runs this in a background thread."""
    highlight_spans("# a\n\n`b` **c**\n\n```json\n{}\n```\n", "markdown")
    highlight_spans('{"a": [1, "b"]}', "json")


def warmed(language: str) -> bool:
    """True once a text in ``language`` (``"json"``, ``"markdown"``, a pygments alias) has been
    highlighted in this process: the next one pays no import and no rule compilation."""
    return language in _ready


def _type_name(ttype: _TokenType) -> str:
    name = str(ttype)
    return name[len("Token.") :] if name.startswith("Token.") else name


def highlight_spans(text: str, language: str | None = None) -> list[StyleSpan]:
    """Spans for ``text`` in code points, sorted by ``start`` and non-overlapping.

    ``language`` forces a lexer (``"json"``, ``"markdown"`` or any pygments alias such as
    ``"python"``); ``None`` guesses with :func:`guess_language`. Plain text, an unknown language or a
    text longer than :data:`MAX_HIGHLIGHT_CHARS` gives ``[]``. Never raises on odd input.
    """
    if not text or len(text) > MAX_HIGHLIGHT_CHARS:
        return []
    lang = language or guess_language(text)
    if lang is None:
        return []
    lexer = _lexer(lang)
    if lexer is None:
        return []
    from pygments.token import Text, Token, is_token_subtype

    spans: list[StyleSpan] = []
    try:
        for start, ttype, value in lexer.get_tokens_unprocessed(text):
            if not value or is_token_subtype(ttype, Text) or ttype is Token:
                continue
            spans.append(StyleSpan(start, len(value), _type_name(ttype)))
    except Exception:  # a lexer bug must never break the content view
        return []
    _ready.add(lang)
    return spans


def utf16_offsets(text: str, spans: list[StyleSpan] | list[tuple[int, int, str]]) -> list[StyleSpan]:
    """Convert ``spans`` over ``text`` from code-point offsets to UTF-16 code-unit offsets (Qt's).

    Each code point above U+FFFF takes two UTF-16 units, so ``"😀ab"`` with a span ``(1, 2, t)``
    becomes ``(2, 2, t)``. Spans reaching past the end of ``text`` are clipped. Returns new spans in
    the same order.
    """
    if text.isascii() or all(ord(c) <= 0xFFFF for c in text):
        n = len(text)
        return [StyleSpan(s, max(0, min(s + ln, n) - s), t) for s, ln, t in spans if s < n]
    # units[i] = UTF-16 offset of code point i; units[len(text)] = total length.
    units = [0, *accumulate(2 if ord(c) > 0xFFFF else 1 for c in text)]
    n = len(text)
    out: list[StyleSpan] = []
    for s, ln, t in spans:
        if s >= n:
            continue
        e = min(s + ln, n)
        out.append(StyleSpan(units[s], units[e] - units[s], t))
    return out
