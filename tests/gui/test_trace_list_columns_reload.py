"""Issue 13, the trace list: calls of one trace told apart (middle-elided ids, the span column),
columns that can be hidden from the header (remembered with the layout), Reload (F5) and the
notice of a database another process changed."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from factories import make_trace
from PySide6.QtCore import Qt

from ctxviewer.gui.column_menu import column_actions
from ctxviewer.gui.main_window import MainWindow
from ctxviewer.gui.reload import CHANGED_TEXT
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.columns import TRACE_COLUMNS, call_part
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
KEYS = [c.key for c in TRACE_COLUMNS]


def open_window(qtbot, windows, db: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    w = windows.new()
    qtbot.waitExposed(w)
    assert w.open_database(db, remember=False)
    windows.shown(w)
    return w


def test_span_part_and_middle_elision(qtbot, windows, tmp_path: Path) -> None:
    class Row:
        trace_id = "b3e700af9eab81e19f72f964d62a35af:39d6e9b3ddec9996"

    assert call_part(Row()) == "39d6e9b3ddec9996"
    Row.trace_id = "budget-8k"
    assert call_part(Row()) == "—"
    db = tmp_path / "spans.db"
    base = make_trace()
    with TraceStore.create(db) as st:
        st.add(with_facts([replace(base, trace_id=f"b3e700af9eab81e19f72f964d62a35af:{span}") for span in
                ("39d6e9b3ddec9996", "6c0201026326855d")]))
    w = open_window(qtbot, windows, db)
    assert w.trace_view.textElideMode() == Qt.TextElideMode.ElideMiddle  # the span part (the end) stays
    call = KEYS.index("call")
    cells = sorted(w.trace_model.data(w.trace_model.index(r, call)) for r in range(2))
    assert cells == ["39d6e9b3ddec9996", "6c0201026326855d"]


def test_columns_hide_from_the_header_and_defaults_fit(qtbot, windows) -> None:
    w = open_window(qtbot, windows, SAMPLES)
    header = w.trace_view.horizontalHeader()
    hidden = [k for c, k in enumerate(KEYS) if header.isSectionHidden(c)]
    assert hidden == ["input_capacity", "worst", "call", "conversation", "span_status", "agent", "cost", "scores"]
    assert w.trace_view.horizontalScrollBar().maximum() == 0  # the shown columns fit the list
    assert header.sectionSize(KEYS.index("trace_id")) >= w.trace_view.fontMetrics().horizontalAdvance(
        "refund-approval-forgotten")
    acts = column_actions(w.trace_view)
    assert [a.text() for a in acts][:3] == ["Time (UTC)", "Trace id", "Model"]
    fm = w.trace_view.fontMetrics()
    model = KEYS.index("model")  # shown by default (issue 27), as wide as "gpt-4o-mini-2024-07-18" can be
    assert header.sectionSize(model) >= fm.horizontalAdvance("x" * 14)
    acts[KEYS.index("input_capacity")].setChecked(True)  # shown by the user: sized to its cells
    col = KEYS.index("input_capacity")
    assert not header.isSectionHidden(col)
    cells = [w.trace_model.data(w.trace_model.index(r, col)) for r in range(w.trace_model.rowCount())]
    assert "14,000 / 16,000" in cells
    assert header.sectionSize(col) >= max(fm.horizontalAdvance(c) for c in cells) + 8  # none elided
    acts[KEYS.index("state")].setChecked(False)
    assert header.isSectionHidden(KEYS.index("state"))
    items = w.item_view.horizontalHeader()
    assert items.isSectionHidden(4)  # Trust starts hidden: the omission reason needs the room
    column_actions(w.item_view)[4].setChecked(True)
    assert not items.isSectionHidden(4)
    column_actions(w.item_view)[3].setChecked(False)  # Source
    assert items.isSectionHidden(3)


def test_reload_and_changed_on_disk_notice(qtbot, windows, tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    shutil.copy(SAMPLES, db)
    w = open_window(qtbot, windows, db)
    windows.select(w, "ticket-injection")
    assert w.trace_model.total == 9
    assert not w.reloader.bar.isVisible()
    with TraceStore.create(db) as st:  # another program imports into it
        st.add(with_facts([replace(make_trace(), trace_id="zz-new-import")]))
    qtbot.waitUntil(w.reloader.bar.isVisible, timeout=5000)
    assert w.reloader.label.text() == CHANGED_TEXT
    assert w.trace_model.total == 9  # nothing changes under the user's feet
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    qtbot.keyClick(w.trace_view, Qt.Key.Key_F5)
    assert w.trace_model.total == 10
    assert windows.shown(w, "ticket-injection").trace_id == "ticket-injection"  # the same trace again
    assert not w.reloader.bar.isVisible()
    assert w.reloader.act_reload.shortcut().toString() == "F5"


def test_model_cell_has_its_full_name_as_tooltip(qtbot, windows) -> None:
    w = open_window(qtbot, windows, SAMPLES)
    model = KEYS.index("model")
    tip = w.trace_model.data(w.trace_model.index(0, model), Qt.ItemDataRole.ToolTipRole)
    assert "gpt-4o-mini-2024-07-18" in tip


def test_span_status_and_agent_columns_show_and_filter(qtbot, windows, tmp_path: Path) -> None:
    """Issue 13: span status (error with its message in the tooltip, never ended) and the agent /
    operation, hideable columns the display filter reads."""
    from ctxviewer.pipeline.importing import import_into

    db = tmp_path / "spans.db"
    import_into(db, [Path(__file__).resolve().parents[1] / "data" / "store" / "schema-3.otlp.json"])
    w = open_window(qtbot, windows, db)
    header = w.trace_view.horizontalHeader()
    status, agent = KEYS.index("span_status"), KEYS.index("agent")
    acts = column_actions(w.trace_view)
    assert [acts[status].text(), acts[agent].text()] == ["Span status", "Agent / operation"]
    acts[status].setChecked(True)
    acts[agent].setChecked(True)
    assert not header.isSectionHidden(status) and not header.isSectionHidden(agent)
    m = w.trace_model
    assert [(m.data(m.index(r, status)), m.data(m.index(r, agent))) for r in range(m.total)] == [
        ("error", "planner \u00b7 chat"), ("never ended", "planner \u00b7 chat"), ("ok", "writer \u00b7 chat")]
    assert "span ended in error: 429 rate limited" in m.data(m.index(0, status), Qt.ItemDataRole.ToolTipRole)
    assert "agent: writer\noperation: chat" in m.data(m.index(2, agent), Qt.ItemDataRole.ToolTipRole)
    w.filter_edit.setText("status == unfinished")
    qtbot.waitUntil(lambda: m.total == 1, timeout=5000)
    assert m.data(m.index(0, KEYS.index("call"))) == "00000000000000b2"
    w.filter_edit.setText('agent == "planner" and not status == error')
    qtbot.waitUntil(lambda: m.total == 1 and m.data(m.index(0, KEYS.index("call"))) == "00000000000000b2",
                    timeout=5000)


def test_a_wide_list_fits_the_model_column_to_the_first_page(qtbot, windows, tmp_path: Path) -> None:
    """Measured from the first page's model names (never Qt's thousand-row size hint, issue 11):
    wide enough for the longest, at most a quarter of the list."""
    db = tmp_path / "models.db"
    long_model = "claude-3-5-sonnet-20241022-with-a-long-deployment-suffix"
    with TraceStore.create(db) as st:
        st.add(with_facts([replace(make_trace(), trace_id="short"),
                replace(make_trace(), trace_id="long",
                        endpoint=replace(make_trace().endpoint, model=long_model))]))
    w = windows.new(size=(2400, 900))
    qtbot.waitExposed(w)
    w.splitter.setSizes([1200, 1200])  # the user widened the list
    col = KEYS.index("model")
    header = w.trace_view.horizontalHeader()
    assert w.trace_view.viewport().width() >= 650
    before = header.sectionSize(col)
    assert w.open_database(db, remember=False)
    windows.shown(w)
    fm = w.trace_view.fontMetrics()
    need = fm.horizontalAdvance(long_model)
    room = w.trace_view.viewport().width() // 4
    assert before < min(need, room)  # the default is narrower: the fit widened it
    assert header.sectionSize(col) == min(room, header.sectionSize(col))
    assert header.sectionSize(col) >= min(need + 6, room)
