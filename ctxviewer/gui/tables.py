"""Table-view helpers shared by the trace list and the item table."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
)

from ctxviewer.present.columns import Column
from ctxviewer.util.visible import reveal


def make_table(model: object, elide: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> QTableView:
    """A read-only, single-row-selection table view over ``model`` with compact rows."""
    view = QTableView()
    view.setModel(model)  # type: ignore[arg-type]
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setTextElideMode(elide)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.horizontalHeader().setHighlightSections(False)
    return view


ELIDE_RIGHT_KEYS = frozenset({"model", "source"})
"""Columns whose start tells rows apart (``gpt-4o-mini-…``, ``policy:support-…``): elided at the
right, where the view elides ids in the middle (the span part at their end stays)."""


class ElideDelegate(QStyledItemDelegate):
    """Paints its column's cells elided with ``mode`` instead of the view's elide mode."""

    def __init__(self, mode: Qt.TextElideMode, parent: QTableView) -> None:
        super().__init__(parent)
        self._mode = mode

    def initStyleOption(self, option: QStyleOptionViewItem, index: Any) -> None:  # Qt override
        """The view's options, with this column's elide mode."""
        super().initStyleOption(option, index)
        option.textElideMode = self._mode


def elide_right(view: QTableView, columns: tuple[Column[Any], ...]) -> None:
    """Elide the :data:`ELIDE_RIGHT_KEYS` columns of ``view`` at the right (their tooltips hold the
    full text)."""
    for c, col in enumerate(columns):
        if col.key in ELIDE_RIGHT_KEYS:
            view.setItemDelegateForColumn(c, ElideDelegate(Qt.TextElideMode.ElideRight, view))


def size_columns(view: QTableView, columns: tuple[Column[Any], ...], stretch_key: str) -> None:
    """Give each column a comfortable width (``Column.width_chars``, at least its header) and
    let the ``stretch_key`` column take the rest of the view's width."""
    fm = view.fontMetrics()
    header = view.horizontalHeader()
    for i, col in enumerate(columns):
        title = max(col.title.replace(" / ", " /\n").split("\n"), key=fm.horizontalAdvance)
        width = max(fm.horizontalAdvance("x" * col.width_chars), fm.horizontalAdvance(title) + 14)
        header.resizeSection(i, width + 10)
        if col.key == stretch_key:
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.Stretch)


FIT_CAP_CHARS: dict[str, int | None] = {"created": None, "model": 14, "agent": 20, "call": 16,
                                         "conversation": 14, "span_status": 12}
"""At most this many characters' width for a column sized to its content (the rest elides, with
the full text in the cell's tooltip; ``None``: never capped, e.g. the fixed-width time), or a
quarter of a view over 600 px wide if that is more; a column not named here is capped at a
quarter of the view."""


def fit_columns_to_content(view: QTableView, columns: tuple[Column[Any], ...], stretch_key: str,
                           rows: int, only: int | None = None) -> None:
    """Size each shown column of ``view`` (all but the ``stretch_key`` one, which takes the rest)
    to the widest of its title and its first ``rows`` rows' texts, capped by :data:`FIT_CAP_CHARS`
    or a quarter of the view's width. ``only``: size just that column (one the user showed).
    Reads ``rows`` cells per column (the first page), never the whole model."""
    header, model = view.horizontalHeader(), view.model()
    fm = view.fontMetrics()
    margin = 2 * view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 8
    n = min(rows, model.rowCount())
    for c, col in enumerate(columns):
        if col.key == stretch_key or header.isSectionHidden(c) or (only is not None and c != only):
            continue
        title = max(col.title.replace(" / ", " /\n").split("\n"), key=fm.horizontalAdvance)
        texts = {str(model.data(model.index(r, c)) or "") for r in range(n)}
        want = max([fm.horizontalAdvance(title) + 8, *(fm.horizontalAdvance(t) for t in texts)]) + margin
        chars = FIT_CAP_CHARS.get(col.key, 0)
        quarter = view.viewport().width() // 4
        cap = (want if chars is None else max(fm.horizontalAdvance("x" * chars) + margin, quarter if quarter >= 150 else 0)
               if chars else max(80, quarter))
        header.resizeSection(c, min(want, cap))


def plain_tooltip(text: str | None) -> str | None:
    """``text`` made safe for a tooltip. Qt shows a tooltip as rich text whenever it *looks* like
    markup, so untrusted text (ids, omission reasons) is HTML-escaped inside a pre-wrap paragraph:
    it then displays literally, exactly as written -- with invisible and control characters shown
    as markers (:func:`ctxviewer.util.visible.reveal`; line breaks kept), as in every cell."""
    if not text:
        return None
    return f"<p style='white-space:pre-wrap'>{html.escape(reveal(text).text)}</p>"

