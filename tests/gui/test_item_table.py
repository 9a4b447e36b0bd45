"""Issue 13: the item table sorts by any column, filters by kind / status / text, has "omitted
only" and next / previous omitted item on the keyboard (F8 / Shift+F8); ids elide in the middle
and every cell's tooltip holds its full text."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from ctxviewer.gui.main_window import MainWindow
from ctxviewer.model.trace import Kind, Status

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
TOKENS, STATUS, REASON, ID = 6, 7, 8, 2


def open_on(qtbot, windows, trace_id: str) -> MainWindow:  # type: ignore[no-untyped-def]
    w = windows.new()
    qtbot.waitExposed(w)
    assert w.open_database(SAMPLES)
    windows.select(w, trace_id)
    return w


def shown(w: MainWindow, col: int) -> list[str]:
    p = w.panel.items.proxy
    return [p.data(p.index(r, col)) for r in range(p.rowCount())]


def test_sort_by_tokens_and_back_to_final_order(qtbot, qtmodeltester, windows) -> None:
    w = open_on(qtbot, windows, "json-unsupported")
    final = shown(w, ID)
    qtmodeltester.check(w.panel.items.proxy)
    w.item_view.sortByColumn(TOKENS, Qt.SortOrder.DescendingOrder)
    tokens = [int(t.replace(",", "")) for t in shown(w, TOKENS)]
    assert tokens == sorted(tokens, reverse=True) and tokens[0] == 800
    w.item_view.sortByColumn(STATUS, Qt.SortOrder.AscendingOrder)
    assert shown(w, STATUS)[0] == "omitted"
    w.item_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # Pos: final order, omitted last
    assert shown(w, ID)[: len(final) - 1] == [i for i in final if i != "KB-1013"]
    assert shown(w, ID)[-1] == "KB-1013"


def test_omitted_only_kind_and_text_filters(qtbot, windows) -> None:
    w = open_on(qtbot, windows, "refund-approval-forgotten")
    items = w.panel.items
    assert items.proxy.rowCount() == 20
    w.trace_actions.act_omitted_only.trigger()
    assert items.omitted_only.isChecked() and items.current_filter().status is Status.OMITTED
    assert shown(w, ID) == ["turn-00", "turn-01", "turn-02", "turn-03", "KB-1009"]
    assert shown(w, REASON) == ["window", "window", "window", "window", "rank"]
    assert items.count.text() == "5 of 20 shown · 5 omitted"
    items.kind.setCurrentIndex(items.kind.findData(Kind.HISTORY.value))
    assert shown(w, ID) == ["turn-00", "turn-01", "turn-02", "turn-03"]
    items.omitted_only.setChecked(False)
    assert not w.trace_actions.act_omitted_only.isChecked()
    items.kind.setCurrentIndex(0)
    items.text.setText("rank")
    assert shown(w, ID) == ["KB-1009"]
    # selecting a hidden item (e.g. from a finding) clears the filter
    assert w.panel.select_item("turn-05")
    assert items.proxy.rowCount() == 20 and items.current_item().id == "turn-05"


def test_next_and_previous_omitted_on_the_keyboard(qtbot, windows) -> None:
    w = open_on(qtbot, windows, "refund-approval-forgotten")
    w.panel.tabs.widget.setCurrentWidget(w.panel.items)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    w.panel.items.select_item("policy")
    w.item_view.setFocus()
    qtbot.keyClick(w.item_view, Qt.Key.Key_F8)
    assert w.panel.items.current_item().id == "turn-00"
    assert w.panel.content_title.text().startswith("turn-00 — history")
    qtbot.keyClick(w.item_view, Qt.Key.Key_F8)
    assert w.panel.items.current_item().id == "turn-01"
    qtbot.keyClick(w.item_view, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
    assert w.panel.items.current_item().id == "turn-00"
    qtbot.keyClick(w.item_view, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
    assert w.panel.items.current_item().id == "KB-1009"  # wraps to the last omitted item
    assert w.trace_actions.act_next_omitted.shortcut().toString() == "F8"


def test_json_unsupported_omitted_item_is_one_key_away(qtbot, windows) -> None:
    """The one omitted item that caused the failure, below the fold at 1280×800, is reachable."""
    w = open_on(qtbot, windows, "json-unsupported")
    w.trace_actions.act_next_omitted.trigger()
    item = w.panel.items.current_item()
    assert (item.id, item.omission_reason) == ("KB-1013", "rank")
    assert w.panel.tabs.widget.currentWidget() is w.panel.items


def test_middle_elided_ids_and_full_text_tooltips(qtbot, windows) -> None:
    w = open_on(qtbot, windows, "ticket-injection")
    assert w.item_view.textElideMode() == Qt.TextElideMode.ElideMiddle
    p = w.panel.items.proxy
    row = p.row_of("tool:handoff_to_agent")
    assert row is not None
    tip = p.data(p.index(row, ID), Qt.ItemDataRole.ToolTipRole)
    assert "tool:handoff_to_agent" in tip
    tokens_tip = p.data(p.index(row, TOKENS), Qt.ItemDataRole.ToolTipRole)
    assert "115" in tokens_tip and "tokens, recorded" in tokens_tip
    w2 = open_on(qtbot, windows, "policy-missing")
    p2 = w2.panel.items.proxy
    reasons = [(p2.data(p2.index(r, REASON)), p2.data(p2.index(r, REASON), Qt.ItemDataRole.ToolTipRole))
               for r in range(p2.rowCount()) if p2.data(p2.index(r, STATUS)) == "omitted"]
    assert reasons and all(text in tip for text, tip in reasons)
    assert reasons[0][0] == "unavailable: support-policy@2026-10-03 not found in the policy store"


def test_words_are_not_clipped(qtbot, windows) -> None:
    """``not…ded`` / ``not …rded`` (tokens and priority not recorded), ``tool:canc…rder_item``."""
    w = open_on(qtbot, windows, "policy-missing")
    view, fm = w.item_view, w.item_view.fontMetrics()
    header = view.horizontalHeader()
    p = w.panel.items.proxy
    for col in (5, 6):  # Priority, Tokens
        texts = {p.data(p.index(r, col)) for r in range(p.rowCount())}
        assert "not recorded" in texts or col == 5
        assert header.sectionSize(col) >= max(fm.horizontalAdvance(t) for t in texts) + 6
    windows.select(w, "history-16k")  # its tool results: "history (tool result)" was "hist…ult)"
    kinds = {p.data(p.index(r, 1)) for r in range(p.rowCount())}
    assert "history (tool result)" in kinds
    assert header.sectionSize(1) >= max(fm.horizontalAdvance(t) for t in kinds) + 6
    windows.select(w, "budget-8k")
    ids = [p.data(p.index(r, ID)) for r in range(p.rowCount())]
    longest = max(ids, key=fm.horizontalAdvance)
    assert longest == "tool:ship_replacement_part"
    assert header.sectionSize(ID) >= fm.horizontalAdvance(longest) + 6


def test_counter_says_what_the_trace_list_says_where_omissions_are_not_recorded(qtbot) -> None:
    from dataclasses import replace

    from factories import make_trace

    from ctxviewer.gui.item_table import ItemTable
    from ctxviewer.gui.item_table_model import ItemTableModel
    from ctxviewer.present.columns import retained_omitted

    model = ItemTableModel()
    table = ItemTable(model)
    qtbot.addWidget(table)
    native = make_trace()  # records omissions: one omitted evidence item
    model.set_trace(native)
    assert table.count.text() == "1 omitted" and table.next_btn.isEnabled()
    otel = replace(native, omissions_recorded=False, items=tuple(i for i in native.items if i.status is Status.RETAINED))
    model.set_trace(otel)  # an OTel / Langfuse trace: only what was sent
    assert table.count.text() == "omitted not recorded"
    assert not table.prev_btn.isEnabled() and not table.next_btn.isEnabled()

    class Row:  # the trace list's row of that trace
        retained_count, omitted_count, omissions_recorded = 4, 0, False

    assert retained_omitted(Row()) == "4 / not recorded"  # type: ignore[arg-type]
    model.set_trace(replace(native, omissions_recorded=False))  # a reranker's drop the format did record
    assert table.count.text() == "≥1 omitted"
    Row.omitted_count = 1
    assert retained_omitted(Row()) == "4 / ≥1"  # type: ignore[arg-type]
    table.kind.setCurrentIndex(table.kind.findData(Kind.EVIDENCE.value))
    assert table.count.text() == "2 of 7 shown · ≥1 omitted"
