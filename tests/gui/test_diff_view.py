"""DiffView, its model, chart and word-diff panes, and opening it from the main window (issue 8)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace, moved_after_the_evidence
from otlp_factories import CONVERSATION_TURNS, otlp_request, three_call_spans
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from ctxviewer.diff import diff_traces
from ctxviewer.gui import thresholds
from ctxviewer.gui.diff_model import ChangeRole, DiffItemModel, EvidenceOrderModel, ItemDiffRole
from ctxviewer.gui.diff_text import DELETED, INSERTED, TextDiffPane
from ctxviewer.gui.diff_view import DiffView, DiffWindow
from ctxviewer.gui.main_window import MainWindow
from ctxviewer.pipeline.importing import import_files
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore

SAMPLES_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture(scope="module")
def replay_pair():
    with TraceStore.open(SAMPLES_DB) as store:
        return store.load("budget-8k"), store.load("budget-8k-replay")


def test_model_rows_symbols_and_colours(qtmodeltester, replay_pair) -> None:
    model = DiffItemModel(diff_traces(*replay_pair))
    qtmodeltester.check(model)
    assert model.rowCount() == 25 and model.columnCount() == 9
    assert model.change_rows() == [18, 23]
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(9)]
    assert headers == ["A pos", "A item", "A tokens", "Change", "B pos", "B item", "B tokens", "B status", "What changed"]
    row = [model.data(model.index(23, c)) for c in range(9)]
    assert row == ["20", "KB-1004", "361", "↕^ moved #2, priority", "24", "KB-1004", "361", "retained",
                   "moved 20 → 24 (#2); priority 70 → 50"]
    assert model.data(model.index(18, 3)) == "↕ moved #1"
    assert model.data(model.index(0, 3)) == "= unchanged"
    assert model.data(model.index(23, 0), ChangeRole) == "moved"
    assert model.data(model.index(23, 0), ItemDiffRole).id == "KB-1004"
    assert model.data(model.index(23, 0), Qt.ItemDataRole.BackgroundRole).color() == QColor("#dbeafe")
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert model.data(model.index(99, 0)) is None


def test_evidence_order_model(qtmodeltester, replay_pair) -> None:
    model = EvidenceOrderModel(diff_traces(*replay_pair))
    qtmodeltester.check(model)
    rows = [[model.data(model.index(r, c)) for c in range(model.columnCount())] for r in range(model.rowCount())]
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Document", "Needed", "A rank", "B rank", "A pos", "B pos", "A band", "B band", "In B"]
    assert rows[2] == ["PARTS-NB-RIDGEBACK2", "", "6", "3", "22", "19", "edge", "edge", "3 places earlier"]
    assert rows[7] == ["KB-1004", "needed", "4", "8", "20", "24", "edge", "edge", "4 places later"]
    assert [r[0] for r in rows if r[1]] == ["KB-1004"]  # the one document the answer needed
    assert rows[0][-1] == "same place"
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert model.data(model.index(2, 0), Qt.ItemDataRole.BackgroundRole) is not None
    assert model.data(model.index(7, 0), Qt.ItemDataRole.FontRole).bold()
    assert model.data(model.index(2, 0), Qt.ItemDataRole.FontRole) is None


def test_view_selects_first_change_and_steps_with_keys(qtbot, replay_pair) -> None:
    view = DiffView()
    qtbot.addWidget(view)
    view.resize(1280, 760)
    view.show()
    view.activateWindow()
    qtbot.waitActive(view)
    view.set_traces(*replay_pair)
    assert view.current_row() == 18  # PARTS-NB-RIDGEBACK2, the first change
    assert view.header.text().splitlines() == [
        "A budget-8k   ↔   B budget-8k-replay:  2 moved; first divergence at position 19",
        "First divergence: position 19: KB-1002 → PARTS-NB-RIDGEBACK2    "
        "Evidence moved (rank): PARTS-NB-RIDGEBACK2 6 → 3, KB-1004 4 → 8",
        "Policy: support-policy 2026-10-03 (unchanged)    eq. 3.1: fits, 800 tokens margin (unchanged)",
        "Needed document: KB-1004 (best match with the question): evidence 4 of 8 (edge) → 8 of 8 (edge), "
        "4 places later; not in the middle in either    Findings: none in either",
    ]
    assert view.header.textFormat() == Qt.TextFormat.PlainText
    view.table.setFocus()
    qtbot.waitUntil(view.table.hasFocus)
    qtbot.keyClick(view.table, Qt.Key.Key_F7)
    assert view.current_row() == 23
    qtbot.keyClick(view.table, Qt.Key.Key_F7)
    assert view.current_row() == 18  # wraps
    qtbot.keyClick(view.table, Qt.Key.Key_F7, Qt.KeyboardModifier.ShiftModifier)
    assert view.current_row() == 23
    qtbot.keyClick(view.table, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert view.current_row() == 18
    assert view.item_diff.title_b.text() == "B: PARTS-NB-RIDGEBACK2 (evidence) — moved 22 → 19 (#1)"
    assert view.item_diff.status.text() == "Same text."
    assert view.chart.bars() == [("sys", 800, 800, "+0"), ("hist", 1200, 1200, "+0"),
                                 ("evidence", 3000, 3000, "+0"), ("tools", 600, 600, "+0"),
                                 ("user", 400, 400, "+0"), ("out", 1200, 1200, "+0")]
    assert view.response_diff.result is not None and view.response_diff.result.changed
    assert "evidence order" in view.summary.toPlainText()


def test_word_diff_pane_paints_changed_words(qtbot) -> None:
    pane = TextDiffPane()
    qtbot.addWidget(pane)
    pane.set_texts("Refunds above $50 need 👍 approval.", "Refunds above $80 need 👍 a manager's approval.")
    assert [(s.op, s.text) for s in pane.result.segments if s.op != "equal"] == [
        ("delete", "50"), ("insert", "80"), ("insert", "a manager's ")]
    # Qt offsets are UTF-16: the emoji before the insertion counts 2
    spans_b = [(s, e - s) for s, e, _f in pane._hl_b._spans]
    assert spans_b == [(15, 2), (26, 12)]
    assert pane.view_b.toPlainText().startswith("Refunds above $80")
    assert pane.status.text() == "1 words only in A (red, struck through) · 4 words only in B (green)"
    assert DELETED != INSERTED


def test_invisible_characters_are_shown_and_highlighted(qtbot) -> None:
    pane = TextDiffPane()
    qtbot.addWidget(pane)
    pane.set_texts("approve the refund", "approve\u200b the refund")
    assert pane.view_b.toPlainText() == "approve⟨ZWSP⟩ the refund"
    assert [(s, e - s) for s, e, _f in pane._hl_b._spans] == [(7, 6)]  # the ⟨ZWSP⟩ marker, highlighted


def test_large_texts_are_diffed_off_the_gui_thread(qtbot, monkeypatch) -> None:
    monkeypatch.setattr(thresholds, "DIFF_WORKER_CHARS", 10)
    pane = TextDiffPane()
    qtbot.addWidget(pane)
    with qtbot.waitSignal(pane.sig_diffed, timeout=10_000) as sig:
        pane.set_texts("the quick brown fox", "the quick red fox")
        assert pane.result is None and pane.status.text().startswith("Comparing 36 characters")
    assert [(s.op, s.text) for s in sig.args[0].segments if s.op != "equal"] == [("delete", "brown"), ("insert", "red")]
    assert pane.task is not None and pane.task.done


def _window(windows, db: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    return windows.open(db, show=False)


def test_compare_with_replay_one_click(qtbot, windows, tmp_path: Path) -> None:
    w = _window(windows, SAMPLES_DB)
    assert not w.compare.act_replay.isEnabled()  # history-16k, the first row, is no replay
    assert w.compare.act_replay.text().replace("&", "") == "Compare with Replay"
    windows.select(w, "budget-8k-replay")
    assert w.compare.act_replay.isEnabled()
    assert w.compare.act_replay.text() == "Compare with Replay Original (budget-8k)"
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    words = " ".join(readme.split())  # the README names both, as the menu shows them
    assert "**Compare with Replay** (Ctrl+Shift+D" in words and "**Compare with Replay Original (ID)**" in words
    with qtbot.waitSignal(w.compare.sig_opened) as opened:
        w.compare.act_replay.trigger()
    dw: DiffWindow = opened.args[0]
    qtbot.addWidget(dw)
    qtbot.waitUntil(lambda: dw.view.diff is not None, timeout=20_000)
    assert (dw.view.diff.trace_a, dw.view.diff.trace_b) == ("budget-8k", "budget-8k-replay")
    assert dw.view.model.change_rows() == [18, 23]
    out = tmp_path / "d.json"
    dw.save_json(str(out))
    assert json.loads(out.read_text(encoding="utf-8"))["first_divergence"]["position"] == 19
    dw.copy_summary()
    from PySide6.QtGui import QGuiApplication
    assert QGuiApplication.clipboard().text().splitlines()[3] == "2 moved; first divergence at position 19"


def test_compare_with_replay_says_whether_the_needed_document_left_the_middle(
        qtbot, windows, tmp_path: Path) -> None:
    """The done-when of issue 8: one click on a replay answers "what did the replay change, and did
    it fix the position of the relevant document?" in the header and the Evidence order tab."""
    db = tmp_path / "replay.db"
    with TraceStore.open(SAMPLES_DB) as store:
        a = store.load("evidence-in-middle")
    with TraceStore.create(db) as store:
        store.add(with_facts([a, moved_after_the_evidence(a, "KB-1008#p1")]))
    w = _window(windows, db)
    windows.select(w, "evidence-in-middle-replay")
    with qtbot.waitSignal(w.compare.sig_opened) as opened:
        w.compare.act_replay.trigger()
    dw: DiffWindow = opened.args[0]
    qtbot.addWidget(dw)
    qtbot.waitUntil(lambda: dw.view.diff is not None, timeout=20_000)
    lines = dw.view.header.text().splitlines()
    assert lines[0] == "A evidence-in-middle   ↔   B evidence-in-middle-replay:  1 moved; first divergence at position 13"
    assert lines[3] == ("Needed document: KB-1008#p1 (best match with the question): evidence 10 of 20 (middle) → "
                        "20 of 20 (edge), 10 places later; out of the middle    "
                        "Findings: fixed evidence.needed_in_middle")
    ev = dw.view.evidence_model
    row = next(r for r in range(ev.rowCount()) if ev.data(ev.index(r, 0)) == "KB-1008#p1")
    cells = [ev.data(ev.index(row, c)) for c in range(ev.columnCount())]
    assert cells == ["KB-1008#p1", "needed", "10", "20", "13", "23", "middle", "edge", "10 places later"]
    assert ev.data(ev.index(row, 0), Qt.ItemDataRole.FontRole).bold()


def test_compare_two_selected_traces_and_previous_call(qtbot, windows) -> None:
    w = _window(windows, SAMPLES_DB)
    assert not w.compare.act_compare.isEnabled()
    sel = w.trace_view.selectionModel()
    from PySide6.QtCore import QItemSelectionModel as S
    rows = [w.trace_model.row_of("budget-8k-replay"), w.trace_model.row_of("budget-8k")]
    sel.select(w.trace_model.index(rows[0], 0), S.SelectionFlag.ClearAndSelect | S.SelectionFlag.Rows)
    sel.select(w.trace_model.index(rows[1], 0), S.SelectionFlag.Select | S.SelectionFlag.Rows)
    assert w.compare.act_compare.isEnabled()
    dw = w.compare.compare_selected()
    qtbot.addWidget(dw)
    qtbot.waitUntil(lambda: dw.view.diff is not None, timeout=20_000)
    assert (dw.view.diff.trace_a, dw.view.diff.trace_b) == ("budget-8k", "budget-8k-replay")  # older is A
    windows.select(w, "budget-8k-over")
    dw2 = w.compare.compare_with_previous()
    qtbot.addWidget(dw2)
    qtbot.waitUntil(lambda: dw2.view.diff is not None, timeout=20_000)
    assert (dw2.view.diff.trace_a, dw2.view.diff.trace_b) == ("budget-8k", "budget-8k-over")


def test_previous_call_disabled_with_the_reason_when_there_is_none(qtbot, windows, tmp_path: Path) -> None:
    """Issue 13 leftover: Compare with Previous Call was enabled on a first call and then said there
    was none; now it is disabled, its tooltip saying why, and enabled where a previous call exists."""
    w = _window(windows, SAMPLES_DB)
    act = w.compare.act_previous
    windows.select(w, "budget-8k")  # the first call of sess-7f3c21 (then budget-8k-over, budget-8k-replay)
    assert not act.isEnabled()
    assert act.toolTip() == "budget-8k is the first call of its conversation: there is no previous call"
    windows.select(w, "history-16k")  # the only call of sess-d40c18
    assert not act.isEnabled() and "history-16k is the first call" in act.toolTip()
    windows.select(w, "budget-8k-replay")
    assert act.isEnabled() and act.toolTip() == "Compare with the previous call of the same conversation"
    with TraceStore.open(SAMPLES_DB) as store:
        from ctxviewer.diff.conversation import earlier_call_ids

        assert earlier_call_ids(store, store.load("budget-8k-replay")) == ["budget-8k", "budget-8k-over"]
        assert earlier_call_ids(store, store.load("budget-8k")) == []
    # an OTel span: its OTel trace id is the conversation; a trace with neither has none
    src = tmp_path / "agent.otlp.json"
    oid = "5b8efff798038103d269b633813fc60c"
    src.write_text(json.dumps(otlp_request(*three_call_spans(oid), resource={"service.name": "agent"})))
    db = tmp_path / "agent.db"
    with TraceStore.create(db) as store:
        import_files([src], store)
        store.add(with_facts([replace(store.load(f"{oid}:00000000000000c1"), trace_id="lonely", session_id=None,
                           source_format="native")]))
    assert w.open_database(db, remember=False)
    windows.select(w, f"{oid}:00000000000000c1")
    assert not act.isEnabled() and "is the first call of its conversation" in act.toolTip()
    windows.select(w, f"{oid}:00000000000000c3")
    assert act.isEnabled()
    windows.select(w, "lonely")
    assert not act.isEnabled()
    assert act.toolTip() == "lonely is not part of a conversation (no conversation id, not an OTel span)"


def test_item_table_shows_messages_dropped_between_calls(qtbot, windows, tmp_path: Path) -> None:
    src = tmp_path / "agent.otlp.json"
    oid = "5b8efff798038103d269b633813fc60c"
    src.write_text(json.dumps(otlp_request(*three_call_spans(oid), resource={"service.name": "agent"})))
    db = tmp_path / "agent.db"
    with TraceStore.create(db) as store:
        import_files([src], store)
    w = _window(windows, db)
    windows.select(w, f"{oid}:00000000000000c3")
    ids = [w.item_model.data(w.item_model.index(r, 2)) for r in range(w.item_model.rowCount())]
    assert ids == ["msg-0", "dropped:msg-1", "dropped:msg-2", "msg-1", "msg-2", "msg-3"]
    status = [(w.item_model.data(w.item_model.index(r, 7)), w.item_model.data(w.item_model.index(r, 8))) for r in (1, 2)]
    assert status == [("omitted", "dropped between calls (derived)")] * 2
    dw = w.compare.compare_with_previous()
    qtbot.addWidget(dw)
    qtbot.waitUntil(lambda: dw.view.diff is not None, timeout=20_000)
    assert dw.view.diff.trace_a.endswith("c2")
    removed = [(d.id, d.change.value) for d in dw.view.diff.items if d.change.value == "removed"]
    assert removed == [("msg-1", "removed"), ("msg-2", "removed")]  # the first user turn and answer
    assert [d.a.content for d in dw.view.diff.items if d.change.value == "removed"] == [
        CONVERSATION_TURNS[0][1], CONVERSATION_TURNS[1][1]]


def test_no_change_view(qtbot) -> None:
    view = DiffView()
    qtbot.addWidget(view)
    t = make_trace()
    view.set_traces(t, t)
    assert view.header.text().splitlines()[0].endswith("no change")
    needed = [i for i in t.items if i.kind.value == "evidence"]
    assert needed and view.header.text().splitlines()[3].startswith("Needed document: ")
    bare = replace(t, items=tuple(i for i in t.items if i.kind.value != "evidence"))
    view.set_traces(bare, bare)
    assert view.header.text().splitlines()[3] == "Needed document: no evidence in either    Findings: none in either"
    assert view.current_row() == 0 and view.model.change_rows() == []
    view.next_change()
    assert view.current_row() == 0


def test_compare_with_trace_in_another_database(qtbot, windows, tmp_path: Path) -> None:
    from dataclasses import replace


    other = tmp_path / "other.db"
    with TraceStore.open(SAMPLES_DB) as store:
        t = store.load("budget-8k")
    with TraceStore.create(other) as store:
        store.add(with_facts([replace(t, usage=replace(t.usage, input_tokens=(t.usage.input_tokens or 0) + 1))]))
    w = _window(windows, SAMPLES_DB)
    windows.select(w, "budget-8k")
    assert w.compare.act_other.isEnabled()
    dw = w.compare.compare_with_other_database(str(other))  # same id found there
    qtbot.addWidget(dw)
    qtbot.waitUntil(lambda: dw.view.diff is not None, timeout=20_000)
    assert dw.view.diff.accounting_only
    assert dw.view.header.text().splitlines()[0].endswith("accounting change only: content identical")
    assert w.compare.compare_with_other_database(str(other), "nope") is None
    assert windows.message(w) == f"{other}: no trace with id 'nope'"
