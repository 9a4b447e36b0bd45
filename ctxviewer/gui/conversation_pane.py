"""The Conversation tab: the request as the model received it.

Each :class:`~ctxviewer.present.conversation_view.Turn` is a heading line and its text, inserted as plain
text with character formats (never HTML): sent messages in the normal colour, omitted candidates
in place, grey and italic, their heading naming the reason; the response last. Double-click (or
Enter) on a turn selects its item in the item table (``sig_item_activated``); :meth:`show_item`
scrolls to an item's turn, so the two views follow each other.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QFont, QShowEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from ctxviewer.gui.turn_navigation import TurnNavigation
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.conversation_view import RESPONSE_ID, Turn, conversation

OMITTED_COLOR = QColor("#6b7280")
"""Text colour of an omitted turn (the item table's grey)."""
HEADING_COLOR = QColor("#1e3a8a")
"""Colour of a sent turn's heading."""


class ConversationView(TurnNavigation, QPlainTextEdit):
    """Read-only conversation of one trace (see the module docstring)."""

    sig_item_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationView")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setPlaceholderText("No trace selected.")
        self.turns: tuple[Turn, ...] = ()
        self._starts: list[int] = []
        self._dirty = False
        self._pending_item: str | None = None

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the conversation of ``trace`` (``None`` clears). The document is built when the
        view is visible (at once, or when its tab is brought forward)."""
        self.turns = conversation(trace) if trace is not None else ()
        self._dirty = True
        self._pending_item = None
        if self.isVisible():
            self._build()
        else:
            self.clear()
            self._starts = []

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self._build()
            if self._pending_item is not None:
                self.show_item(self._pending_item)

    def _build(self) -> None:
        self._dirty = False
        self.clear()
        self._starts = []
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()  # one layout pass for the whole conversation
        for n, t in enumerate(self.turns):
            if n:
                cursor.insertBlock()
                cursor.insertText("", QTextCharFormat())
                cursor.insertBlock()
            self._starts.append(cursor.position())
            head = QTextCharFormat()
            head.setFontWeight(QFont.Weight.Bold)
            body = QTextCharFormat()
            if t.omitted:
                for f in (head, body):
                    f.setForeground(OMITTED_COLOR)
                    f.setFontItalic(True)
            else:
                head.setForeground(HEADING_COLOR)
            cursor.insertText(t.heading, head)
            cursor.insertBlock()
            cursor.insertText(t.text, body)
        cursor.endEditBlock()
        self.moveCursor(QTextCursor.MoveOperation.Start)

    def show_item(self, item_id: str) -> bool:
        """Scroll to the turn of ``item_id`` and put the cursor there (when the view is next
        shown, if it is hidden). False if it has none."""
        if self._dirty:
            found = any(t.item_id == item_id for t in self.turns) and item_id != RESPONSE_ID
            self._pending_item = item_id if found else None
            return found
        if self.jump_to_item(item_id) is None:
            return False
        self.centerCursor()
        return True
