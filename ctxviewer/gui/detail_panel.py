"""The trace header: identity, endpoint, policy, replay, usage, tool calls and validations.

Every value is a :class:`QLabel` with ``Qt.PlainText`` -- trace fields come from untrusted logs and
are never interpreted as markup. Unrecorded values read "not recorded" (never 0). The text of each
row is computed by the core (:attr:`ctxviewer.assess.assessment.Assessment.header`).

Layout: short fields two to a line (label, value, label, value); long ones (usage, tool calls,
validations, and any value of more than :data:`WIDE_CHARS` characters or of several lines, such as a
reranker's "Retrieved" note) span the full width, so the header stays a few lines tall at 1280 px and
no value is pushed past the window's right edge.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

WIDE_ROWS = frozenset({"State", "Usage", "Tool calls", "Validations"})
"""Header rows that take a full line whatever their length."""
WIDE_CHARS = 60
"""A value longer than this many characters (or of more than one line) takes a full line: in the
right-hand half of the header at 1280 px a note of 300 characters ran to six lines and its longest
identifier reached the window's edge."""
SHOWN_ELSEWHERE = frozenset({"State", "Tool calls", "Validations"})
"""Header rows the window shows in full elsewhere, so the header stays short at 1280×800: the state
and verdict head the budget chart, tool calls and validations are in the Response pane."""


def is_wide(label: str, text: str) -> bool:
    """Whether the header row ``label`` with value ``text`` takes a full line (:data:`WIDE_ROWS`,
    :data:`WIDE_CHARS`)."""
    return label in WIDE_ROWS or "\n" in text or len(text) > WIDE_CHARS


class DetailPanel(QWidget):
    """The header of the selected trace as a grid of plain-text labels."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(6, 4, 6, 4)
        self._grid.setHorizontalSpacing(10)
        self._grid.setVerticalSpacing(2)
        self._grid.setColumnStretch(1, 1)
        self._grid.setColumnStretch(3, 1)
        self._rows: list[tuple[str, str]] = []
        self._labels: list[QLabel] = []
        self._spans: list[tuple[str, int]] = []

    def rows(self) -> list[tuple[str, str]]:
        """The ``(label, text)`` rows shown (the assessment's header without :data:`SHOWN_ELSEWHERE`)."""
        return list(self._rows)

    def set_rows(self, rows: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> None:
        """Show ``(label, text)`` header rows (empty clears)."""
        for lab in self._labels:
            self._grid.removeWidget(lab)
            lab.hide()  # deleteLater runs only in the event loop; a grab before that must not see it
            lab.deleteLater()
        self._labels = []
        self._spans = []
        self._rows = [(label, text) for label, text in rows if label not in SHOWN_ELSEWHERE]
        line, col = 0, 0
        for label, text in self._rows:
            wide = is_wide(label, text)
            if wide and col:
                line, col = line + 1, 0
            key = self._label(label, "detailKey")
            value = self._label(text, "detailValue")
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._grid.addWidget(key, line, col, Qt.AlignmentFlag.AlignTop)
            # top-aligned like its key: beside a taller value (scores) it must not drift down its row
            self._grid.addWidget(value, line, col + 1, 1, 3 if wide else 1, Qt.AlignmentFlag.AlignTop)
            self._spans.append((label, 3 if wide else 1))
            if wide or col:
                line, col = line + 1, 0
            else:
                col = 2
        self._grid.setRowStretch(line + 1, 1)

    def spans(self) -> list[tuple[str, int]]:
        """``(label, columns)`` of each shown row: 3 for a row on a full line, 1 for a half line."""
        return list(self._spans)

    def _label(self, text: str, name: str) -> QLabel:
        lab = QLabel(text)
        lab.setTextFormat(Qt.TextFormat.PlainText)
        lab.setObjectName(name)
        self._labels.append(lab)
        return lab
