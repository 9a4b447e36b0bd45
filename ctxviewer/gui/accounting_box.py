"""A trace's recorded token accounting as a box: content per category + framing overhead +
tool-definition overhead = the counted total, beside the provider-reported input and the residual,
with the warning when the residual exceeds the endpoint profile's tolerance
(:func:`ctxviewer.assess.breakdown.breakdown`; ``ctxviewer whatif`` prints the same lines).
Plain text only: item ids in the notes are untrusted and shown with :func:`ctxviewer.util.visible.one_line`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from ctxviewer.assess.breakdown import breakdown
from ctxviewer.model.trace import RequestTrace
from ctxviewer.util.visible import one_line

NOTE_PREFIXES = ("warning:", "not counted", "counted in chunks")
"""Breakdown lines shown wrapped under the figures rather than in the monospace column."""


class AccountingBox(QGroupBox):
    """``parts``: the breakdown's figures, one per line (monospace); ``notes``: its warning and marks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Recorded accounting (adds up to the counted total)", parent)
        lay = QVBoxLayout(self)
        self.parts = QLabel()
        self.parts.setObjectName("accountingParts")
        self.parts.setTextFormat(Qt.TextFormat.PlainText)  # trace text is untrusted
        self.parts.setStyleSheet("font-family: monospace;")
        self.parts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes = QLabel()
        self.notes.setObjectName("accountingNotes")
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #8a5a00;")
        lay.addWidget(self.parts)
        lay.addWidget(self.notes)
        self.notes.hide()

    def set_trace(self, trace: RequestTrace | None) -> None:
        """Show ``trace``'s breakdown (``None`` clears)."""
        lines = [one_line(line) for line in breakdown(trace).lines()] if trace is not None else []
        notes = [line for line in lines if line.startswith(NOTE_PREFIXES)]
        self.parts.setText("\n".join(line for line in lines if not line.startswith(NOTE_PREFIXES)))
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
