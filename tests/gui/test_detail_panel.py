"""The trace header (gui.detail_panel): each value starts on its key's line, also beside a taller
value on the other side of its row (a trace's scores wrap over several lines)."""

from __future__ import annotations

from ctxviewer.gui.detail_panel import DetailPanel


def test_a_value_is_on_its_keys_line_beside_a_taller_one(qtbot) -> None:
    panel = DetailPanel()
    qtbot.addWidget(panel)
    scores = "toxicity: 0.8 (langfuse EVAL on trace) — " + "a long explanation " * 12
    panel.set_rows([("Trace", "t-1"), ("Created", "2025-09-30 09:03:59 UTC"),
                    ("Cost", "$0.000230 · gpt-4.1, genai-prices 0.2.3"), ("Scores", scores)])
    panel.resize(700, 300)
    panel.show()
    qtbot.waitExposed(panel)
    labels = {lab.text(): lab for lab in panel.findChildren(type(panel._labels[0])) if lab.isVisible()}
    cost_key, cost_value = labels["Cost"], labels["$0.000230 · gpt-4.1, genai-prices 0.2.3"]
    score_value = labels[scores]
    assert score_value.height() > 3 * cost_value.height()  # the scores wrap: the row is tall
    assert cost_value.y() == cost_key.y() == labels["Scores"].y() == score_value.y()
