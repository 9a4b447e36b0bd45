"""Table-view helpers shared by the trace list and the item table."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from ctxviewer.present.columns import Column


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


def plain_tooltip(text: str | None) -> str | None:
    """``text`` made safe for a tooltip. Qt shows a tooltip as rich text whenever it *looks* like
    markup, so untrusted text (ids, omission reasons) is HTML-escaped inside a pre-wrap paragraph:
    it then displays literally, exactly as written."""
    if not text:
        return None
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"

