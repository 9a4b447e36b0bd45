"""The trace list's filter entry: a display filter (:mod:`ctxviewer.store.filters`) checked as it is typed.

:class:`FilterEdit` compiles its text on every edit (a parse is well under a millisecond). A text
that does not parse is underlined in red from the column where it goes wrong to the end, and
:attr:`FilterEdit.error_label` (placed by the window under the entry) says what was expected; the
list keeps its last good filter. The underline uses the line edit's pre-edit text formats (the
only way to format part of a ``QLineEdit``), so the text itself is never changed.

Signal: ``sig_error_changed(str)`` -- the error message, ``""`` when the text is valid.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QInputMethodEvent, QTextCharFormat
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget

from ctxviewer.store.filters import FilterError, compile_filter, prepare_parser
from ctxviewer.util.highlight import StyleSpan, utf16_offsets

ERROR_COLOR = QColor("#dc2626")
"""Underline and message colour of a filter that does not parse."""


PARSER_DELAY_MS = 1500
"""Milliseconds after the filter box is made before the parser is built in the background."""


class FilterEdit(QLineEdit):
    """A line edit for display filters. ``error`` is the current :class:`FilterError` or ``None``."""

    sig_error_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.error: FilterError | None = None
        self.underlined: tuple[int, int] | None = None
        """``(start, length)`` in UTF-16 units of the red underline, ``None`` while valid."""
        self.setPlaceholderText("Filter: model ~ gpt-4o and omitted > 2 and finding == injection  (Ctrl+F)")
        self.setClearButtonEnabled(True)
        self.error_label = QLabel()
        """Shows the error message (plain text); hidden while the filter is valid."""
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {ERROR_COLOR.name()};")
        self.error_label.hide()
        self.textChanged.connect(self._check)
        # the grammar's parser is built off the GUI thread once the window is up (not before the
        # first screen): the first filter typed then does not stop the window
        QTimer.singleShot(PARSER_DELAY_MS, self, prepare_parser)

    def _check(self, text: str) -> None:
        try:
            compile_filter(text)
            error = None
        except FilterError as exc:
            error = exc
        self.error = error
        self._underline(text, error)
        if error is None:
            self.error_label.hide()
            self.error_label.setText("")
            self.setToolTip("")
        else:
            message = f"{error.message} (column {error.position + 1})"
            self.error_label.setText(message)
            self.error_label.show()
            self.setToolTip(message)
        self.sig_error_changed.emit("" if error is None else error.message)

    def _underline(self, text: str, error: FilterError | None) -> None:
        attrs: list[QInputMethodEvent.Attribute] = []
        if error is not None:
            start = min(error.position, len(text))
            length = max(1, len(text) - start)
            if start >= len(text):  # "ends early": mark the last character
                start, length = max(0, len(text) - 1), 1 if text else 0
            (span,) = utf16_offsets(text, [StyleSpan(start, length, "error")])
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(ERROR_COLOR)
            fmt.setForeground(ERROR_COLOR)
            attrs.append(QInputMethodEvent.Attribute(
                QInputMethodEvent.AttributeType.TextFormat, span.start - self.cursorPosition(), span.length, fmt))
        QCoreApplication.sendEvent(self, QInputMethodEvent("", attrs))

        self.underlined = (span.start, span.length) if error is not None else None

