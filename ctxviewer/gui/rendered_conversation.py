"""The Conversation tab rendered: each turn's heading, then its message as blocks, still inert.

:class:`RenderedConversation` shows the same turns as the raw
:class:`~ctxviewer.gui.conversation_pane.ConversationView` (:func:`ctxviewer.present.conversation_view.conversation`,
headings in the same words, omitted turns greyed and in place), each body written from
:func:`ctxviewer.present.message_blocks.message_blocks` -- tool calls and results as labelled
blocks, Markdown from the sanitised subset, thumbnails of images the recorded request holds -- and
the response last with its proposed tool calls. Same keys as the raw view: Enter or a double-click
selects the turn's item (``sig_item_activated``), :meth:`show_item` scrolls to an item's turn.
A message over :data:`ctxviewer.present.message_blocks.RENDER_LIMIT` is shown as its raw text.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont, QShowEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QWidget

from ctxviewer.gui.block_document import Message, write_messages
from ctxviewer.gui.conversation_pane import HEADING_COLOR, OMITTED_COLOR
from ctxviewer.gui.rendered_view import RenderedView
from ctxviewer.gui.turn_navigation import TurnNavigation
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.blocks import Block, CodeBlock
from ctxviewer.present.conversation_view import RESPONSE_ID, Turn, conversation
from ctxviewer.present.message_blocks import RENDER_LIMIT, message_blocks, response_blocks, tool_links
from ctxviewer.present.message_images import trace_images
from ctxviewer.util.visible import reveal


def turn_blocks(trace: RequestTrace) -> list[tuple[Turn, tuple[Block, ...]]]:
    """Each turn of ``trace`` with the blocks of its message (raw text over the limit as one code block)."""
    links = tool_links(trace)
    images = trace_images(trace)  # the recorded body's, or those the importer kept
    by_id = {i.id: i for i in trace.items}
    out: list[tuple[Turn, tuple[Block, ...]]] = []
    for t in conversation(trace):
        if t.item_id == RESPONSE_ID:
            out.append((t, response_blocks(trace.response, trace)))
            continue
        item = by_id.get(t.item_id)
        text = item.content if item is not None else None
        if text is not None and len(text) > RENDER_LIMIT:
            out.append((t, (CodeBlock(reveal(text).text, None),)))
            continue
        out.append((t, message_blocks(text, role=t.role, result_of=links.get(t.item_id), images=images)))
    return out


class RenderedConversation(TurnNavigation, RenderedView):
    """Read-only rendered conversation of one trace (see the module docstring)."""

    sig_item_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("renderedConversation")
        self.setPlaceholderText("No trace selected.")
        self.trace: RequestTrace | None = None
        self.turns: tuple[Turn, ...] = ()
        self._starts: list[int] = []
        self._dirty = False
        self._pending_item: str | None = None

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the conversation of ``trace`` (``None`` clears); built when the view is visible."""
        self.trace = trace
        self.turns = ()
        self._starts = []
        self._dirty = True
        self._pending_item = None
        if self.isVisible():
            self._build()
        else:
            self.fresh_document()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self._build()
            if self._pending_item is not None:
                self.show_item(self._pending_item)

    def _build(self) -> None:
        self._dirty = False
        doc = self.fresh_document()
        doc.setDefaultFont(self.font())
        self._starts = []
        if self.trace is None:
            self.turns = ()
            return
        pairs = turn_blocks(self.trace)
        self.turns = tuple(t for t, _ in pairs)
        messages: list[Message] = []
        for t, blocks in pairs:
            head = QTextCharFormat()
            head.setFontWeight(QFont.Weight.Bold)
            head.setForeground(OMITTED_COLOR if t.omitted else HEADING_COLOR)
            head.setFontItalic(t.omitted)
            messages.append(((t.heading, head), blocks, t.omitted))
        self._starts = write_messages(doc, messages, self.font())
        self.moveCursor(QTextCursor.MoveOperation.Start)

    def show_item(self, item_id: str) -> bool:
        """Scroll to the turn of ``item_id`` (when next shown, if hidden). False if it has none."""
        if self._dirty:
            found = self.trace is not None and item_id != RESPONSE_ID and any(i.id == item_id for i in self.trace.items)
            self._pending_item = item_id if found else None
            return found
        if self.jump_to_item(item_id) is None:
            return False
        self.ensureCursorVisible()
        return True
