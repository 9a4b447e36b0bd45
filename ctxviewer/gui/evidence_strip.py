"""The evidence position strip: the evidence items in request order as bars, width by token share.

Paints :func:`ctxviewer.assess.evidence_positions.evidence_map` (computed in the core): retained items
grey, omitted items pale with a dashed outline, cited items blue, the needed document outlined in
red, and the lost-in-the-middle band shaded behind the retained items it covers. A line of words
under it names the needed document, its place and risk band (so colour is never the only cue).
Clicking a bar emits ``sig_item_clicked(str item_id)``; each bar's tooltip names the item.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QLabel, QToolTip, QVBoxLayout, QWidget

from ctxviewer.assess.evidence_positions import EvidenceMap, EvidencePosition
from ctxviewer.model.trace import Status
from ctxviewer.util.visible import one_line

MIN_BAR = 4.0
"""Narrowest bar in pixels (a tiny item stays visible and clickable)."""


def strip_words(m: EvidenceMap | None) -> str:
    """The line under the strip: needed document, its place, the middle band; or why it is empty."""
    if m is None:
        return "This trace has no evidence items."
    parts = [f"{m.retained_count} evidence item(s) sent, {len(m.entries) - m.retained_count} omitted"]
    if m.middle:
        parts.append(f"middle band: evidence {m.middle[0]}–{m.middle[1]}")
    for e in m.entries:
        if e.needed:
            place = (f"evidence {e.index} of {m.retained_count}, {e.band} band (risk {e.risk})" if e.index
                     else f"omitted ({e.omission_reason or 'reason not recorded'})")
            how = "marked as needed" if m.needed_source == "marked" else "best match with the question"
            parts.append(f"needed: {e.item_id} ({how}) at {place}, {'cited' if e.cited else 'not cited'} by the answer")
    return one_line("; ".join(parts))  # item ids are trace text: invisible characters as markers


class EvidenceStrip(QWidget):
    """The painted strip (see module docstring)."""

    sig_item_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.map: EvidenceMap | None = None
        self.setMinimumHeight(44)
        self.setMouseTracking(True)
        self._rects: list[tuple[QRectF, EvidencePosition]] = []

    def set_map(self, m: EvidenceMap | None) -> None:
        """Paint ``m`` (``None`` clears)."""
        self.map = m
        self._layout()
        self.update()

    def bars(self) -> list[tuple[QRectF, EvidencePosition]]:
        """``(rectangle, entry)`` per painted bar, left to right."""
        return list(self._rects)

    def _layout(self) -> None:
        self._rects = []
        if self.map is None or not self.map.entries:
            return
        width = max(1.0, self.width() - 8.0)
        shares = [e.share if e.share is not None else 1.0 / len(self.map.entries) for e in self.map.entries]
        total = sum(max(s * width, MIN_BAR) for s in shares)
        x = 4.0
        for e, s in zip(self.map.entries, shares):
            w = max(s * width, MIN_BAR) * width / total
            self._rects.append((QRectF(x, 14.0, max(1.0, w - 1.0), self.height() - 20.0), e))
            x += w

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self._layout()
        super().resizeEvent(event)

    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#ffffff"))
        if self.map is None:
            return
        mids = [r for r, e in self._rects if e.band == "middle"]
        if mids:
            band = QRectF(mids[0].left(), 2.0, mids[-1].right() - mids[0].left(), self.height() - 4.0)
            p.fillRect(band, QColor(245, 158, 11, 60))
            p.setPen(QColor("#92400e"))
            p.drawText(band.adjusted(2, 0, 0, 0), Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft, "middle")
        for r, e in self._rects:
            if e.status is Status.OMITTED:
                p.setPen(QPen(QColor("#6b7280"), 1, Qt.PenStyle.DashLine))
                p.setBrush(QBrush(QColor("#f3f4f6")))
            else:
                p.setPen(QPen(QColor("#4b5563"), 1))
                p.setBrush(QBrush(QColor("#2563eb") if e.cited else QColor("#9ca3af")))
            p.drawRect(r)
            if e.needed:
                p.setPen(QPen(QColor("#b91c1c"), 3))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(r.adjusted(-1, -1, 1, 1))
        p.end()

    def _entry_at(self, x: float, y: float) -> EvidencePosition | None:
        for r, e in self._rects:
            if r.left() <= x <= r.right() + 1 and 0 <= y <= self.height():
                return e
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        e = self._entry_at(event.position().x(), event.position().y())
        if e is not None:
            where = f"evidence {e.index}, position {e.position}, {e.band} band" if e.index else f"omitted ({e.omission_reason})"
            extra = ", ".join(x for x in ("cited" if e.cited else "", "needed" if e.needed else "") if x)
            tip = f"{e.item_id}: {where}; {e.tokens if e.tokens is not None else '?'} tokens" + (f"; {extra}" if extra else "")
            QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        e = self._entry_at(event.position().x(), event.position().y())
        if e is not None:
            self.sig_item_clicked.emit(e.item_id)
        super().mousePressEvent(event)


class EvidencePanel(QWidget):
    """The strip, a legend and the words under it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.strip = EvidenceStrip()
        self.legend = QLabel("bars in request order, width = share of evidence tokens:  grey sent · blue cited by "
                             "the answer · dashed omitted · red outline needed · shaded = middle band (lost-in-the-middle risk)")
        self.words = QLabel()
        for lab in (self.legend, self.words):
            lab.setTextFormat(Qt.TextFormat.PlainText)
            lab.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.strip, 1)
        lay.addWidget(self.words)
        lay.addWidget(self.legend)

    def set_map(self, m: EvidenceMap | None) -> None:
        """Show ``m`` (``None``: no evidence)."""
        self.strip.set_map(m)
        self.words.setText(strip_words(m))
