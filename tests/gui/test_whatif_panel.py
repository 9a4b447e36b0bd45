"""The what-if panel: live re-trims, edits, the worker path, saving, and the main-window menu."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from ctxviewer.gui.thresholds import WHATIF_WORKER_ITEMS
from ctxviewer.gui.whatif_model import PIN, PRIORITY
from ctxviewer.gui.whatif_panel import STATE_COLOR, WhatIfPanel
from ctxviewer.model.findings import State
from ctxviewer.model.trace import Category, ContextItem, Kind
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "samples.db"
    shutil.copy(SAMPLES, path)
    return path


@pytest.fixture
def panel(qtbot, source: Path) -> WhatIfPanel:
    p = WhatIfPanel()
    qtbot.addWidget(p)
    with TraceStore.open(source) as store:
        p.set_trace(store.load("budget-8k"), source)
    return p


def row_of(panel: WhatIfPanel, item_id: str) -> int:
    return next(r for r in range(panel.item_model.rowCount()) if panel.item_model.item_id(r) == item_id)


def test_as_recorded_and_models_pass_the_tester(panel: WhatIfPanel, qtmodeltester) -> None:
    qtmodeltester.check(panel.item_model)
    qtmodeltester.check(panel.cat_model)
    assert panel.verdict.text() == "what-if: \u2714 OK — fits, 800 tokens margin (as recorded)"
    assert STATE_COLOR[State.OK] in panel.verdict.styleSheet()
    assert panel.title.text() == ("What-if on budget-8k — gpt-4o-mini-2024-07-18; recorded: \u2714 OK — fits, 800 "
                                  "tokens margin")
    assert panel.item_model.rowCount() == 25
    assert panel.verdict.textFormat() == Qt.TextFormat.PlainText
    # the policy and the user request are never trimmed: no cap is offered for them
    assert list(panel.caps) == [Category.HIST, Category.MEMORY, Category.EVIDENCE, Category.TOOLS]
    # the recorded accounting adds up, beside the provider-reported input (as `ctxviewer whatif` says it)
    lines = panel.accounting.parts.text().splitlines()
    assert lines[-4:] == ["tool overhead           90", "counted total        6,181  (cl100k_base)",
                          "reported input       6,118", "residual               -63  (tolerance 122)"]
    assert panel.accounting.parts.textFormat() == Qt.TextFormat.PlainText
    assert panel.accounting.notes.isHidden()  # residual -63 is within the tolerance of 122


def test_what_if_evidence_had_2000_more_tokens(panel: WhatIfPanel, qtbot) -> None:
    panel.add_kind.setCurrentText("evidence")
    panel.add_priority.setValue(75)
    panel.add_size.setValue(2000)
    panel.add_item()
    qtbot.waitUntil(lambda: panel.outcome is not None and panel.outcome.scenario.added != ())
    assert panel.before.text() == "before trimming: over capacity by 1,200 tokens: had 6,800 tokens left, needed 8,000"
    assert panel.verdict.text() == "what-if: \u2714 OK — fits, 2,492 tokens margin; before trimming: over by 1,200"
    r = row_of(panel, "what-if-1")
    assert panel.item_model.index(r, 6).data() == "hypothetical"
    # the declared evidence budget (3,000) trims the lowest-priority evidence, the new item (75) too
    assert panel.item_model.index(r, 7).data() == "omitted: budget:evidence"
    assert panel.item_model.index(row_of(panel, "turn-00"), 7).data() == "retained #5"
    cats = {panel.cat_model.index(k, 0).data(): panel.cat_model.index(k, 3).data()
            for k in range(panel.cat_model.rowCount())}
    assert cats["evidence"] == "-1,692" and cats["history"] == "+0"


def test_capacity_priority_pin_and_move(panel: WhatIfPanel, qtbot) -> None:
    panel.capacity.setValue(7000)
    qtbot.waitUntil(lambda: panel.outcome.scenario.capacity == 7000)
    assert panel.verdict.text() == "what-if: \u2714 OK — fits, 807 tokens margin; before trimming: over by 200"
    first_gone = [c.id for c in panel.outcome.changes]
    assert first_gone[0] == "turn-00"
    model = panel.item_model
    assert model.setData(model.index(row_of(panel, "turn-00"), PIN), Qt.CheckState.Checked.value,
                         Qt.ItemDataRole.CheckStateRole)
    qtbot.waitUntil(lambda: "turn-00" in panel.outcome.scenario.pinned)
    assert model.index(row_of(panel, "turn-00"), 7).data() == "retained #5"
    assert model.setData(model.index(row_of(panel, "KB-1005"), PRIORITY), 1.0)
    qtbot.waitUntil(lambda: "KB-1005" in panel.outcome.scenario.priorities)
    assert model.index(row_of(panel, "KB-1005"), 7).data() == "omitted: budget"
    panel.item_view.selectRow(row_of(panel, "KB-1005"))
    panel.move_selected(-1)
    qtbot.waitUntil(lambda: panel.outcome.scenario.moves != ())
    assert row_of(panel, "KB-1005") == 22


def test_cap_and_required_overrun(panel: WhatIfPanel, qtbot) -> None:
    panel.caps[Category.EVIDENCE].setValue(2500)
    qtbot.waitUntil(lambda: panel.outcome.scenario.caps == {Category.EVIDENCE: 2500})
    assert panel.item_model.index(row_of(panel, "KB-1001"), 7).data() == "omitted: cap:evidence"
    panel.capacity.setValue(3100)  # 3,100 - 1,200 reserved - 800 safety margin < policy 800 + user 400
    qtbot.waitUntil(lambda: panel.outcome.scenario.capacity == 3100)
    assert "over by 100 tokens; nothing was sent" in panel.verdict.text()
    assert panel.verdict.text().startswith("what-if: \u2716 FAILURE — cannot be built: ")
    assert STATE_COLOR[State.FAILURE] in panel.verdict.styleSheet()
    assert not panel.save.isEnabled()


def test_save_as_trace_never_writes_the_source(panel: WhatIfPanel, source: Path, tmp_path: Path) -> None:
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    assert not panel.save_to(source)
    assert "never written" in panel.status.text()
    target = tmp_path / "mine.db"
    panel.add_size.setValue(500)
    panel.add_item()
    panel.retrim()
    assert panel.save_to(target)
    assert panel.status.text() == f"Saved as trace {panel.outcome.trace.trace_id} in {target}"
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before
    with TraceStore.open(target) as store:
        saved = store.load(panel.outcome.trace.trace_id)
    assert saved.replay_of == "budget-8k"
    assert saved.item("what-if-1").tokens == 500


def test_large_trace_retrims_on_a_worker(qtbot, panel: WhatIfPanel) -> None:
    base = panel.trace
    extra = tuple(ContextItem(kind=Kind.HISTORY, id=f"h{k}", content=" a" * 10, tokens=10, priority=float(k % 7),
                              position=None, role="user") for k in range(WHATIF_WORKER_ITEMS))
    big = replace(base, items=(*base.items[:-1], *extra, base.items[-1]), input_tokens=None)
    panel.set_trace(big, panel.source_path)
    assert panel.task is not None and panel.status.text() == "re-trimming…"
    qtbot.waitUntil(lambda: panel.task.done and panel.outcome is not None and panel.outcome.original is big,
                    timeout=20_000)
    assert panel.item_model.rowCount() == len(big.items)


@pytest.mark.qt_log_ignore(r"This plugin does not support (raise|propagateSizeHints)\(\)")  # offscreen
def test_main_window_menu_opens_the_panel_on_the_selected_trace(windows, source: Path) -> None:
    w = windows.open(source, show=False)
    windows.select(w, "budget-8k")
    w.whatif.act.trigger()
    assert w.whatif.panel.isVisible()
    assert w.whatif.panel.trace.trace_id == "budget-8k"
    assert w.whatif.act.shortcut().toString() == "Ctrl+Shift+W"
    w.whatif.panel.close()


def test_accounting_warning_is_said_beside_the_figures(qtbot, source: Path) -> None:
    p = WhatIfPanel()
    qtbot.addWidget(p)
    with TraceStore.open(source) as store:
        p.set_trace(store.load("ticket-injection"), source)
    assert p.accounting.parts.text().splitlines()[-2:] == ["reported input       2,351",
                                                           "residual               -60  (tolerance 47)"]
    assert not p.accounting.notes.isHidden()
    assert p.accounting.notes.text() == ("warning: provider reported 2,351 input tokens, counted 2,411: "
                                         "residual -60 tokens exceeds the tolerance of 47")
    p.set_trace(None)
    assert p.accounting.parts.text() == "" and p.accounting.notes.isHidden()


def test_ticking_a_pin_keeps_a_window_omitted_turn_and_says_which_rule_it_overrides(qtbot, source: Path) -> None:
    p = WhatIfPanel()
    qtbot.addWidget(p)
    with TraceStore.open(source) as store:
        p.set_trace(store.load("refund-approval-forgotten"), source)
    p.show()
    model, view = p.item_model, p.item_view
    assert p.verdict.text().startswith("what-if: \u26a0 WARNING — fits, 3,914 tokens margin; omitted history "
                                       "(turn-01, turn-03) holds 4 commitment sentence(s)")
    assert STATE_COLOR[State.WARNING] in p.verdict.styleSheet()  # by the state: its words say "fits"
    assert model.index(row_of(p, "turn-01"), 7).data() == "omitted: window"
    for turn in ("turn-01", "turn-03"):  # tick the pin box as a user does: the cell, then Space
        cell = model.index(row_of(p, turn), PIN)
        assert model.flags(cell) & Qt.ItemFlag.ItemIsUserCheckable
        view.setFocus()
        view.setCurrentIndex(cell)
        qtbot.keyClick(view.viewport(), Qt.Key.Key_Space)
        qtbot.waitUntil(lambda turn=turn: turn in p.outcome.scenario.pinned)
        assert model.index(row_of(p, turn), PIN).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert model.index(row_of(p, "turn-01"), 7).data() == "retained #5"
    assert model.index(row_of(p, "turn-03"), 7).data() == "retained #6"
    assert p.notes.text().splitlines()[:2] == ["turn-01 was omitted by the history window; pinned, it is kept",
                                              "turn-03 was omitted by the history window; pinned, it is kept"]
    assert p.notes.textFormat() == Qt.TextFormat.PlainText
    assert p.verdict.text() == "what-if: \u2714 OK — fits, 3,720 tokens margin"
    assert STATE_COLOR[State.OK] in p.verdict.styleSheet()


def test_an_omitted_policy_item_can_be_pinned_in_the_window(qtbot, source: Path) -> None:
    p = WhatIfPanel()
    qtbot.addWidget(p)
    with TraceStore.open(source) as store:
        p.set_trace(store.load("policy-missing"), source)
    model = p.item_model
    cell = model.index(row_of(p, "policy-fallback"), PIN)
    assert model.flags(cell) & Qt.ItemFlag.ItemIsUserCheckable  # required kind, but omitted in the recording
    assert not model.flags(model.index(row_of(p, "user-request"), PIN)) & Qt.ItemFlag.ItemIsUserCheckable
    assert model.setData(cell, Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    qtbot.waitUntil(lambda: "policy-fallback" in p.outcome.scenario.pinned)
    assert model.index(row_of(p, "policy-fallback"), 7).data() == "retained #1"
    assert p.notes.text().splitlines()[0] == ("policy-fallback was omitted by the application's policy (fallback "
                                             "refused: version pinned); pinned, it is kept")


def test_an_assumed_capacity_is_said_in_the_summary(qtbot, source: Path) -> None:
    """A trace recording no C: the tab says the C it trimmed by and that it is assumed, in the same
    words as ``whatif`` (:meth:`Outcome.capacity_words`), not a bare 0."""
    from ctxviewer.tokens.catalogue import package_version

    with TraceStore.open(source) as store:
        trace = store.load("budget-8k")
    trace = replace(trace, endpoint=replace(trace.endpoint, capacity=None, provider="openai", model="gpt-4o-mini"))
    p = WhatIfPanel()
    qtbot.addWidget(p)
    p.set_trace(trace, source)
    assert p.outcome is not None and p.outcome.capacity == 128_000
    assert (f"6,000 tokens + reserved 1,200, C 128,000 tokens assumed (model catalogue: genai-prices "
            f"{package_version()}, gpt-4o-mini); retained") in p.summary.text()


def test_cap_boxes_name_the_declared_budget_and_a_pinned_calls_result_says_why_it_is_back(qtbot, source: Path) -> None:
    p = WhatIfPanel()
    qtbot.addWidget(p)
    with TraceStore.open(source) as store:
        p.set_trace(store.load("history-16k"), source)
    # empty boxes: the declared budgets the what-if keeps as caps, not "no limit"
    assert [b.specialValueText() for b in p.caps.values()] == ["declared 6,000", "no cap", "declared 5,000",
                                                               "declared 1,600"]
    assert [b.text() for b in p.caps.values()] == ["declared 6,000", "no cap", "declared 5,000", "declared 1,600"]
    p.set_pin("turn-01", True)
    qtbot.waitUntil(lambda: "turn-01" in p.outcome.scenario.pinned)
    changes = {c.id: c.after for c in p.outcome.changes}
    assert changes["turn-01"] == "retained #11"
    assert changes["turn-02"] == "retained #12 (kept with tool call turn-01, pinned)"  # its tool result
    assert p.item_model.index(row_of(p, "turn-02"), 7).data() == "retained #12 (kept with tool call turn-01, pinned)"
    assert p.item_model.index(row_of(p, "turn-02"), 7).data(Qt.ItemDataRole.ToolTipRole) == (
        "changed against the recorded trace: kept with tool call turn-01, pinned")
