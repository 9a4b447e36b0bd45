"""What the two Conversation views share: turns at document positions, and the keys that move
between a turn and its item.

:class:`TurnNavigation` is mixed into the raw :class:`~ctxviewer.gui.conversation_pane.ConversationView`
(a ``QPlainTextEdit``) and the :class:`~ctxviewer.gui.rendered_conversation.RenderedConversation`
(a ``QTextEdit``): each writes its document and fills :attr:`~TurnNavigation.turns` and
:attr:`~TurnNavigation._starts` (the document position each turn's heading starts at); the mixin
answers :meth:`~TurnNavigation.turn_at`, scrolls to an item's turn (:meth:`~TurnNavigation.jump_to_item`),
and emits ``sig_item_activated`` with the item id of the turn under the cursor on Enter or a
double-click (never for the response turn, which has no item).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Protocol

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent, QTextCursor, QTextDocument

from ctxviewer.present.conversation_view import RESPONSE_ID, Turn


class _TextView(Protocol):
    """The text-view methods the mixin calls (both ``QPlainTextEdit`` and ``QTextEdit`` have them)."""

    turns: tuple[Turn, ...]
    _starts: list[int]
    sig_item_activated: Any

    def document(self) -> QTextDocument: ...
    def textCursor(self) -> QTextCursor: ...
    def setTextCursor(self, cursor: QTextCursor) -> None: ...
    def cursorForPosition(self, pos: QPoint) -> QTextCursor: ...
    def turn_at(self, position: int) -> Turn | None: ...
    def current_turn(self) -> Turn | None: ...
    def _activate(self) -> None: ...


class TurnNavigation:
    """Mixin for a conversation view (put it before the Qt base class): see the module docstring."""

    turns: tuple[Turn, ...]  # set by the view's __init__ and its build
    _starts: list[int]

    def turn_at(self, position: int) -> Turn | None:
        """The turn holding document position ``position`` (code points), or ``None`` before the first."""
        i = bisect_right(self._starts, position) - 1
        return self.turns[i] if 0 <= i < len(self.turns) else None

    def jump_to_item(self: _TextView, item_id: str) -> QTextCursor | None:
        """Put the text cursor at the heading of ``item_id``'s turn and return it (the caller scrolls);
        ``None`` when no turn holds the item or it is the response's."""
        for start, t in zip(self._starts, self.turns):
            if t.item_id == item_id and item_id != RESPONSE_ID:
                cursor = QTextCursor(self.document())
                cursor.setPosition(start)
                self.setTextCursor(cursor)
                return cursor
        return None

    def current_turn(self: _TextView) -> Turn | None:
        """The turn under the text cursor."""
        return self.turn_at(self.textCursor().position())

    def _activate(self: _TextView) -> None:
        t = self.current_turn()
        if t is not None and t.item_id != RESPONSE_ID:
            self.sig_item_activated.emit(t.item_id)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        super().mouseDoubleClickEvent(event)  # type: ignore[misc]
        view: Any = self
        view.setTextCursor(view.cursorForPosition(event.position().toPoint()))
        view._activate()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._activate()  # type: ignore[misc]
            return
        super().keyPressEvent(event)  # type: ignore[misc]
