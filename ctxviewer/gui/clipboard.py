"""Edit › Copy (Ctrl+C): copy what is selected in the focused view.

* a text view or line edit (content, response, request, conversation, filter box): its selected
  text (nothing selected: nothing copied, the trace id is never copied instead);
* a selectable label (the header): its selected text;
* a table or tree (trace list, item table, findings, tool calls, attributes): the selected rows,
  one line each, the visible columns' display text separated by tabs.

:func:`selection_text` only reads; :func:`copy_selection` puts the text on the clipboard.
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractItemView, QLabel, QLineEdit, QPlainTextEdit, QTextEdit, QWidget


def selection_text(widget: QWidget | None) -> str | None:
    """The selected text of ``widget`` as described in the module docstring, or ``None`` when it
    has no selection (or is not a view this knows)."""
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        text = widget.textCursor().selectedText()
        return text.replace("\u2029", "\n").replace("\u2028", "\n") or None
    if isinstance(widget, QLineEdit):
        return widget.selectedText() or None
    if isinstance(widget, QLabel):
        return widget.selectedText() or None
    if isinstance(widget, QAbstractItemView):
        model = widget.model()
        sel = widget.selectionModel()
        if model is None or sel is None:
            return None
        rows = sorted({(i.parent(), i.row()) for i in sel.selectedIndexes()} or
                      ({(widget.currentIndex().parent(), widget.currentIndex().row())} if widget.currentIndex().isValid() else set()),
                      key=lambda pr: pr[1])
        header = getattr(widget, "horizontalHeader", None) or getattr(widget, "header", None)
        hidden = header().isSectionHidden if header is not None else (lambda _c: False)
        lines = []
        for parent, row in rows:
            cells = [model.index(row, c, parent).data() for c in range(model.columnCount(parent)) if not hidden(c)]
            lines.append("\t".join("" if v is None else str(v) for v in cells))
        return "\n".join(lines) or None
    return None


def copy_selection(widget: QWidget | None) -> str | None:
    """Copy :func:`selection_text` of ``widget`` to the clipboard; returns what was copied."""
    text = selection_text(widget)
    if text:
        QGuiApplication.clipboard().setText(text)
    return text
