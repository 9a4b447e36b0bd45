"""The window at 1280x800 and 1920x1080 (issue 27 item 1): every pane shows enough rows to use
(Findings at least five), the trace list's columns sized to their cells, the chart one fixed
height for every trace, and every window closable from the keyboard (Esc / Ctrl+W)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication

from ctxviewer.gui.findings_panel import FindingsPanel
from ctxviewer.gui.trace_panel import TABS_MIN_ROWS
from ctxviewer.present.columns import TRACE_COLUMNS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
KEYS = [c.key for c in TRACE_COLUMNS]


def activate(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """Make ``window`` the active window, with a focus widget inside it (keys go there)."""
    window.raise_()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window and QApplication.focusWidget() is not None
                    and QApplication.focusWidget().window() is window, timeout=3000)


def _rows_visible(view) -> int:  # type: ignore[no-untyped-def]
    return view.viewport().height() // max(1, view.sizeHintForRow(0))


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_findings_items_and_chart_at_both_sizes(qtbot, windows, size: tuple[int, int]) -> None:
    w = windows.open(SAMPLES, size=size)
    heights = {}
    for trace_id in ("ticket-injection", "history-16k", "budget-8k", "json-unsupported"):
        windows.select(w, trace_id)
        qtbot.wait(50)  # the header and the chart laid out
        heights[trace_id] = w.chart.height()
        if trace_id == "ticket-injection":  # 7 findings in one group: 8 rows
            fp = w.findChild(FindingsPanel)
            assert fp.isVisible()
            assert TABS_MIN_ROWS + 1 == 6  # the group and five findings, once the layout has settled
            qtbot.waitUntil(lambda fp=fp: _rows_visible(fp.view) >= 6, timeout=5000)
            # its verdict is longer than two lines at 1280 px: elided there, said in full in the tooltip
            assert w.chart.verdict().startswith("fits, 4,503 tokens margin; issue_refund call")
            shown = w.chart.verdict_label.text()
            if shown != w.chart.verdict():
                assert shown.endswith("…") and w.chart.verdict().startswith(shown[:-1].rstrip())
                assert "issue_refund call" in w.chart.verdict_label.toolTip()
    assert len(set(heights.values())) == 1, heights  # the chart never jumps between traces
    w.panel.tabs.widget.setCurrentIndex(0)  # Items
    qtbot.wait(20)
    assert _rows_visible(w.item_view) >= 6


@pytest.mark.slow
def test_trace_list_columns_fit_their_cells_at_1280(qtbot, windows) -> None:
    w = windows.open(SAMPLES)
    header, fm, m = w.trace_view.horizontalHeader(), w.trace_view.fontMetrics(), w.trace_model
    shown = [k for c, k in enumerate(KEYS) if not header.isSectionHidden(c)]
    assert shown == ["created", "trace_id", "model", "retained_omitted", "state"]
    assert w.trace_view.horizontalScrollBar().maximum() == 0  # no sideways scrolling
    for key in ("created", "trace_id", "retained_omitted", "state"):  # never elided on the samples
        col = KEYS.index(key)
        widest = max(fm.horizontalAdvance(str(m.data(m.index(r, col)))) for r in range(m.rowCount()))
        assert header.sectionSize(col) >= widest + 4, key
    model = KEYS.index("model")  # elided at the right (its family stays), its full name in the tooltip
    from ctxviewer.gui.tables import ElideDelegate

    delegate = w.trace_view.itemDelegateForColumn(model)
    assert isinstance(delegate, ElideDelegate) and delegate._mode == Qt.TextElideMode.ElideRight
    assert not isinstance(w.trace_view.itemDelegateForColumn(KEYS.index("trace_id")), ElideDelegate)
    assert m.data(m.index(0, model), Qt.ItemDataRole.ToolTipRole) is not None
    assert "gpt-4o-mini-2024-07-18" in str(m.data(m.index(0, model), Qt.ItemDataRole.ToolTipRole))


@pytest.mark.slow
def test_every_window_closes_from_the_keyboard(qtbot, windows) -> None:
    w = windows.open(SAMPLES)
    for key, mod in ((Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier),
                     (Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)):
        w.whatif.open()
        panel = w.whatif.panel
        activate(qtbot, panel)
        qtbot.keyClick(QApplication.focusWidget(), key, mod)
        assert not panel.isVisible(), key
    w.trace_view.selectRow(0)
    dw = w.compare.open_diff(w.trace, w.trace)
    activate(qtbot, dw)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: dw not in w.compare.windows, timeout=3000)  # closed and deleted
    dlg = w.show_shortcuts()
    activate(qtbot, dlg)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert not dlg.isVisible()
    assert w.act_close.shortcut() == QKeySequence("Ctrl+W")
    activate(qtbot, w)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert not w.isVisible()


def test_item_content_gets_the_larger_default_share_below_the_tabs(qtbot, windows) -> None:
    from ctxviewer.gui.trace_panel import CONTENT_WIDTH_SHARE, TABS_SHARE

    assert (TABS_SHARE, CONTENT_WIDTH_SHARE) == (0.45, 50)
    w = windows.open(SAMPLES, size=(1920, 1080))
    windows.select(w, "ticket-injection")
    w.apply_default_sizes()
    tabs, below = w.panel.splitter.sizes()
    assert below > tabs >= w.panel.tabs_min_height()  # the content and the answer: 55 % of the height
    assert below - int((tabs + below) * (1 - TABS_SHARE)) in (0, 1)
    content, answer = w.panel.bottom.sizes()
    assert abs(content - answer) <= 1  # half the width: the item's heading fits a line
    w.resize(1280, 800)
    w.apply_default_sizes()
    assert w.panel.splitter.sizes()[0] >= w.panel.tabs_min_height()  # the findings keep their rows
