"""Typed message blocks written into a QTextDocument with plain-text inserts and formats only.

:func:`write_blocks` draws :mod:`ctxviewer.present.blocks` into an :class:`InertDocument` through
:class:`QTextCursor` -- ``insertText`` with :class:`QTextCharFormat` / :class:`QTextBlockFormat`,
``insertTable`` for tables, ``insertImage`` for thumbnails -- never ``setHtml`` / ``setMarkdown`` /
``insertHtml``, so no text of a trace is read as markup and the document holds no anchor.

Images: each thumbnail is decoded here from the block's bytes (:func:`thumbnail`: a
:class:`QImageReader` with an allocation limit, the header's size checked against
:data:`ctxviewer.present.message_images.MAX_PIXELS`, scaled down to :data:`THUMB_SIDE` px while
decoding) and added to the document as a resource under a ``ctxviewer-image:N`` name before it is
referenced, so the document never has to load one. :class:`InertDocument` refuses every other
resource (:meth:`InertDocument.loadResource` returns nothing and records the name): nothing is
fetched, local or remote. An image that does not decode is its labelled placeholder.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QImage,
    QImageReader,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrameFormat,
    QTextImageFormat,
    QTextLength,
    QTextTableFormat,
)

from ctxviewer.present.blocks import (
    Block,
    CodeBlock,
    ImageBlock,
    TableBlock,
    TextBlock,
    TextRun,
    ToolCallBlock,
    ToolResultBlock,
)
from ctxviewer.present.message_images import MAX_PIXELS

THUMB_SIDE = 160
"""Longest side of a thumbnail, in px (a smaller image is shown at its own size)."""
ALLOCATION_MB = 256
"""QImageReader's allocation limit while decoding a thumbnail, in MiB."""
RASTER_FORMATS = frozenset({"png", "jpeg", "jpg", "gif", "webp", "bmp"})
"""Image formats decoded (by their content, whatever the recorded mime type says); others, SVG
among them (a document format that can refer to other files), are a labelled placeholder."""
IMAGE_SCHEME = "ctxviewer-image"
"""The URL scheme of the document's own image resources (added before use; never loaded)."""

LINK_COLOR, URL_COLOR, NOTE_COLOR = QColor("#1d4ed8"), QColor("#6b7280"), QColor("#6b7280")
CODE_BG, QUOTE_COLOR = QColor("#f3f4f6"), QColor("#4b5563")
CALL_BG, RESULT_BG, IMAGE_BG = QColor("#e0e7ff"), QColor("#dcfce7"), QColor("#fef3c7")
GREY = QColor("#6b7280")
"""Text of an omitted message (the item table's grey)."""
_HEADING_SCALE = {1: 1.5, 2: 1.3, 3: 1.15}


class InertDocument(QTextDocument):
    """A document that loads no resource: :meth:`loadResource` records the name asked for in
    :attr:`refused` and returns nothing (images it shows were added with ``addResource`` first)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.refused: list[str] = []
        """Every resource name the document asked to load (none should ever be asked for)."""
        self.images = 0
        """Thumbnails added (their names are ``ctxviewer-image:1`` ...)."""

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        """Never fetch: record ``name`` and return nothing."""
        self.refused.append(name.toString() if isinstance(name, QUrl) else str(name))
        return None


def thumbnail(data: bytes) -> tuple[QImage | None, str]:
    """``(image, "")`` decoded from ``data`` at most :data:`THUMB_SIDE` px on its longest side, or
    ``(None, why)`` when it cannot be decoded or its header says more than ``MAX_PIXELS``."""
    QImageReader.setAllocationLimit(ALLOCATION_MB)
    buf = QBuffer()
    buf.setData(QByteArray(data))
    buf.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buf)
    reader.setDecideFormatFromContent(True)
    kind = bytes(reader.format().data()).decode("ascii", "replace").lower()
    if kind not in RASTER_FORMATS:
        return None, "the data is not an image Qt can read" if not kind else f"{kind} images are not decoded"
    size = reader.size()
    if not size.isValid():
        return None, "the data is not an image Qt can read"
    if size.width() * size.height() > MAX_PIXELS:
        return None, f"{size.width()}×{size.height()} px is over {MAX_PIXELS:,} pixels"
    side = max(size.width(), size.height())
    if side > THUMB_SIDE:
        reader.setScaledSize(QSize(max(1, size.width() * THUMB_SIDE // side), max(1, size.height() * THUMB_SIDE // side)))
    image = reader.read()
    if image.isNull():
        return None, f"it could not be decoded ({reader.errorString()})"
    return image, ""


class _Writer:
    """Writes blocks at a cursor; one per document build."""

    def __init__(self, doc: InertDocument, font: QFont) -> None:
        self.doc = doc
        self.cursor = QTextCursor(doc)
        self.font = font
        self.fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.first = True
        self.grey = False
        """Write every run greyed and italic (an omitted message)."""

    def block(self, fmt: QTextBlockFormat | None = None) -> None:
        """Start a new paragraph (the first reuses the document's empty one)."""
        fmt = fmt or QTextBlockFormat()
        if self.first:
            self.cursor.setBlockFormat(fmt)
            self.first = False
        else:
            self.cursor.insertBlock(fmt, QTextCharFormat())

    def char(self, styles: tuple[str, ...] = (), *, scale: float = 1.0, color: QColor | None = None,
             bold: bool = False, italic: bool = False, fixed: bool = False) -> QTextCharFormat:
        f = QTextCharFormat()
        if scale != 1.0:
            f.setFontPointSize(max(1.0, self.font.pointSizeF()) * scale)
        if bold or "bold" in styles:
            f.setFontWeight(QFont.Weight.Bold)
        if italic or "italic" in styles:
            f.setFontItalic(True)
        if "strike" in styles:
            f.setFontStrikeOut(True)
        if fixed or "code" in styles:
            f.setFontFamilies(self.fixed.families())
            if "code" in styles:
                f.setBackground(CODE_BG)
        if "link" in styles:
            f.setForeground(LINK_COLOR)
        if "url" in styles:
            f.setForeground(URL_COLOR)
        if color is not None:
            f.setForeground(color)
        if self.grey:
            f.setForeground(GREY)
            f.setFontItalic(True)
        return f

    def text(self, text: str, fmt: QTextCharFormat) -> None:
        self.cursor.insertText(text.replace("\n", "\u2028"), fmt)  # a line break inside the paragraph

    def spans(self, spans: tuple[TextRun, ...], **kw: Any) -> None:
        for s in spans:
            self.text(s.text, self.char(s.styles, **kw))

    def para_format(self, quote: int = 0, indent: int = 0, background: QColor | None = None,
                    top: float = 2.0) -> QTextBlockFormat:
        f = QTextBlockFormat()
        f.setTopMargin(top)
        f.setBottomMargin(2.0)
        f.setLeftMargin(16.0 * quote + 18.0 * indent)
        if background is not None:
            f.setBackground(background)
        return f

    def lines(self, text: str, fmt: QTextBlockFormat, char: QTextCharFormat) -> None:
        """Verbatim text, one paragraph per line (a code block, arguments, a result)."""
        for line in text.split("\n"):
            self.block(fmt)
            self.cursor.insertText(line, char)

    def write(self, b: Block) -> None:
        if isinstance(b, TextBlock):
            self.text_block(b)
        elif isinstance(b, CodeBlock):
            self.lines(b.text, self.para_format(b.quote, background=CODE_BG, top=0.0), self.char(fixed=True))
        elif isinstance(b, TableBlock):
            self.table(b)
        elif isinstance(b, ImageBlock):
            self.image(b)
        elif isinstance(b, ToolCallBlock):
            self.block(self.para_format(background=CALL_BG, top=6.0))
            self.text("Tool call  ", self.char(bold=True))
            self.text(b.name, self.char(fixed=True, bold=True))
            self.text(f"   id {b.call_id}" if b.call_id else "   id not recorded", self.char(color=NOTE_COLOR))
            self.block(self.para_format(background=CALL_BG, top=0.0))
            self.text(b.heading, self.char(italic=True, color=NOTE_COLOR))
            if b.body is not None:
                self.lines(b.body, self.para_format(background=CALL_BG, indent=1, top=0.0), self.char(fixed=True))
        elif isinstance(b, ToolResultBlock):
            self.block(self.para_format(background=RESULT_BG, top=6.0))
            self.text("Tool result  ", self.char(bold=True))
            self.text(b.label.removeprefix("tool result").strip(), self.char(color=NOTE_COLOR))
            self.block(self.para_format(background=RESULT_BG, top=0.0))
            self.text(b.heading, self.char(italic=True, color=NOTE_COLOR))
            self.lines(b.body, self.para_format(background=RESULT_BG, indent=1, top=0.0), self.char(fixed=True))

    def text_block(self, b: TextBlock) -> None:
        if b.kind == "rule":
            self.block(self.para_format(b.quote))
            self.text("\u2500" * 24, self.char(color=NOTE_COLOR))
            return
        quote_color = QUOTE_COLOR if b.quote else None
        if b.kind == "heading":
            self.block(self.para_format(b.quote, top=8.0))
            self.spans(b.spans, scale=_HEADING_SCALE.get(b.level, 1.0), bold=True, color=quote_color)
            return
        indent = max(0, b.level - 1) if b.kind == "item" else 0
        self.block(self.para_format(b.quote, indent + (1 if b.kind == "item" else 0)))
        if b.kind == "item":
            f = self.cursor.blockFormat()
            f.setTextIndent(-14.0)  # the marker hangs in the margin
            self.cursor.setBlockFormat(f)
            if b.marker:
                self.text(f"{b.marker} ", self.char(color=NOTE_COLOR))
        if quote_color is not None:
            self.text("\u2502 ", self.char(color=NOTE_COLOR))
        self.spans(b.spans, color=quote_color)

    def table(self, b: TableBlock) -> None:
        rows = ([b.header] if b.header else []) + list(b.rows)
        cols = max((len(r) for r in rows), default=0)
        if not rows or not cols:
            return
        self.block(self.para_format(b.quote))
        fmt = QTextTableFormat()
        fmt.setCellPadding(3)
        fmt.setCellSpacing(0)
        fmt.setBorder(1.0)
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setBorderBrush(QColor("#9ca3af"))
        fmt.setBorderCollapse(True)
        fmt.setWidth(QTextLength(QTextLength.Type.VariableLength, 0))
        fmt.setHeaderRowCount(1 if b.header else 0)
        fmt.setLeftMargin(16.0 * b.quote)
        table = self.cursor.insertTable(len(rows), cols, fmt)
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                cur = table.cellAt(r, c).firstCursorPosition()
                for s in cell:
                    cur.insertText(s.text.replace("\n", "\u2028"), self.char(s.styles, bold=bool(b.header) and r == 0))
        self.cursor.movePosition(QTextCursor.MoveOperation.End)
        self.first = False

    def image(self, b: ImageBlock) -> None:
        self.block(self.para_format(b.quote, top=4.0))
        why = "no image data"
        image = None
        if b.data is not None:
            image, why = thumbnail(b.data)
        alt = f" \u201c{b.alt}\u201d" if b.alt else ""
        if image is not None:
            self.doc.images += 1
            name = f"{IMAGE_SCHEME}:{self.doc.images}"
            self.doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
            fmt = QTextImageFormat()
            fmt.setName(name)
            fmt.setWidth(image.width())
            fmt.setHeight(image.height())
            self.cursor.insertImage(fmt)
            self.block(self.para_format(b.quote, top=0.0))
            self.text(f"[image{alt}: {b.label}]", self.char(italic=True, color=NOTE_COLOR))
            return
        self.cursor.setBlockFormat(self.para_format(b.quote, background=IMAGE_BG, top=4.0))
        shown = b.label if b.data is None else f"{b.label}; not shown: {why}"
        self.text(f"[image{alt} not shown: {shown}]", self.char(italic=True))


Message = tuple[tuple[str, QTextCharFormat] | None, tuple[Block, ...], bool]
"""``(heading, blocks, greyed)``: a heading line of plain text in its format (``None``: none),
the message's blocks, and whether its text is greyed and italic (an omitted message)."""


def write_messages(doc: InertDocument, messages: list[Message], font: QFont) -> list[int]:
    """Append each message of ``messages`` to ``doc`` in one edit block (one layout pass); returns
    the document position where each starts. Plain-text inserts only (module docstring)."""
    w = _Writer(doc, font)
    w.cursor.movePosition(QTextCursor.MoveOperation.End)
    w.first = doc.isEmpty()
    starts: list[int] = []
    w.cursor.beginEditBlock()
    for heading, blocks, grey in messages:
        w.grey = False
        if heading is not None:
            w.block(w.para_format(top=10.0))
        starts.append(w.cursor.position() if heading is not None or w.first else w.cursor.position() + 1)
        if heading is not None:
            w.cursor.insertText(heading[0], heading[1])
        w.grey = grey
        for b in blocks:
            w.write(b)
    w.cursor.endEditBlock()
    return starts


def write_blocks(doc: InertDocument, blocks: tuple[Block, ...] | list[Block], font: QFont) -> int:
    """Append one message's ``blocks`` to ``doc`` (:func:`write_messages`); returns where it starts."""
    return write_messages(doc, [(None, tuple(blocks), False)], font)[0]
