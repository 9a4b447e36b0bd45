"""The answer side of the trace panel: Response, Request and Attributes tabs.

* **Response** -- :func:`ctxviewer.present.answer.answer_text`: the model's text, finish reason, response
  model and id, each proposed tool call with its arguments pretty-printed, every check and the
  verdict, and the validations of the output (the same words ``ctxviewer show`` prints); rendered
  by default (:func:`ctxviewer.present.answer_blocks.answer_blocks`, inert: Markdown from the
  sanitised subset, tool calls as labelled blocks, data-URL thumbnails), raw with the messages'
  Rendered / Raw switch.
* **Request** -- :func:`ctxviewer.present.request_body.request_view`: the notice (kept, or "only a reference
  was kept (sha256 …); exact replay impossible: fields … redacted") above the serialized body,
  pretty-printed and highlighted.
* **Attributes** -- :func:`ctxviewer.present.trace_attributes.attribute_rows` as a two-column table.

Everything is plain text (never rich text: the rendered answer is written with plain-text inserts
into an inert document) and read-only.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QShowEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.content_view import ContentView
from ctxviewer.gui.rendered_view import RenderedView
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.answer import answer_text
from ctxviewer.present.answer_blocks import answer_blocks
from ctxviewer.present.message_images import trace_images
from ctxviewer.present.request_body import request_view
from ctxviewer.present.trace_attributes import attribute_rows
from ctxviewer.util.visible import one_line

RESPONSE, REQUEST, ATTRIBUTES = range(3)
"""Tab indexes."""


class ResponsePane(QWidget):
    """The answer of one trace, rendered or raw (one switch with the messages: Items › Rendered
    Messages). :attr:`raw` is today's read-only plain text of :func:`answer_text`, always filled;
    :attr:`rendered_view` draws :func:`ctxviewer.present.answer_blocks.answer_blocks` -- Markdown
    from the sanitised subset, each proposed tool call a labelled block with its arguments
    pretty-printed, thumbnails of data-URL images -- inert (:mod:`ctxviewer.gui.rendered_view`).
    The view shown takes the focus (:meth:`active`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("responsePane")
        self.raw = QPlainTextEdit()
        self.raw.setObjectName("responseRaw")
        self.raw.setReadOnly(True)
        self.raw.setUndoRedoEnabled(False)
        self.raw.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.raw.setPlaceholderText("No trace selected.")
        self.rendered_view = RenderedView()
        self.rendered_view.setObjectName("responseRendered")
        self.rendered_view.setPlaceholderText("No trace selected.")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.raw)
        self.stack.addWidget(self.rendered_view)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.stack)
        self.rendered = True
        self.trace: RequestTrace | None = None
        self._dirty = False
        self._place()

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the answer of ``trace`` (``None`` clears); the rendered one is built when shown."""
        self.trace = trace
        self.raw.setPlainText(answer_text(trace) if trace is not None else "")
        self._dirty = True
        if self.rendered and self.isVisible():
            self._build()

    def set_rendered(self, on: bool) -> None:
        """Show the answer rendered (``on``) or as raw plain text."""
        self.rendered = on
        self._place()
        if on and self._dirty and self.isVisible():
            self._build()

    def active(self) -> QPlainTextEdit | RenderedView:
        """The view shown."""
        return self.rendered_view if self.rendered else self.raw

    def text(self) -> str:
        """The plain text of the view shown (building the rendered one if it is pending)."""
        if self.rendered and self._dirty:
            self._build()
        return self.active().toPlainText()

    def _place(self) -> None:
        view = self.active()
        self.stack.setCurrentWidget(view)
        self.setFocusProxy(view)

    def _build(self) -> None:
        self._dirty = False
        trace = self.trace
        if trace is None:
            self.rendered_view.clear_message("No trace selected.")
            return
        images = trace_images(trace)  # the recorded body's, or those the importer kept
        self.rendered_view.set_blocks(answer_blocks(trace, images))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.rendered and self._dirty:
            self._build()


class RequestPane(QWidget):
    """The notice and the pretty-printed serialized body of one trace."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.notice = QLabel()
        self.notice.setObjectName("requestNotice")
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body = ContentView()
        self.body.setPlaceholderText("No trace selected.")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addWidget(self.notice)
        lay.addWidget(self.body, 1)
        self._pending: RequestTrace | None = None

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the request of ``trace`` (``None`` clears). The notice is immediate; the body
        (pretty-printed and highlighted: ~50,000 characters for a 16k-token request) is laid out
        only once the pane is visible."""
        self._pending = trace
        self.notice.setText(request_view(trace).notice if trace is not None else "")
        if self.isVisible():
            self._fill()
        else:
            self.body.clear_content()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fill()

    def _fill(self) -> None:
        trace, self._pending = self._pending, None
        if trace is None:
            return
        view = request_view(trace)
        if view.body is None:
            self.body.set_content(None)
            self.body.setPlaceholderText(view.notice)
        else:
            self.body.set_content(view.body, view.language)


class AttributesPane(QTableWidget):
    """Recorded attributes of one trace, ``name | value``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 2, parent)
        self.setHorizontalHeaderLabels(["Attribute", "Value"])
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont))

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the attribute rows of ``trace`` (``None`` clears)."""
        rows = attribute_rows(trace) if trace is not None else []
        self.setRowCount(len(rows))
        for r, (name, value) in enumerate(rows):
            for c, text in enumerate((name, value)):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text if len(text) > 40 else "")
                self.setItem(r, c, cell)


class AnswerTabs(QTabWidget):
    """Response | Request | Attributes for the selected trace; the Response tab leads."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.response = ResponsePane()
        self.request = RequestPane()
        self.attributes = AttributesPane()
        self.addTab(self.response, "Response")
        self.addTab(self.request, "Request")
        self.addTab(self.attributes, "Attributes")

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show ``trace`` in all three tabs (``None`` clears); tab titles carry a short status."""
        self.response.set_trace(trace)
        self.request.set_trace(trace)
        self.attributes.set_trace(trace)
        r = trace.response if trace is not None else None
        self.setTabText(RESPONSE, "Response" + (f" ({one_line(r.finish_reason)})" if r is not None and r.finish_reason else ""))
        req = trace.request if trace is not None else None
        kept = req is not None and req.content is not None
        self.setTabText(REQUEST, "Request" + ("" if trace is None else (" (body)" if kept else " (reference)"
                                                                          if req and req.sha256 else " (none)")))
        self.setTabText(ATTRIBUTES, f"Attributes ({len(trace.attributes)})" if trace is not None else "Attributes")
