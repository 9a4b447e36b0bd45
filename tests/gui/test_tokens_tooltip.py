"""The item table's Tokens cell tells where the count came from (issue 5: token provenance)."""

from __future__ import annotations

from dataclasses import replace

from factories import make_trace
from PySide6.QtCore import Qt

from ctxviewer.gui.item_table_model import ItemTableModel
from ctxviewer.gui.tables import plain_tooltip
from ctxviewer.model.trace import TokenProvenance, TokenSource

TOKENS = 6  # column index of "Tokens"


def test_tokens_tooltip_names_the_provenance() -> None:
    items = make_trace().items
    counted = replace(items[0], tokens_provenance=TokenProvenance(TokenSource.COUNTED, "cl100k_base"))
    model = ItemTableModel(make_trace(items=(counted, *items[1:])))
    assert model.headerData(TOKENS, Qt.Orientation.Horizontal) == "Tokens"
    tip = Qt.ItemDataRole.ToolTipRole
    assert model.data(model.index(0, TOKENS), tip) == plain_tooltip("50 tokens, counted with cl100k_base")
    assert model.data(model.index(1, TOKENS), tip) == plain_tooltip("16 tokens, recorded (cl100k_base)")
