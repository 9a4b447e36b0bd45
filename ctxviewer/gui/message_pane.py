"""Rendered or Raw: the selected item's content pane and the Conversation tab, one switch for both.

* :class:`ItemPane` -- the item's title, a "Rendered" switch button, and a stack of the Raw view
  (:class:`~ctxviewer.gui.content_view.ContentView`, today's plain text with highlighting, always
  filled) and the Rendered view (:class:`~ctxviewer.gui.rendered_view.RenderedView`). A finding's
  evidence is marked in the stored text, so while spans are marked the Raw view is shown (the
  title says so) and the next item is shown in the chosen mode again. A text over
  :data:`ctxviewer.present.message_blocks.RENDER_LIMIT` is shown raw too.
* :class:`ConversationPages` -- the Conversation tab's page: the raw
  :class:`~ctxviewer.gui.conversation_pane.ConversationView` or the
  :class:`~ctxviewer.gui.rendered_conversation.RenderedConversation`.

The choice is the user's (Items › Rendered Messages, :data:`SHORTCUT`), remembered under
:data:`SETTINGS_KEY` (:func:`remembered`); Rendered is the default.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from ctxviewer.gui.content_view import ContentView
from ctxviewer.gui.conversation_pane import ConversationView
from ctxviewer.gui.rendered_conversation import RenderedConversation
from ctxviewer.gui.rendered_view import RenderedView
from ctxviewer.model.trace import ContextItem, RequestTrace
from ctxviewer.present.message_blocks import RENDER_LIMIT, ToolLink, tool_links
from ctxviewer.present.message_images import ImageKey, trace_images

SETTINGS_KEY = "view/renderedMessages"
"""QSettings key of the Rendered / Raw choice (bool; absent: Rendered)."""
SHORTCUT = "Ctrl+Alt+M"
"""Items › Rendered Messages."""
RAW, RENDERED = 0, 1
"""Stack pages."""
MARKED_NOTE = "shown raw: the finding's evidence is marked in the stored text"
TOO_LONG_NOTE = f"shown raw: over the {RENDER_LIMIT:,} characters rendered"
CONVERSATION_LIMIT = 500_000
"""Characters of a conversation rendered at most (about 0.25 s to parse and lay out on the
development machine); a longer one is shown raw under a note."""


def remembered(settings: QSettings) -> bool:
    """The remembered choice: True for Rendered (the default)."""
    value = settings.value(SETTINGS_KEY, True)
    return value not in (False, "false", "0", 0)


class ItemPane(QWidget):
    """Title, switch and the Raw / Rendered stack of the selected item (module docstring).
    ``sig_rendered(bool)`` when the switch button is toggled by the user."""

    sig_rendered = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setObjectName("contentTitle")
        self.title.setWordWrap(True)  # a long omission reason wraps instead of widening the pane
        self.title.setMinimumWidth(120)
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setObjectName("renderNote")
        self.note.setStyleSheet("color: #92400e")
        self.note.setWordWrap(True)  # under the title: never widens the pane
        self.note.setMinimumWidth(120)
        self.note.hide()
        self.switch = QToolButton()
        self.switch.setObjectName("renderSwitch")
        self.switch.setText("Rendered")
        self.switch.setCheckable(True)
        self.switch.setChecked(True)
        self.switch.setToolTip(f"Rendered messages or the raw stored text ({SHORTCUT})")
        self.switch.toggled.connect(self._label_switch)
        self.switch.toggled.connect(self.sig_rendered.emit)
        self.raw = ContentView()
        self.rendered_view = RenderedView()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.raw)
        self.stack.addWidget(self.rendered_view)
        self.stack.setCurrentIndex(RENDERED)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title, 1)
        head.addWidget(self.switch, 0, Qt.AlignmentFlag.AlignTop)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.note)
        lay.addWidget(self.stack, 1)
        self.rendered = True
        self.trace: RequestTrace | None = None
        self.item: ContextItem | None = None
        self._links: dict[str, ToolLink] | None = None
        self._images: dict[ImageKey, tuple[str, str, str]] | None = None
        self.raw.sig_marked.connect(self._on_marked)

    def set_rendered(self, on: bool) -> None:
        """Show messages rendered (``on``) or raw; the item shown is shown again in that mode."""
        self.rendered = on
        if self.switch.isChecked() != on:
            self.switch.blockSignals(True)
            self.switch.setChecked(on)
            self.switch.blockSignals(False)
        self._label_switch(on)
        self._show_item()

    def _label_switch(self, on: bool) -> None:
        """The switch names the mode shown: "Rendered" or "Raw"."""
        self.switch.setText("Rendered" if on else "Raw")

    def set_trace(self, trace: RequestTrace | None) -> None:
        """The trace whose items are shown next (clears the item shown)."""
        self.trace = trace
        self._links = None
        self._images = None
        self.clear()

    def clear(self) -> None:
        """Show no item."""
        self.item = None
        self.raw.clear_content()
        self.rendered_view.clear_message()
        self.title.setText("")
        self._set_note(None)
        self.stack.setCurrentIndex(RENDERED if self.rendered else RAW)

    def show_item(self, item: ContextItem, title: str) -> None:
        """Show ``item`` under ``title``: the raw text always, rendered when the mode says so."""
        self.item = item
        self.title.setText(title)
        self.raw.set_content(item.content)
        self.raw.mark_spans(None, [])
        self._show_item()

    def _show_item(self) -> None:
        item = self.item
        if item is None or not self.rendered:
            self._set_note(None)
            self.stack.setCurrentIndex(RENDERED if item is None and self.rendered else RAW)
            return
        if self.rendered_view.too_long(item.content):
            self._set_note(TOO_LONG_NOTE)
            self.stack.setCurrentIndex(RAW)
            return
        self._set_note(None)
        self.rendered_view.set_message(item.content, role=item.role, result_of=self.links().get(item.id),
                                       images=self.images(item))
        self.stack.setCurrentIndex(RENDERED)

    def links(self) -> dict[str, ToolLink]:
        """Tool result -> call of the trace shown (computed once per trace)."""
        if self._links is None:
            self._links = tool_links(self.trace) if self.trace is not None else {}
        return self._links

    def images(self, item: ContextItem) -> dict[ImageKey, tuple[str, str, str]]:
        """The recorded request's images, read once per trace when an item has an image placeholder."""
        if self._images is None:
            if "[image" not in (item.content or "") or self.trace is None:
                return {}
            self._images = trace_images(self.trace)
        return self._images

    def _on_marked(self, n: int) -> None:
        if n and self.rendered and self.item is not None:
            self._set_note(MARKED_NOTE)
            self.stack.setCurrentIndex(RAW)

    def _set_note(self, note: str | None) -> None:
        self.note.setText(note or "")
        self.note.setVisible(note is not None)


class ConversationPages(QWidget):
    """The Conversation tab's page: raw (:attr:`raw`) or rendered (:attr:`rendered_view`). A
    conversation over :data:`CONVERSATION_LIMIT` characters is shown raw, under a note saying so."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.raw = ConversationView()
        self.rendered_view = RenderedConversation()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.raw)
        self.stack.addWidget(self.rendered_view)
        self.stack.setCurrentIndex(RENDERED)
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setObjectName("conversationRenderNote")
        self.note.setStyleSheet("color: #92400e")
        self.note.setWordWrap(True)
        self.note.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.note)
        lay.addWidget(self.stack, 1)
        self.wanted = True
        """The user's choice (Rendered); a too-long conversation is shown raw all the same."""
        self.chars = 0

    def currentIndex(self) -> int:
        """:data:`RAW` or :data:`RENDERED`: the page shown."""
        return self.stack.currentIndex()

    def set_rendered(self, on: bool) -> None:
        """Show the rendered conversation (``on``) or the raw one, at the same turn."""
        self.wanted = on
        self._place()

    def _place(self) -> None:
        turn = self.active().current_turn()
        long = self.chars > CONVERSATION_LIMIT
        self.stack.setCurrentIndex(RENDERED if self.wanted and not long else RAW)
        self.note.setText(f"shown raw: {self.chars:,} characters, over the {CONVERSATION_LIMIT:,} rendered"
                          if self.wanted and long else "")
        self.note.setVisible(self.wanted and long)
        if turn is not None:
            self.active().show_item(turn.item_id)

    @property
    def rendered(self) -> bool:
        """Whether the rendered conversation is the page shown."""
        return self.currentIndex() == RENDERED

    def active(self) -> ConversationView | RenderedConversation:
        """The view shown."""
        return self.rendered_view if self.rendered else self.raw

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Give both views ``trace`` (each builds when it is shown)."""
        self.chars = sum(len(i.content or "") for i in trace.items) if trace is not None else 0
        self.raw.set_trace(trace)
        self.rendered_view.set_trace(trace)
        self._place()

    def show_item(self, item_id: str) -> bool:
        """Scroll both views to ``item_id``'s turn (a hidden one when next shown)."""
        shown = self.active().show_item(item_id)
        (self.raw if self.rendered else self.rendered_view).show_item(item_id)
        return shown
