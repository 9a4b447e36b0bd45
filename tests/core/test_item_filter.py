"""Issue 13: the item table's filter (kind, status, text) and the way to the next omitted item."""

from __future__ import annotations

from factories import make_trace

from ctxviewer.model.trace import Kind, Status
from ctxviewer.present.columns import ITEM_COLUMNS, column
from ctxviewer.present.item_filter import ItemFilter, step_to


def ids(f: ItemFilter) -> list[str]:
    return [i.id for i in make_trace().items if f.matches(i)]


def test_filter_by_kind_status_and_text() -> None:
    assert not ItemFilter().active
    assert ids(ItemFilter()) == ["policy", "turn-0", "turn-1", "ev-order-4471", "ev-shipping-delays",
                                 "tool-lookup_order", "user"]
    assert ids(ItemFilter(kind=Kind.EVIDENCE)) == ["ev-order-4471", "ev-shipping-delays"]
    assert ids(ItemFilter(status=Status.OMITTED)) == ["ev-shipping-delays"]
    assert ids(ItemFilter(text="BUDGET")) == ["ev-shipping-delays"]  # the omission reason, any case
    assert ids(ItemFilter(text="turn")) == ["turn-0", "turn-1"]
    assert ids(ItemFilter(kind=Kind.HISTORY, status=Status.OMITTED)) == []
    assert ItemFilter(text="  ").active is False


def test_step_to_wraps_and_skips() -> None:
    flags = [False, True, False, False, True, False]
    assert step_to(flags, -1, 1) == 1
    assert step_to(flags, 1, 1) == 4
    assert step_to(flags, 4, 1) == 1  # wraps
    assert step_to(flags, 1, -1) == 4  # wraps backwards
    assert step_to(flags, -1, -1) == 4
    assert step_to([True], 0, 1) == 0
    assert step_to([False, False], 0, 1) is None
    assert step_to([], -1, 1) is None


def test_numeric_columns_sort_numbers_with_unknown_last() -> None:
    items = make_trace().items
    tokens = column(ITEM_COLUMNS, "tokens")
    assert tokens.sort_value is not None
    order = sorted(items, key=tokens.sort_value)
    assert [i.tokens for i in order] == sorted(i.tokens for i in items if i.tokens is not None)
    pos = column(ITEM_COLUMNS, "position")
    assert pos.sort_value is not None and pos.sort_value(items[4]) == (1, 0.0)  # omitted: no position, last
