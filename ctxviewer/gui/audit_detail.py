"""The lower half of the audit view: the selected finding with its item, span and note.

:class:`FindingDetail` shows one :class:`~ctxviewer.review.ReviewEntry`: severity, rule, trace and
message; the proposed tool calls it is linked to; its review (verdict, reviewer and time, UTC); the item's content with the flagged span
highlighted and invisible characters made visible (:func:`ctxviewer.util.visible.reveal`; offsets
converted once with :func:`ctxviewer.util.highlight.utf16_offsets`); and the note field. All of it
is plain text (labels in ``PlainText`` format, a plain-text editor): trace text is untrusted.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.assess.trace_header import shown_arguments
from ctxviewer.review import Review, ReviewEntry
from ctxviewer.util.highlight import StyleSpan, utf16_offsets
from ctxviewer.util.visible import one_line, reveal, visible_id

HIGHLIGHT = QColor("#fde68a")
"""Background of the flagged span."""
HELP = ("J/K next/previous · C confirmed injection · F false positive · U needs follow-up · X clear · N note · "
        "A advance after a verdict on/off")


def plain_label(text: str = "") -> QLabel:
    """A word-wrapped, selectable label that shows ``text`` (and later texts) as plain text."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def review_line(review: Review | None) -> str:
    """``"confirmed injection · by alice · 2026-12-03T05:50:00Z"``; ``"unreviewed"`` when never touched."""
    if review is None:
        return "unreviewed"
    return f"{review.verdict.label if review.verdict else 'no verdict (note only)'} · {review.by}"


class FindingDetail(QWidget):
    """Message, linked tool calls, the item with the span highlighted, and the note field."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = plain_label()
        self.calls = plain_label()
        self.calls.setObjectName("auditCalls")
        self.content = QPlainTextEdit()
        self.content.setReadOnly(True)
        self.content.setObjectName("auditContent")
        self.review_label = plain_label()
        self.review_label.setObjectName("auditReview")
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("Note (N to edit, Enter to save, Esc to drop the edit and go back)")
        self.discard_button = QPushButton("Discard unsaved note")
        self.discard_button.setObjectName("auditDiscardNote")
        self.discard_button.setToolTip("This note is not in the review file: forget it")
        self.discard_button.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.message)
        lay.addWidget(self.calls)
        lay.addWidget(self.content, 1)
        lay.addWidget(self.review_label)
        self.note_row = QHBoxLayout()
        self.note_row.addWidget(self.note_edit, 1)
        self.note_row.addWidget(self.discard_button)
        lay.addLayout(self.note_row)
        self.help_row = QHBoxLayout()
        """The keys, and beside them the view's own switches (Advance after verdict)."""
        self.help_row.addWidget(plain_label(HELP), 1)
        lay.addLayout(self.help_row)

    def clear(self) -> None:
        """Show nothing (no finding selected)."""
        self.message.clear(), self.calls.clear(), self.content.clear(), self.note_edit.clear()
        self.review_label.clear()

    def show_entry(self, entry: ReviewEntry, review: Review | None, note: str) -> None:
        """Show ``entry``, its ``review`` (verdict, reviewer, time) and ``note`` in the note field."""
        self.review_label.setText(review_line(review))
        f, k = entry.finding, entry.key
        self.message.setText(f"{f.severity.value} · {k.rule} · {visible_id(k.trace_id)}\n{one_line(f.message)}")
        calls = [one_line(f"tool call {c.id or '(no id)'}: {c.name}({shown_arguments(c.arguments or '')}) → "
                          f"{c.verdict.value if c.verdict else 'verdict not recorded'}") for c in entry.tool_calls]
        self.calls.setText("\n".join(calls) if calls else "no linked tool call")
        text = entry.item.content if entry.item is not None and entry.item.content is not None else ""
        revealed = reveal(text)
        self.content.setPlainText(revealed.text)
        selections = []
        for s in (s for s in f.evidence.spans if s.item_id == k.item_id):
            a, b = revealed.to_display(s.start), revealed.to_display(s.end)
            (u,) = utf16_offsets(revealed.text, [StyleSpan(a, max(b - a, 0), "hit")]) or [StyleSpan(0, 0, "hit")]
            sel = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.content.document())
            cursor.setPosition(u[0])
            cursor.setPosition(u[0] + u[1], QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            fmt.setBackground(HIGHLIGHT)
            sel.cursor, sel.format = cursor, fmt  # type: ignore[misc]
            selections.append(sel)
        self.content.setExtraSelections(selections)
        if selections:
            c = QTextCursor(selections[0].cursor)
            c.clearSelection()
            self.content.setTextCursor(c)
            self.content.centerCursor()
        self.note_edit.setText(note)
