"""ItemTableModel: final order, statuses, and the distinct style of omitted items."""

from __future__ import annotations

from factories import make_rich_trace, make_trace
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont

from ctxviewer.gui.item_table_model import ItemIdRole, ItemRole, ItemTableModel, OmittedRole
from ctxviewer.present.columns import DASH


def test_rows_in_final_order_with_status(qtmodeltester) -> None:
    trace = make_trace()
    model = ItemTableModel(trace)
    qtmodeltester.check(model)
    assert model.rowCount() == 7 and model.columnCount() == 9
    ids = [model.data(model.index(r, 0), ItemIdRole) for r in range(7)]
    assert ids == ["policy", "turn-0", "turn-1", "ev-order-4471", "ev-shipping-delays", "tool-lookup_order", "user"]
    positions = [model.data(model.index(r, 0)) for r in range(7)]
    assert positions == ["1", "2", "3", "4", DASH, "5", "6"]
    statuses = [model.data(model.index(r, 7)) for r in range(7)]
    assert statuses == ["retained"] * 4 + ["omitted"] + ["retained"] * 2
    assert [model.data(model.index(r, 8)) for r in range(7)] == [DASH] * 4 + ["budget"] + [DASH] * 2
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(9)] == [
        "Pos", "Kind", "Id", "Source", "Trust", "Priority", "Tokens", "Status", "Omission reason"]
    assert model.data(model.index(3, 6)) == str(trace.items[3].tokens)
    assert model.data(model.index(4, 0), ItemRole) is trace.items[4]


def test_omitted_rows_are_grey_italic_with_reason_tooltip() -> None:
    model = ItemTableModel(make_trace())
    omitted, kept = 4, 3
    for col in range(9):
        fg = model.data(model.index(omitted, col), Qt.ItemDataRole.ForegroundRole)
        font = model.data(model.index(omitted, col), Qt.ItemDataRole.FontRole)
        assert isinstance(fg, QBrush) and fg.color().name() == "#6b7280"
        assert isinstance(font, QFont) and font.italic()
        assert "budget" in model.data(model.index(omitted, col), Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(kept, 0), Qt.ItemDataRole.ForegroundRole) is None
    assert model.data(model.index(kept, 0), Qt.ItemDataRole.FontRole) is None
    assert model.data(model.index(omitted, 0), OmittedRole) is True
    assert model.data(model.index(kept, 0), OmittedRole) is False


def test_set_trace_and_clear(qtmodeltester) -> None:
    model = ItemTableModel()
    assert model.rowCount() == 0
    model.set_trace(make_rich_trace())
    qtmodeltester.check(model)
    assert [model.data(model.index(r, 8)) for r in range(model.rowCount())].count("rank") == 1
    assert model.row_of("mem-refund-rule") == 3
    model.set_trace(None)
    assert model.rowCount() == 0
    assert model.data(model.index(0, 0)) is None


def test_untrusted_tooltip_is_escaped() -> None:
    from dataclasses import replace

    trace = make_trace()
    items = list(trace.items)
    items[4] = replace(items[4], omission_reason="<b>budget</b>")
    model = ItemTableModel(replace(trace, items=tuple(items)))
    tip = model.data(model.index(4, 0), Qt.ItemDataRole.ToolTipRole)
    assert "<b>" not in tip and "&lt;b&gt;budget&lt;/b&gt;" in tip
