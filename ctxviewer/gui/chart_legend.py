"""A legend for the budget chart as ordinary Qt widgets: a colour swatch and a plain-text label per
entry, laid out in as many columns as fit the width (re-flowed on resize), so it can never overlap
the plot the way a legend drawn inside the plot's scene can."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QWidget

ENTRY_MIN_PX = 120
"""Minimum width of one entry (swatch, gap, label) when choosing the number of columns."""


class ChartLegend(QWidget):
    """Legend entries ``(label, colour, dashed)`` in a re-flowing grid."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(6, 0, 6, 2)
        self._grid.setHorizontalSpacing(14)
        self._grid.setVerticalSpacing(1)
        self._entries: list[QWidget] = []
        self._labels: list[str] = []
        self._columns = 0

    def labels(self) -> list[str]:
        """The entry labels, in order."""
        return list(self._labels)

    def set_entries(self, entries: list[tuple[str, str, bool]]) -> None:
        """Show ``entries``: ``(label, colour "#rrggbb", dashed outline)`` each."""
        for w in self._entries:
            self._grid.removeWidget(w)
            w.hide()
            w.deleteLater()
        self._entries, self._labels = [], [e[0] for e in entries]
        for label, color, dashed in entries:
            entry = QWidget()
            row = QHBoxLayout(entry)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(5)
            swatch = QFrame()
            swatch.setFixedSize(12, 12)
            border = "1px dashed #6b7280" if dashed else f"1px solid {color}"
            swatch.setStyleSheet(f"background: {color}; border: {border};")
            text = QLabel(label)
            text.setTextFormat(Qt.TextFormat.PlainText)
            text.setObjectName("legendLabel")
            row.addWidget(swatch)
            row.addWidget(text)
            row.addStretch(1)
            self._entries.append(entry)
        self._columns = 0
        self._reflow()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._reflow()

    def _reflow(self) -> None:
        if not self._entries:
            return
        widest = max(max(e.sizeHint().width() for e in self._entries), ENTRY_MIN_PX)
        cols = max(1, min(len(self._entries), (self.width() - 12) // (widest + 14)))
        if cols == self._columns:
            return
        self._columns = cols
        for e in self._entries:
            self._grid.removeWidget(e)
        for i, e in enumerate(self._entries):
            self._grid.addWidget(e, i // cols, i % cols)
            e.show()
