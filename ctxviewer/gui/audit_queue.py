"""The upper half of the audit view: the bar above the review queue and the queue's table.

:class:`QueueBar` holds the rule, trace and status filters with the counts ("37 of 112 reviewed")
and Cancel; below them the review file and why it is there (``auditLocation``), the reviewer
(``auditReviewer``) and the error line (``auditError``): why a verdict or note was not saved. All
plain text, control characters revealed (:func:`ctxviewer.util.visible.one_line`).
:func:`review_table` builds the table over a :class:`~ctxviewer.gui.review_model.ReviewTableModel`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableView, QVBoxLayout, QWidget

from ctxviewer.gui.audit_detail import plain_label
from ctxviewer.gui.review_model import ReviewTableModel
from ctxviewer.gui.tables import make_table
from ctxviewer.util.visible import one_line

COLUMN_CHARS = (9, 16, 24, 22, 16, 9)
"""Widths in average characters of the review table's columns before the message (which stretches)."""
ERROR_STYLE = "QLabel#auditError { color: #991b1b; background: #fee2e2; border: 1px solid #fca5a5; padding: 4px; }"
"""The error line: dark red on light red, so a verdict that was not saved cannot be missed."""


def review_table(model: ReviewTableModel) -> QTableView:
    """The queue's table: fixed widths for the short columns, the message stretching, eliding right."""
    table = make_table(model)
    table.setObjectName("auditTable")
    header = table.horizontalHeader()
    advance = table.fontMetrics().horizontalAdvance("x")
    for c, chars in enumerate(COLUMN_CHARS):
        header.resizeSection(c, advance * chars + 12)
    header.setSectionResizeMode(len(COLUMN_CHARS), QHeaderView.ResizeMode.Stretch)
    table.setTextElideMode(Qt.TextElideMode.ElideRight)
    return table


class QueueBar(QWidget):
    """Filters, counts, Cancel, the review file, the reviewer and the error line (module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rule_box, self.trace_box, self.status_box = QComboBox(), QComboBox(), QComboBox()
        self.count_label = plain_label("no database")
        self.count_label.setObjectName("auditCount")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.hide()
        filters = QHBoxLayout()
        for text, box in (("rule", self.rule_box), ("trace", self.trace_box), ("status", self.status_box)):
            filters.addWidget(QLabel(text))
            filters.addWidget(box, 1)
        filters.addWidget(self.count_label)
        filters.addWidget(self.cancel_button)
        self.location_label = plain_label()
        self.location_label.setObjectName("auditLocation")
        self.reviewer_label = plain_label()
        self.reviewer_label.setObjectName("auditReviewer")
        self.error_label = plain_label()
        self.error_label.setObjectName("auditError")
        self.error_label.setStyleSheet(ERROR_STYLE)
        self.error_label.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(filters)
        who = QHBoxLayout()  # one line, so the queue keeps its rows
        who.addWidget(self.location_label, 3)
        who.addWidget(self.reviewer_label, 2)
        lay.addLayout(who)
        lay.addWidget(self.error_label)

    def show_error(self, text: str) -> None:
        """Show ``text`` on the error line (one line, control characters revealed); ``""`` hides it."""
        self.error_label.setText(one_line(text))
        self.error_label.setVisible(bool(text))
