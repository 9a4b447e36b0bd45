"""A legend for the budget chart as ordinary Qt widgets: a colour swatch and a plain-text label per
entry, laid out in as many columns as fit the width (re-flowed on resize), so it can never overlap
the plot the way a legend drawn inside the plot's scene can."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QWidget

ENTRY_MIN_PX = 120
"""Minimum width of one entry (swatch, gap, label) when choosing the number of columns."""


class Swatch(QWidget):
    """A 12 px colour sample: ``solid``, ``dashed`` (outline) or ``hatched`` (outlined, hatched)."""

    def __init__(self, color: str, style: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.color, self.style_name = QColor(color), style
        self.setFixedSize(12, 12)

    def paintEvent(self, _event: Any) -> None:
        p = QPainter(self)
        r = self.rect().adjusted(0, 0, -1, -1)
        if self.style_name == "hatched":
            p.fillRect(r, QBrush(self.color, Qt.BrushStyle.BDiagPattern))
            p.setPen(QPen(self.color))
        else:
            p.fillRect(r, self.color)
            pen = QPen(QColor("#6b7280") if self.style_name == "dashed" else self.color)
            if self.style_name == "dashed":
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
        p.drawRect(r)
        p.end()


class ChartLegend(QWidget):
    """Legend entries ``(label, colour, style)`` in a re-flowing grid; ``style`` is ``solid``,
    ``dashed`` or ``hatched`` (``True`` / ``False`` mean dashed / solid)."""

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

    def set_entries(self, entries: list[tuple[str, str, Any]]) -> None:
        """Show ``entries``: ``(label, colour "#rrggbb", style)`` each, in the order given."""
        for w in self._entries:
            self._grid.removeWidget(w)
            w.hide()
            w.deleteLater()
        self._entries, self._labels = [], [e[0] for e in entries]
        for label, color, style in entries:
            entry = QWidget()
            row = QHBoxLayout(entry)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(5)
            swatch = Swatch(color, style if isinstance(style, str) else ("dashed" if style else "solid"))
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

    def height_for(self, entries: int, width: int) -> int:
        """Pixels the legend takes with ``entries`` entries laid out at ``width`` pixels (columns as
        :meth:`_reflow` chooses them, the widest label at least :data:`ENTRY_MIN_PX`)."""
        if entries <= 0:
            return 0
        widest = max([ENTRY_MIN_PX, *(e.sizeHint().width() for e in self._entries)])
        cols = max(1, min(entries, (width - 12) // (widest + 14)))
        rows = -(-entries // cols)
        row = max(12, self.fontMetrics().height())
        margins = self._grid.contentsMargins()
        return rows * row + (rows - 1) * self._grid.verticalSpacing() + margins.top() + margins.bottom()

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

