"""The content view: an item's content as plain text, with pygments colours painted over it.

Item content is untrusted (tickets, documents, tool results can hold markup or instructions), so it
is only ever shown with :meth:`QPlainTextEdit.setPlainText` -- never as HTML or rich text -- and the
view is read-only. Colours come from :func:`ctxviewer.util.highlight.highlight_spans` (code-point
offsets), converted once with :func:`ctxviewer.util.highlight.utf16_offsets` to Qt's UTF-16 offsets and
painted block by block by a thin :class:`QSyntaxHighlighter`.

Line breaks are normalised (``\\r\\n`` and ``\\r`` to ``\\n``) before both display and highlighting so
that document offsets and span offsets agree. Invisible and control characters (bidi controls,
zero-width and tag characters, NUL, ESC) are shown as markers (:func:`ctxviewer.util.visible.reveal`);
highlight and finding spans computed on the stored text are mapped onto the markers.

Start-up: until pygments and its lexers are ready (:func:`ctxviewer.util.highlight.warm_up`,
0.1 to 0.2 s), a text that needs a lexer is shown plain first; once the view has been painted the
warm-up runs in a background thread (:mod:`ctxviewer.gui.background_import`) and the text is
coloured when it has finished. :meth:`ContentView.spans` applies a pending colouring at once.
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QSyntaxHighlighter, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QTextEdit, QWidget

from ctxviewer.gui.background_import import run_in_background
from ctxviewer.model.trace import NOT_RECORDED
from ctxviewer.util.highlight import StyleSpan, guess_language, highlight_spans, utf16_offsets, warm_up, warmed
from ctxviewer.util.large_text import HIGHLIGHT_LIMIT, preview
from ctxviewer.util.visible import Revealed, reveal

LEXERS = "pygments lexers"
"""The key of the background warm-up of pygments (:func:`ctxviewer.util.highlight.warm_up`)."""

_STYLES: tuple[tuple[str, str, bool, bool], ...] = (
    # (token type prefix, colour, bold, italic); first matching prefix wins.
    ("Name.Tag", "#1d4ed8", False, False),
    ("Keyword", "#9333ea", True, False),
    ("Literal.String.Backtick", "#b45309", False, False),
    ("Literal.String", "#047857", False, False),
    ("Literal.Number", "#c2410c", False, False),
    ("Comment", "#6b7280", False, True),
    ("Generic.Heading", "#1e3a8a", True, False),
    ("Generic.Subheading", "#1e40af", True, False),
    ("Generic.Strong", "#111827", True, False),
    ("Generic.Emph", "#111827", False, True),
    ("Name.Function", "#0369a1", False, False),
    ("Name.Class", "#0369a1", True, False),
    ("Name.Builtin", "#7c3aed", False, False),
    ("Operator", "#9333ea", False, False),
    ("Punctuation", "#4b5563", False, False),
    ("Error", "#b91c1c", False, False),
)


def _format_for(token_type: str) -> QTextCharFormat | None:
    for prefix, color, bold, italic in _STYLES:
        if token_type == prefix or token_type.startswith(prefix + "."):
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(color))
            if bold:
                fmt.setFontWeight(QFont.Weight.Bold)
            if italic:
                fmt.setFontItalic(True)
            return fmt
    return None


class SpanHighlighter(QSyntaxHighlighter):
    """Paints precomputed UTF-16 spans (document offsets) onto each block. No parsing here."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._starts: list[int] = []
        self._spans: list[tuple[int, int, QTextCharFormat]] = []
        self._max_len = 0
        self._formats: dict[str, QTextCharFormat | None] = {}

    def set_spans(self, spans: list[StyleSpan]) -> None:
        """Use ``spans`` (UTF-16 document offsets, sorted by start) and repaint."""
        kept: list[tuple[int, int, QTextCharFormat]] = []
        for s, n, t in spans:
            if t not in self._formats:
                self._formats[t] = _format_for(t)
            fmt = self._formats[t]
            if fmt is not None and n > 0:
                kept.append((s, s + n, fmt))
        kept.sort(key=lambda x: x[0])
        self._spans = kept
        self._starts = [s for s, _, _ in kept]
        self._max_len = max((e - s for s, e, _ in kept), default=0)
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        if not self._spans:
            return
        block = self.currentBlock()
        pos = block.position()
        end = pos + block.length() - 1  # UTF-16 units; length() counts the separator
        i = bisect_right(self._starts, pos - self._max_len)
        while i < len(self._spans) and self._spans[i][0] < end:
            s, e, fmt = self._spans[i]
            i += 1
            if e <= pos:
                continue
            a, b = max(s, pos), min(e, end)
            if b > a:
                self.setFormat(a - pos, b - a, fmt)


class ContentView(QPlainTextEdit):
    """Read-only plain-text view of one item's content with syntax colours. ``sig_marked(int)``:
    :meth:`mark_spans` marked that many spans (0: marks cleared)."""

    sig_marked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setPlaceholderText("Select an item to see its content.")
        self._highlighter = SpanHighlighter(self.document())
        self._spans: list[StyleSpan] = []
        self._revealed: Revealed | None = None
        self._full: tuple[str | None, str | None] = (None, None)
        self._pending: tuple[str, str, Revealed] | None = None
        """A colouring waiting for the first paint: (text, language, revealed) -- see the module docstring."""
        self._painted = False
        self.viewport().installEventFilter(self)
        self._banner = QWidget(self)  # the large-item notice and "Show all", above the text
        self._notice = QLabel(self._banner)
        self._notice.setTextFormat(Qt.TextFormat.PlainText)
        self._notice.setWordWrap(True)
        self.show_all_button = QPushButton("Show all", self._banner)
        self.show_all_button.clicked.connect(self.show_all)
        row = QHBoxLayout(self._banner)
        row.setContentsMargins(6, 2, 6, 2)
        row.addWidget(self._notice, 1)
        row.addWidget(self.show_all_button)
        self._banner.hide()

    def set_content(self, text: str | None, language: str | None = None, *, whole: bool = False) -> None:
        """Show ``text`` as plain text (``None``: "content not recorded"; ``language`` forces a lexer).

        Text over :data:`ctxviewer.util.large_text.SHOW_LIMIT` shows its first lines under a notice with
        a "Show all" button (``whole=True`` shows everything); highlighting covers at most
        :data:`ctxviewer.util.large_text.HIGHLIGHT_LIMIT` code points."""
        self._full = (text, language)
        self._pending = None
        self._set_notice(None)
        if text is None:
            self._spans = []
            self._highlighter.set_spans([])
            self.setPlainText("")
            self.setPlaceholderText(f"Content {NOT_RECORDED}.")
            return
        if not whole:
            first = preview(text)
            self._set_notice(first.notice)
            text = first.text
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        shown = reveal(text)  # invisible and control characters as visible markers; stored text unchanged
        self._revealed = shown
        head = text[:HIGHLIGHT_LIMIT]
        lang = language or (guess_language(head) if head else None)
        if lang is not None and not warmed(lang):  # pygments not ready: colour once it is
            self._spans = []
            self._highlighter.set_spans([])
            self.setPlainText(shown.text)
            self._pending = (head, lang, shown)
            if self._painted:
                self._colour_later()
            return
        self._spans = self._colour(head, lang, shown) if lang is not None else []
        self._highlighter.set_spans([])  # no stale spans while the new text is laid out
        self.setPlainText(shown.text)
        self._highlighter.set_spans(self._spans)

    @staticmethod
    def _colour(head: str, language: str | None, shown: Revealed) -> list[StyleSpan]:
        """Highlight spans of ``head`` in UTF-16 offsets of the shown (revealed) text."""
        spans = highlight_spans(head, language)
        if shown.changed:
            spans = [StyleSpan(shown.to_display(s), shown.to_display(s + n) - shown.to_display(s), t) for s, n, t in spans]
        return utf16_offsets(shown.text, spans)

    def _colour_later(self) -> None:
        """Warm pygments up in a background thread, then apply the pending colouring."""
        run_in_background(LEXERS, warm_up, self, self._apply_pending)

    def _apply_pending(self) -> None:
        """Colour the text shown now if its colouring waited for the first paint."""
        if self._pending is None:
            return
        head, lang, shown = self._pending
        self._pending = None
        self._spans = self._colour(head, lang, shown)
        self._highlighter.set_spans(self._spans)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Once the text area has been painted, a waiting colouring runs on the next loop turn."""
        if watched is self.viewport() and event.type() == QEvent.Type.Paint and not self._painted:
            self._painted = True
            if self._pending is not None:
                QTimer.singleShot(0, self, self._colour_later)  # on the next loop turn: the paint first
        return super().eventFilter(watched, event)

    def show_all(self) -> None:
        """Show the whole of a text that was shown as a preview ("Show all")."""
        text, language = self._full
        self.set_content(text, language, whole=True)

    @property
    def partial(self) -> bool:
        """True while a large text is shown as its first lines (the notice and "Show all" visible)."""
        return not self._banner.isHidden()

    def notice(self) -> str:
        """The large-item notice shown above the text ("" when the whole text is shown)."""
        return self._notice.text() if self.partial else ""

    def _set_notice(self, notice: str | None) -> None:
        self._banner.setVisible(notice is not None)
        self._notice.setText(notice or "")
        self._notice.setToolTip(notice or "")
        self._place_banner()

    def _banner_height(self) -> int:
        if self._banner.isHidden():
            return 0
        h = self._banner.heightForWidth(self.width())  # the notice wraps in a narrow pane
        return h if h > 0 else self._banner.sizeHint().height()

    def _place_banner(self) -> None:
        h = self._banner_height()
        self.setViewportMargins(0, h, 0, 0)
        self._banner.setGeometry(0, 0, self.width(), h)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._place_banner()

    def clear_content(self) -> None:
        """Show nothing (and the default placeholder)."""
        self._full = (None, None)
        self._pending = None
        self._set_notice(None)
        self._spans = []
        self._highlighter.set_spans([])
        self.setPlainText("")
        self.setPlaceholderText("Select an item to see its content.")

    def spans(self) -> list[StyleSpan]:
        """The spans painted, in UTF-16 document offsets (a colouring still waiting for the first
        paint is applied first)."""
        self._apply_pending()
        return list(self._spans)

    # ---------------------------------------------------------------- finding marks

    MARK_COLOR = QColor("#fde68a")
    """Background of a marked span (a finding's evidence), amber."""

    def mark_spans(self, text: str | None, spans: list[tuple[int, int]]) -> list[StyleSpan]:
        """Highlight ``spans`` -- ``[start, end)`` in code points of the item's *stored* ``text``
        (a finding's :class:`~ctxviewer.model.findings.TextSpan`) -- and scroll to the first. Converted
        once: stored -> shown text (``\\r\\n`` became ``\\n``), then code points -> UTF-16 units
        with :func:`ctxviewer.util.highlight.utf16_offsets`. Returns the UTF-16 spans marked."""
        if not text or not spans:
            self.setExtraSelections([])
            self.sig_marked.emit(0)
            return []
        if self.partial and max(b for _, b in spans) > len(preview(text).text):
            self.show_all()  # the evidence lies beyond the preview
        normal = text.replace("\r\n", "\n").replace("\r", "\n")
        revealed = reveal(normal)

        def to_shown(i: int) -> int:
            return revealed.to_display(i - text.count("\r\n", 0, i))

        units = utf16_offsets(revealed.text, [StyleSpan(to_shown(a), max(0, to_shown(b) - to_shown(a)), "mark")
                                              for a, b in spans])
        selections = []
        for s, n, _ in units:
            sel = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(s)
            cursor.setPosition(s + n, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor  # type: ignore[attr-defined]
            sel.format.setBackground(self.MARK_COLOR)  # type: ignore[attr-defined]
            selections.append(sel)
        self.setExtraSelections(selections)
        if units:
            cursor = QTextCursor(self.document())
            cursor.setPosition(units[0].start)
            self.setTextCursor(cursor)
            self.centerCursor()
            QTimer.singleShot(0, self.centerCursor)  # again once the new text is laid out
        self.sig_marked.emit(len(units))
        return units
