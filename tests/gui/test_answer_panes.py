"""Issue 13: the Response, Request and Attributes panes of the window show the answer, the
request and every recorded attribute of the selected trace (the same words as ``show``)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.gui.answer_panes import REQUEST, RESPONSE
from ctxviewer.gui.main_window import MainWindow
from ctxviewer.present.answer import answer_text

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def open_on(windows, trace_id: str) -> MainWindow:  # type: ignore[no-untyped-def]
    w = windows.open(SAMPLES, remember=True)
    windows.select(w, trace_id)
    return w


def test_response_pane_shows_the_bad_answer(windows) -> None:
    w = open_on(windows, "refund-approval-forgotten")
    answer = w.panel.answer
    assert answer.currentIndex() == RESPONSE
    text = answer.response.raw.toPlainText()
    assert "your refund of 212.00 USD for the Alder 15 sleeping bag has been processed." in text
    assert text == answer_text(w.trace)
    assert answer.tabText(RESPONSE) == "Response (stop)"


def test_request_pane_pretty_body_and_notice(windows) -> None:
    w = open_on(windows, "ticket-injection")
    req = w.panel.answer.request
    assert req.body.toPlainText() == ""  # laid out only when the Request tab is shown
    w.panel.answer.setCurrentIndex(REQUEST)
    assert req.notice.text() == ("serialized request kept (11,490 characters, sha256 eaaea95ab308…); "
                                 "exact replay impossible: fields messages[1].content, user redacted")
    body = req.body.toPlainText()
    assert body.startswith('{\n  "model": "gpt-4o-mini-2024-07-18",\n  "messages": [')
    assert req.body.spans()  # highlighted as JSON
    assert w.panel.answer.tabText(REQUEST) == "Request (body)"
    tool = w.panel.answer.response.raw.toPlainText()
    assert "issue_refund → blocked by refunds.require_supervisor_approval" in tool
    assert "✖ identity: the signed-in customer cust-31877 asked about a ticket" in tool


def test_rejected_request_has_no_body_and_attributes_are_listed(windows) -> None:
    w = open_on(windows, "policy-missing")
    a = w.panel.answer
    a.setCurrentIndex(REQUEST)
    assert a.request.body.toPlainText() == ""
    assert a.request.notice.text() == "serialized request not recorded; exact replay impossible: the body was not stored"
    assert a.tabText(REQUEST) == "Request (none)"
    assert a.response.raw.toPlainText().startswith("Response: not recorded\n\nValidations (1)")
    rows = {a.attributes.item(r, 0).text(): a.attributes.item(r, 1).text() for r in range(a.attributes.rowCount())}
    assert rows["policy_store.error"] == "404 support-policy@2026-10-03"
    assert rows["rejected"] == "true"
    assert rows["session_id"] == "sess-e2047d"
