"""The Rendered view of one message: tool calls, results, Markdown and thumbnails, still inert.

:class:`RenderedView` is a read-only :class:`QTextEdit` over an
:class:`~ctxviewer.gui.block_document.InertDocument`: it shows the blocks of
:func:`ctxviewer.present.message_blocks.message_blocks` written with plain-text inserts and formats
(:func:`~ctxviewer.gui.block_document.write_blocks`), accepts no rich text, offers no link
interaction (there are no anchors to follow) and loads no resource. Text over
:data:`ctxviewer.present.message_blocks.RENDER_LIMIT` is not rendered: the view says so and the
window shows it raw. The Raw view (:class:`~ctxviewer.gui.content_view.ContentView`) stays today's
plain text; :mod:`ctxviewer.gui.message_pane` switches between them.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QTextEdit, QWidget

from ctxviewer.gui.block_document import InertDocument, write_blocks
from ctxviewer.present.blocks import Block
from ctxviewer.present.message_blocks import RENDER_LIMIT, ToolLink, message_blocks
from ctxviewer.present.message_images import ImageKey


class RenderedView(QTextEdit):
    """Read-only rendered message (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("renderedView")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setAcceptRichText(False)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.inert = InertDocument(self)
        self.setDocument(self.inert)
        self.blocks: tuple[Block, ...] = ()
        """The blocks shown."""
        self.setPlaceholderText("Select an item to see its content.")

    def createMimeDataFromSelection(self) -> QMimeData:
        """A copy or drag of the selection carries plain text only (no HTML of the document).
        The object is made here, in Python: :func:`settle_clipboard` swaps it for Qt's own before
        the application goes."""
        mime = QMimeData()
        mime.setText(self.textCursor().selectedText().replace("\u2029", "\n").replace("\u2028", "\n"))
        return mime

    def fresh_document(self) -> InertDocument:
        """Replace the document by an empty :class:`InertDocument` (its images go with the old one)."""
        old = self.inert
        self.inert = InertDocument(self)
        self.setDocument(self.inert)
        old.deleteLater()
        return self.inert

    def set_blocks(self, blocks: tuple[Block, ...]) -> None:
        """Show ``blocks`` (empty: nothing, and the placeholder)."""
        self.blocks = blocks
        doc = self.fresh_document()
        doc.setDefaultFont(self.font())
        write_blocks(doc, blocks, self.font())
        self.moveCursor(self.textCursor().MoveOperation.Start)

    def too_long(self, text: str | None) -> bool:
        """Whether ``text`` is over :data:`~ctxviewer.present.message_blocks.RENDER_LIMIT` (shown raw)."""
        return text is not None and len(text) > RENDER_LIMIT

    def set_message(self, text: str | None, *, role: str | None = None, result_of: ToolLink | None = None,
                    images: Mapping[ImageKey, tuple[str, str, str]] | None = None) -> None:
        """Render one message's stored ``text`` (:func:`~ctxviewer.present.message_blocks.message_blocks`)."""
        self.set_blocks(message_blocks(text, role=role, result_of=result_of, images=images))

    def clear_message(self, placeholder: str = "Select an item to see its content.") -> None:
        """Show nothing, with ``placeholder``."""
        self.blocks = ()
        self.fresh_document()
        self.setPlaceholderText(placeholder)


def settle_clipboard() -> None:
    """Put the clipboard's text back as a copy Qt made itself, so that a ``QMimeData`` made in
    Python (:meth:`RenderedView.createMimeDataFromSelection`) is not left on the clipboard when the
    application is destroyed: PySide6 6.11 frees such an object twice then, a segmentation fault
    after the last window closed. The copied text stays on the clipboard; call before the
    ``QApplication`` goes (after ``exec()``, at the end of a test session). Never raises."""
    from PySide6.QtGui import QGuiApplication
    from shiboken6 import Shiboken

    if QGuiApplication.instance() is None:
        return
    board = QGuiApplication.clipboard()
    mime = board.mimeData()
    if mime is not None and Shiboken.createdByPython(mime):
        board.setText(mime.text())  # Qt makes this one; the Python-made object is released by Qt
