"""Selecting a trace off the GUI thread (issue 11: "open the 1M database, jump to its end, filter
and search without the window ever stopping"). The window's one selection path loads, derives and
assesses the selected trace in a worker: the window paints the list first, then the trace's items,
then its header, chart and findings; a newer selection wins."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from ctxviewer.gui.main_window import MainWindow
from ctxviewer.model.findings import Severity

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
SHOWN_MS = 30_000


@pytest.fixture
def window(windows) -> MainWindow:  # type: ignore[no-untyped-def]
    return windows.new()


def test_list_first_then_items_then_the_exact_assessment(qtbot, window: MainWindow) -> None:
    w = window
    at_items: dict[str, object] = {}

    def on_loaded(trace: object) -> None:  # after the window painted the items, before the checks' result
        at_items.update(trace=w.trace.trace_id, items=w.item_model.rowCount(), assessing=w.panel.assessing,
                        chart=w.chart.empty_label.text(), empty=w.chart.is_empty(), header=w.detail.rows(),
                        findings_tab=w.panel.tabs.widget.tabText(2), content=w.panel.content_title.text())

    w.loader.sig_loaded.connect(on_loaded)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=SHOWN_MS) as shown:
        assert w.open_database(SAMPLES, remember=False)
        # the call returns with the list painted and the first trace asked for, nothing assessed yet
        assert w.trace_model.rowCount() == 9 and w.trace is None and w.loader.wanted == "history-16k"
        assert w.chart.is_empty() and w.chart.empty_label.text() == "Loading history-16k…"
    assert shown.args == ["history-16k"]
    assert at_items == {"trace": "history-16k", "items": 86, "assessing": True, "chart": "Assessing 86 items…",
                        "empty": True, "header": [], "findings_tab": "Findings (0)",
                        "content": at_items["content"]}
    assert at_items["content"]  # the first item's content is shown at once
    # then the assessment: eq. 3.1 verdict, findings, header
    a = w.panel.assessment
    assert a is not None and not w.panel.assessing
    assert [f.rule for f in a.findings] == ["budget.over_capacity", "accounting.count_mismatch", "budget.over_before_trim"]
    assert [f.severity for f in a.findings] == [Severity.FAILURE, Severity.WARNING, Severity.INFO]
    assert w.chart.state() == "✖ FAILURE" and not w.chart.is_empty()
    assert "348" in w.chart.verdict()  # over capacity by 348 tokens (provider-reported input)
    assert w.panel.tabs.widget.tabText(2).startswith("Findings") and w.panel.tabs.widget.tabText(2) != "Findings (0)"
    assert dict(w.detail.rows())  # the header rows are there now


def test_a_newer_selection_wins(qtbot, windows, window: MainWindow) -> None:
    w = window
    assert w.open_database(SAMPLES, remember=False)
    windows.shown(w)
    shown: list[str] = []
    assessed: list[str] = []
    w.sig_trace_selected.connect(shown.append)
    w.panel.sig_assessed.connect(assessed.append)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=SHOWN_MS) as done:
        w.select_trace("policy-missing")
        w.select_trace("ticket-injection")  # before policy-missing has arrived
    assert done.args == ["ticket-injection"]
    assert w.trace.trace_id == "ticket-injection" and shown == ["ticket-injection"] and assessed == ["ticket-injection"]
    assert w.item_model.rowCount() == 9
    a = w.panel.assessment
    assert a is not None
    assert sorted(f.rule for f in a.findings) == [
        "injection.action_linkage", "injection.hidden", "injection.hidden", "injection.hidden",
        "injection.override", "injection.tool_request", "tool.unsafe_blocked"]
    assert w.chart.state() == "⚠ WARNING"
    sel = w.trace_view.currentIndex()
    assert w.trace_model.trace_id(sel.row()) == "ticket-injection"  # the list agrees


def test_keys_held_down_show_only_the_last_row(qtbot, windows, window: MainWindow) -> None:
    w = window
    assert w.open_database(SAMPLES, remember=False)
    windows.shown(w)
    loaded: list[str] = []
    w.loader.sig_loaded.connect(lambda t: loaded.append(t.trace_id))
    with qtbot.waitSignal(w.sig_trace_shown, timeout=SHOWN_MS) as done:
        for row in range(1, 9):  # like holding the Down key: eight selections before any arrives
            w.select_row(row)
    assert done.args == ["json-unsupported"]
    assert w.trace.trace_id == "json-unsupported" == w.trace_model.trace_id(8)
    assert loaded[-1] == "json-unsupported" and len(loaded) <= 2  # the one running when asked, then the last


def test_unknown_trace_and_close_while_loading(window: MainWindow) -> None:
    w = window
    assert w.open_database(SAMPLES, remember=False)
    with pytest.raises(KeyError):
        w.select_trace("no-such-trace")
    w.select_trace("budget-8k")
    w.close()  # waits for the running job; nothing arrives afterwards
    assert not w.loader.pending and w.store is None


def test_search_hit_opens_its_trace_with_the_item_selected(qtbot, windows, window: MainWindow) -> None:
    w = window
    assert w.open_database(SAMPLES, remember=False)
    windows.shown(w)
    hits = [h for h in w.store.search_hits("ignore previous") if h.trace_id == "ticket-injection"]
    assert [h.item_id for h in hits] == ["TCK-58213"]
    with qtbot.waitSignal(w.sig_trace_shown, timeout=SHOWN_MS):
        w.search.open_hit(hits[0], "ignore previous")
    assert w.trace.trace_id == "ticket-injection"
    item = w.panel.items.current_item()
    assert item is not None and item.id == "TCK-58213"
    marked = [s.cursor.selectedText() for s in w.content.extraSelections()]
    assert [m.lower() for m in marked] == ["ignore", "previous"]


def test_the_shown_window_pays_the_first_trace_costs_in_a_worker(qtbot, tmp_path: Path, monkeypatch) -> None:
    """While the user looks at the empty window (issue 11): warm_up.first_trace, off the GUI thread, once."""
    import threading

    from ctxviewer.gui import main_window

    threads: list[str] = []
    monkeypatch.setattr(main_window, "first_trace", lambda: threads.append(threading.current_thread().name))
    monkeypatch.setattr(main_window, "WARM_UP", f"first trace {tmp_path}")  # a key of this test's own
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: bool(threads), timeout=10_000)
    w.hide()
    w.show()
    qtbot.wait(50)
    assert threads == [f"warm-up first trace {tmp_path}"]
