"""Two texts side by side with their word diff painted: deleted words in A, inserted words in B.

Texts are untrusted and shown only with :meth:`QPlainTextEdit.setPlainText`, with invisible and
control characters made visible (:func:`ctxviewer.util.visible.reveal`: a replay that only inserted a
zero-width space shows ``⟨ZWSP⟩`` highlighted). The diff is computed by
:func:`ctxviewer.diff.word_diff` on the texts as stored (code points), mapped to the display text,
converted once with :func:`ctxviewer.util.highlight.utf16_offsets` and painted by a
:class:`SpanHighlighter`. Texts longer
than :data:`~ctxviewer.gui.thresholds.DIFF_WORKER_CHARS` are diffed off the GUI thread through :class:`~ctxviewer.gui.worker.Task`
(a newer request cancels the running one); the panes show the texts at once and the colours when
the diff arrives.

Signal: ``sig_diffed(object WordDiff)`` after the colours of a new pair are painted.
"""

from __future__ import annotations

from typing import Any, ClassVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from ctxviewer.diff import WordDiff, word_diff
from ctxviewer.gui import thresholds
from ctxviewer.gui.content_view import SpanHighlighter
from ctxviewer.gui.worker import Task
from ctxviewer.util.highlight import StyleSpan, utf16_offsets
from ctxviewer.util.visible import Revealed, reveal

DELETED = "Diff.Deleted"
INSERTED = "Diff.Inserted"


def _fmt(bg: str, fg: str, strike: bool = False) -> QTextCharFormat:
    f = QTextCharFormat()
    f.setBackground(QColor(bg))
    f.setForeground(QColor(fg))
    f.setFontStrikeOut(strike)
    return f


class DiffHighlighter(SpanHighlighter):
    """Paints deleted (red, struck through) and inserted (green) word spans (UTF-16 offsets)."""

    FORMATS: ClassVar[dict[str, QTextCharFormat]] = {DELETED: _fmt("#fecaca", "#7f1d1d", strike=True), INSERTED: _fmt("#bbf7d0", "#14532d")}

    def set_spans(self, spans: list[StyleSpan]) -> None:
        """Use ``spans`` (token types :data:`DELETED` / :data:`INSERTED`) and repaint."""
        kept = sorted(((s, s + n, self.FORMATS[t]) for s, n, t in spans if n > 0 and t in self.FORMATS),
                      key=lambda x: x[0])
        self._spans = kept
        self._starts = [s for s, _, _ in kept]
        self._max_len = max((e - s for s, e, _ in kept), default=0)
        self.rehighlight()


def _pane(placeholder: str) -> QPlainTextEdit:
    p = QPlainTextEdit()
    p.setReadOnly(True)
    p.setUndoRedoEnabled(False)
    p.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    p.setPlaceholderText(placeholder)
    return p


def _display_spans(shown: Revealed, spans: tuple[tuple[int, int], ...], kind: str) -> list[StyleSpan]:
    """Stored-text spans ``(start, end)`` as display-text :class:`StyleSpan` s (code points)."""
    out = []
    for s, e in spans:
        a, b = shown.to_display(s), shown.to_display(e)
        out.append(StyleSpan(a, max(b - a, 0), kind))
    return out


def _norm(text: str | None) -> str:
    return (text or "").replace("\r\n", "\n").replace("\r", "\n")


class TextDiffPane(QWidget):
    """Text A and text B side by side, changed words highlighted (module docstring)."""

    sig_diffed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_a, self.title_b = QLabel(), QLabel()
        for t in (self.title_a, self.title_b):
            t.setTextFormat(Qt.TextFormat.PlainText)
        self.view_a, self.view_b = _pane("Nothing in A."), _pane("Nothing in B.")
        self._hl_a, self._hl_b = DiffHighlighter(self.view_a.document()), DiffHighlighter(self.view_b.document())
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        for title, view in ((self.title_a, self.view_a), (self.title_b, self.view_b)):
            col = QVBoxLayout()
            col.setSpacing(2)
            col.addWidget(title)
            col.addWidget(view, 1)
            row.addLayout(col, 1)
        lay.addLayout(row, 1)
        lay.addWidget(self.status)
        self.task: Task | None = None
        self.result: WordDiff | None = None
        self._texts = ("", "")
        self._shown = (reveal(""), reveal(""))

    def set_texts(self, a: str | None, b: str | None, title_a: str = "A", title_b: str = "B") -> None:
        """Show ``a`` and ``b`` (``None`` = absent) and paint their word diff (off the GUI thread
        when long)."""
        if self.task is not None and not self.task.done:
            self.task.cancel()
        self.task = None
        ta, tb = _norm(a), _norm(b)
        self._texts = (ta, tb)
        self.title_a.setText(title_a)
        self.title_b.setText(title_b)
        self._hl_a.set_spans([])
        self._hl_b.set_spans([])
        self._shown = (reveal(ta), reveal(tb))
        self.view_a.setPlainText(self._shown[0].text)
        self.view_b.setPlainText(self._shown[1].text)
        self.result = None
        if len(ta) + len(tb) <= thresholds.DIFF_WORKER_CHARS:
            self._paint(word_diff(ta, tb))
            return
        self.status.setText(f"Comparing {len(ta) + len(tb):,} characters…")
        task = Task(lambda _progress, cancelled: (ta, tb, word_diff(ta, tb, cancelled)), self)
        task.sig_finished.connect(self._on_done)
        task.sig_failed.connect(lambda msg: self.status.setText(f"Cannot compare: {msg}"))
        self.task = task
        task.start()

    def _on_done(self, result: Any) -> None:
        ta, tb, wd = result
        if (ta, tb) == self._texts:  # still the pair on screen
            self._paint(wd)

    def _paint(self, wd: WordDiff) -> None:
        ta, tb = self._texts
        self.result = wd
        ra, rb = self._shown
        self._hl_a.set_spans(utf16_offsets(ra.text, _display_spans(ra, wd.spans_a, DELETED)))
        self._hl_b.set_spans(utf16_offsets(rb.text, _display_spans(rb, wd.spans_b, INSERTED)))
        if not wd.changed:
            self.status.setText("Same text." if ta or tb else "")
        else:
            self.status.setText(f"{wd.words_deleted:,} words only in A (red, struck through) · "
                                f"{wd.words_inserted:,} words only in B (green)")
        self.sig_diffed.emit(wd)

    def cancel(self) -> None:
        """Cancel a running background diff, if any."""
        if self.task is not None and not self.task.done:
            self.task.cancel()
            self.task.wait()
