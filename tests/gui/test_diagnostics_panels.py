"""Findings panel, tool-calls panel, evidence strip, marks and span highlighting in the window."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxviewer.assess.marks import load_marks
from ctxviewer.gui.diagnostics_tabs import EVIDENCE, FINDINGS, ITEMS
from ctxviewer.gui.findings_model import FindingRole, FindingsModel
from ctxviewer.model.findings import Evidence, Finding, Severity

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    path = tmp_path / "samples.db"
    shutil.copy(SAMPLES, path)
    return path


@pytest.fixture
def win(windows, samples: Path):  # type: ignore[no-untyped-def]
    w = windows.open(samples, show=False, remember=True)
    yield w
    w.close()


def test_findings_model_groups_by_severity_with_counts(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    a = Finding("a.x", Severity.WARNING, "first warning", table_row=2)
    b = Finding("b.y", Severity.CRITICAL, "permitted anyway", Evidence(tool_call_ids=("c1",)), table_row=5)
    c = Finding("c.z", Severity.WARNING, "second warning")
    m = FindingsModel()
    m.set_findings((a, b, c))
    qtmodeltester.check(m)
    assert [m.data(m.index(r, 0)) for r in range(m.rowCount())] == ["\u203c critical (1)", "\u26a0 warning (2)"]
    warn = m.index(1, 0)
    assert [m.data(m.index(r, 0, warn)) for r in range(2)] == ["\u26a0 a.x", "\u26a0 c.z"]
    assert m.data(m.index(0, 3, m.index(0, 0))) == "call c1"
    m.set_findings((a, b, c), observed_row=None)
    assert m.data(m.index(0, 0, m.index(0, 0)), FindingRole) is b


def test_ticket_injection_leads_with_findings_and_shows_the_blocked_call(windows, win, qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    windows.select(win, "ticket-injection")
    tabs = win.panel.tabs
    assert tabs.widget.currentIndex() == FINDINGS
    assert win.chart.state() == "\u26a0 WARNING"
    model = tabs.tool_calls.model
    qtmodeltester.check(model)
    call = model.index(0, 0)
    assert [model.data(model.index(0, c)) for c in range(3)][1] == "blocked"
    checks = [(model.data(model.index(r, 0, call)), model.data(model.index(r, 1, call))) for r in range(model.rowCount(call))]
    assert checks[:4] == [("\u2714 offered", "passed (ctxviewer)"), ("\u2714 arguments_json", "passed (ctxviewer)"),
                          ("\u2714 arguments_schema", "passed (ctxviewer)"), ("\u2714 destructive", "passed (ctxviewer)")]
    assert checks[6:] == [("\u2716 identity", "failed (application)"), ("\u2716 resource", "failed (application)"),
                          ("\u2716 approval", "failed (application)")]
    assert json.loads(tabs.tool_calls.arguments.toPlainText())["amount"] == 349.0
    tree = tabs.findings.view  # rule names and the Table 3.1 header are not cut
    fm = tree.fontMetrics()
    assert tree.columnWidth(0) >= fm.horizontalAdvance("\u26a0 injection.action_linkage") + 40
    assert tree.columnWidth(1) >= fm.horizontalAdvance("Table 3.1")


def test_selecting_a_finding_selects_its_item_and_highlights_the_span(windows, win) -> None:  # type: ignore[no-untyped-def]
    windows.select(win, "refund-approval-forgotten")
    tabs = win.panel.tabs
    [f] = [x for x in win.panel.assessment.findings if x.rule == "commitment.forgotten"]
    tabs.findings.select_finding(f)
    assert win.item_model.item(win.item_view.currentIndex().row()).id == "turn-01"
    sels = win.content.extraSelections()
    turn1 = win.trace.item("turn-01").content
    got = [turn1[s.cursor.selectionStart():s.cursor.selectionEnd()] for s in sels]
    assert got[0].startswith("A refund requested more than 45 days") and len(sels) == 3


def test_span_highlight_counts_utf16_units(windows, win) -> None:  # type: ignore[no-untyped-def]
    text = "\U0001f600 ok\r\nAt risk: approval needed"
    win.content.set_content(text)
    units = win.content.mark_spans(text, [(text.index("approval"), text.index("approval") + 8)])
    # the emoji is 1 code point but 2 UTF-16 units (+1); the \r\n became one \n (-1)
    assert [(u.start, u.length) for u in units] == [(text.index("approval") + 1 - 1, 8)]
    sel = win.content.extraSelections()[0]
    assert sel.cursor.selectedText() == "approval"


def test_observed_failure_is_stored_beside_the_db_and_leads(windows, win, samples: Path) -> None:  # type: ignore[no-untyped-def]
    before = samples.read_bytes()
    windows.select(win, "json-unsupported")
    fp = win.panel.tabs.findings
    fp.observed.setCurrentIndex(fp.observed.findData(4))
    assert load_marks(samples)["json-unsupported"].row == 4
    assert fp.lead.text().startswith("Inspect first: Evidence and application-rule checks.")
    assert samples.read_bytes() == before
    windows.select(win, "budget-8k")
    assert fp.observed_row() is None
    windows.select(win, "json-unsupported")
    assert fp.observed_row() == 4


def test_ok_trace_shows_items_and_the_evidence_strip(windows, win) -> None:  # type: ignore[no-untyped-def]
    windows.select(win, "budget-8k")
    tabs = win.panel.tabs
    assert tabs.widget.currentIndex() == ITEMS and win.chart.state() == "\u2714 OK"
    assert tabs.widget.tabText(FINDINGS) == "Findings (0)"
    windows.select(win, "evidence-in-middle")
    tabs.widget.setCurrentIndex(EVIDENCE)
    bars = tabs.evidence.strip.bars()
    assert len(bars) == 20 and [e.item_id for _, e in bars if e.needed] == ["KB-1008#p1"]
    assert "needed: KB-1008#p1 (best match with the question) at evidence 10 of 20, middle band (risk high)" in tabs.evidence.words.text()


def test_a_tab_picked_by_hand_stays(windows, win) -> None:  # type: ignore[no-untyped-def]
    tabs = win.panel.tabs
    tabs._on_tab_clicked(EVIDENCE)
    tabs.widget.setCurrentIndex(EVIDENCE)
    windows.select(win, "ticket-injection")
    assert tabs.widget.currentIndex() == EVIDENCE
