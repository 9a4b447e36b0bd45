"""Markdown text as typed blocks (:mod:`ctxviewer.present.blocks`), from a sanitised subset.

Parsed with markdown-it-py (the CommonMark preset with raw HTML switched off, plus its GFM
``table`` and ``strikethrough`` rules) into tokens, which :func:`markdown_blocks` walks into
headings, paragraphs, list items, code blocks, block quotes, tables and rules with bold, italic,
code, strike-through and link spans. What is never produced, by construction:

* markup of any kind: raw HTML (``<b>``, ``<img src=...>``, ``<script>``) is not recognised by the
  parser and stays literal text;
* a followable link: a link is its text (style ``link``) followed by its URL in angle brackets
  (style ``url``, ``" ⟨https://e.com⟩"``); an autolink whose text is its URL shows it once;
  markdown-it's link check drops ``javascript:`` and other unsafe schemes (the source stays text);
* a fetch: ``![alt](https://...)`` becomes an :class:`~ctxviewer.present.blocks.ImageBlock` with no
  data saying it was not fetched; a ``data:image/...`` URL is decoded locally
  (:func:`ctxviewer.present.message_images.data_url_image`).

Hostile text stays visible: the text is revealed (:func:`ctxviewer.util.visible.reveal`) before
parsing, so NUL and other controls are markers the parser cannot drop, and every span again after
it, so a character written as an entity (``&#x202E;``) is a marker too. Soft and hard line breaks are
``"\\n"`` inside a block's spans (the text's own lines are kept). No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ctxviewer.present.blocks import STYLES, Block, CodeBlock, ImageBlock, TableBlock, TextBlock, TextRun
from ctxviewer.present.message_images import data_url_image
from ctxviewer.util.visible import reveal

_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"])
_STYLE_OF = {"strong_open": "bold", "em_open": "italic", "s_open": "strike", "link_open": "link"}
_CLOSE_OF = {"strong_close": "bold", "em_close": "italic", "s_close": "strike", "link_close": "link"}


def _shown(text: str) -> str:
    return reveal(text).text


def _ordered(styles: Sequence[str]) -> tuple[str, ...]:
    return tuple(s for s in STYLES if s in styles)


def _image(tok: Token, quote: int) -> ImageBlock:
    src = str(tok.attrs.get("src") or "")
    alt = _shown(tok.content or "")
    if src.startswith("data:"):
        return data_url_image(src, "from a data: URL in the text", alt=alt, quote=quote)
    return ImageBlock(f"remote image, not fetched: {_shown(src)}", None, alt, quote)


def _inline(tok: Token, quote: int) -> list[TextRun | ImageBlock]:
    """The spans (and images) of one inline token, styles nested as opened."""
    out: list[TextRun | ImageBlock] = []
    styles: list[str] = []
    hrefs: list[tuple[str, int]] = []  # (href, index in out where its text starts)
    for c in tok.children or ():
        t = c.type
        if t == "text":
            if c.content:
                out.append(TextRun(_shown(c.content), _ordered(styles)))
        elif t == "code_inline":
            out.append(TextRun(_shown(c.content), _ordered([*styles, "code"])))
        elif t in ("softbreak", "hardbreak"):
            out.append(TextRun("\n", ()))
        elif t in _STYLE_OF:
            styles.append(_STYLE_OF[t])
            if t == "link_open":
                hrefs.append((str(c.attrs.get("href") or ""), len(out)))
        elif t in _CLOSE_OF:
            if _CLOSE_OF[t] in styles:
                styles.reverse()
                styles.remove(_CLOSE_OF[t])
                styles.reverse()
            if t == "link_close" and hrefs:
                href, start = hrefs.pop()
                text = "".join(s.text for s in out[start:] if isinstance(s, TextRun))
                if text != _shown(href):
                    out.append(TextRun(f" ⟨{_shown(href)}⟩", ("url",)))
        elif t == "image":
            out.append(_image(c, quote))
        else:  # anything else the subset does not style: its source text
            out.append(TextRun(_shown(c.content), _ordered(styles)))
    return out


def _text_blocks(kind: str, parts: list[TextRun | ImageBlock], quote: int, level: int = 0,
                 marker: str = "") -> list[Block]:
    """A text block of ``parts``, split around its images (an image is a block of its own)."""
    blocks: list[Block] = []
    spans: list[TextRun] = []

    def flush() -> None:
        if spans and any(s.text.strip() for s in spans):
            blocks.append(TextBlock(kind, tuple(spans), level, marker if not blocks else "", quote))
        spans.clear()

    for p in parts:
        if isinstance(p, ImageBlock):
            flush()
            blocks.append(p)
        else:
            spans.append(p)
    flush()
    if not blocks and marker:  # an empty list item keeps its marker
        blocks.append(TextBlock(kind, (), level, marker, quote))
    return blocks


def _cells(tokens: list[Token], i: int, quote: int) -> tuple[tuple[tuple[TextRun, ...], ...], int]:
    """The cells of the row opening at ``tokens[i]`` (``tr_open``) and the index after it."""
    cells: list[tuple[TextRun, ...]] = []
    i += 1
    while tokens[i].type != "tr_close":
        if tokens[i].type == "inline":
            cells.append(tuple(s if isinstance(s, TextRun) else TextRun(f"[{s.label}]") for s in _inline(tokens[i], quote)))
        i += 1
    return tuple(cells), i + 1


def markdown_blocks(text: str) -> list[Block]:
    """The blocks of Markdown ``text`` (see the module docstring). Never raises on any text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    tokens = _PARSER.parse(reveal(text).text)
    blocks: list[Block] = []
    quote = 0
    lists: list[list[int]] = []  # per open list: [next number] for ordered, [] for bullets
    pending: tuple[str, int, str] | None = None  # the kind, level, marker of the next inline
    items_open = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        t = tok.type
        if t == "blockquote_open":
            quote += 1
        elif t == "blockquote_close":
            quote -= 1
        elif t == "bullet_list_open":
            lists.append([])
        elif t == "ordered_list_open":
            lists.append([int(tok.attrs.get("start") or 1)])
        elif t in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t == "list_item_open":
            counter = lists[-1] if lists else []
            marker = "•"
            if counter:
                marker = f"{counter[0]}{tok.markup or '.'}"
                counter[0] += 1
            pending = ("item", len(lists), marker)
            items_open += 1
        elif t == "list_item_close":
            items_open -= 1
            if pending is not None:  # an item with no text
                blocks.append(TextBlock("item", (), pending[1], pending[2], quote))
            pending = None
        elif t == "heading_open":
            pending = ("heading", int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1, "")
        elif t == "paragraph_open" and pending is None:  # a later paragraph of a list item: at its depth
            pending = ("item", len(lists), "") if items_open else ("paragraph", 0, "")
        elif t == "inline":
            kind, level, marker = pending or ("paragraph", 0, "")
            blocks += _text_blocks(kind, _inline(tok, quote), quote, level, marker)
            pending = None
        elif t in ("fence", "code_block"):
            lang = (tok.info or "").split()[0] if tok.info and tok.info.strip() else None
            blocks.append(CodeBlock(_shown(tok.content.rstrip("\n")), _shown(lang) if lang else None, quote))
        elif t == "hr":
            blocks.append(TextBlock("rule", (), 0, "", quote))
        elif t == "table_open":
            header: tuple[tuple[TextRun, ...], ...] = ()
            rows: list[tuple[tuple[TextRun, ...], ...]] = []
            in_head = False
            i += 1
            while tokens[i].type != "table_close":
                if tokens[i].type == "thead_open":
                    in_head = True
                elif tokens[i].type == "thead_close":
                    in_head = False
                if tokens[i].type == "tr_open":
                    cells, i = _cells(tokens, i, quote)
                    if in_head:
                        header = cells
                    else:
                        rows.append(cells)
                    continue
                i += 1
            blocks.append(TableBlock(header, tuple(rows), quote))
        elif t in ("html_block", "html_inline"):  # not produced with html off; literal if ever
            blocks.append(TextBlock("paragraph", (TextRun(_shown(tok.content)),), 0, "", quote))
        i += 1
    return blocks
