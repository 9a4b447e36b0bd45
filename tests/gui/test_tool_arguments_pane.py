"""Issue 27 item 8.6: the Tool calls pane says what a call's arguments are when they are not a JSON
object (the words of ctxviewer.present.tool_arguments), never {} or silently."""

from __future__ import annotations

import json

from factories import make_trace

from ctxviewer.gui.tool_calls_panel import ToolCallsPanel
from ctxviewer.model.trace import ToolCall


def test_the_arguments_pane_names_missing_and_json_string_arguments(qtbot) -> None:  # type: ignore[no-untyped-def]
    calls = (ToolCall(name="lookup_order", arguments=None, id="c1"),
             ToolCall(name="lookup_order", arguments=json.dumps(json.dumps({"order_id": "4471"})), id="c2"),
             ToolCall(name="lookup_order", arguments='"4471"', id="c3"),
             ToolCall(name="lookup_order", arguments='{"order_id": "4471"}', id="c4"))
    panel = ToolCallsPanel()
    qtbot.addWidget(panel)
    panel.set_trace(make_trace(tool_calls=calls))
    shown = []
    for row in range(4):
        panel.view.setCurrentIndex(panel.model.index(row, 0))
        shown.append(panel.arguments.toPlainText())
    assert shown == ["arguments not recorded",
                     'arguments: a JSON string encoding JSON (encoded twice), decoded once:\n{\n  "order_id": "4471"\n}',
                     'arguments: a JSON string, not an object:\n"4471"',
                     '{\n  "order_id": "4471"\n}']
