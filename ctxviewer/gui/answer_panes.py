"""The answer side of the trace panel: Response, Request and Attributes tabs.

* **Response** -- :func:`ctxviewer.present.answer.answer_text`: the model's text, finish reason, response
  model and id, each proposed tool call with its arguments pretty-printed, every check and the
  verdict, and the validations of the output (the same words ``ctxviewer show`` prints).
* **Request** -- :func:`ctxviewer.present.request_body.request_view`: the notice (kept, or "only a reference
  was kept (sha256 …); exact replay impossible: fields … redacted") above the serialized body,
  pretty-printed and highlighted.
* **Attributes** -- :func:`ctxviewer.present.trace_attributes.attribute_rows` as a two-column table.

Everything is plain text (never rich text) and read-only.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QShowEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.content_view import ContentView
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.answer import answer_text
from ctxviewer.present.request_body import request_view
from ctxviewer.present.trace_attributes import attribute_rows

RESPONSE, REQUEST, ATTRIBUTES = range(3)
"""Tab indexes."""


class ResponsePane(QPlainTextEdit):
    """The answer of one trace as read-only plain text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("responsePane")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setPlaceholderText("No trace selected.")

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show the answer of ``trace`` (``None`` clears)."""
        self.setPlainText(answer_text(trace) if trace is not None else "")


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
        self.setTabText(RESPONSE, "Response" + (f" ({r.finish_reason})" if r is not None and r.finish_reason else ""))
        req = trace.request if trace is not None else None
        kept = req is not None and req.content is not None
        self.setTabText(REQUEST, "Request" + ("" if trace is None else (" (body)" if kept else " (reference)"
                                                                          if req and req.sha256 else " (none)")))
        self.setTabText(ATTRIBUTES, f"Attributes ({len(trace.attributes)})" if trace is not None else "Attributes")
