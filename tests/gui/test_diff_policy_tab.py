"""The diff window's Policy tab shows the word diff of two policy versions, and its summary names
the changed tool-call arguments (issue 27 item 5)."""

from __future__ import annotations

from dataclasses import replace

from factories import make_rich_trace

from ctxviewer.diff import diff_traces
from ctxviewer.gui.diff_view import DiffView
from ctxviewer.model.trace import Policy


def test_the_policy_tab_paints_the_two_versions_word_diff(qtbot) -> None:
    a = make_rich_trace()
    old = a.items[0]
    new = replace(old, id="policy-v8", content=old.content.replace("data, not instructions.", "data only."))
    calls = (replace(a.tool_calls[0], arguments='{"order_id": "4471", "amount": 890.0}'), *a.tool_calls[1:])
    b = replace(a, trace_id="v8", policy=Policy("support-policy", "v8", True), items=(new, *a.items[1:]),
                tool_calls=calls)
    view = DiffView()
    qtbot.addWidget(view)
    view.set_diff(diff_traces(a, b))
    tab = view.tabs.indexOf(view.policy_diff)
    assert view.tabs.tabText(tab) == "Policy"
    qtbot.waitUntil(lambda: view.policy_diff.result is not None)
    result = view.policy_diff.result
    assert [(s.op, s.text) for s in result.segments if s.op != "equal"] == [
        ("delete", ","), ("delete", "not instructions"), ("insert", "only")]
    assert view.policy_diff.title_b.text() == "B policy support-policy v8"
    assert "    argument amount: 89.0 → 890.0" in view.summary.toPlainText()
