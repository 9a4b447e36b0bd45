"""The trace header (gui.detail_panel): each value starts on its key's line, also beside a taller
value on the other side of its row (a trace's scores wrap over several lines)."""

from __future__ import annotations

from ctxviewer.gui.detail_panel import DetailPanel


def test_a_value_is_on_its_keys_line_beside_a_taller_one(qtbot) -> None:
    panel = DetailPanel()
    qtbot.addWidget(panel)
    scores = "toxicity: 0.8 (langfuse EVAL on trace) — a long reason"  # 56 characters: a half line
    panel.set_rows([("Trace", "t-1"), ("Created", "2025-09-30 09:03:59 UTC"),
                    ("Cost", "$0.000230 · gpt-4.1, genai-prices 0.2.3"), ("Scores", scores)])
    panel.resize(420, 300)
    panel.show()
    qtbot.waitExposed(panel)
    labels = {lab.text(): lab for lab in panel.findChildren(type(panel._labels[0])) if lab.isVisible()}
    cost_key, cost_value = labels["Cost"], labels["$0.000230 · gpt-4.1, genai-prices 0.2.3"]
    score_value = labels[scores]
    assert score_value.height() > cost_value.height()  # the scores wrap: the row is tall
    assert cost_value.y() == cost_key.y() == labels["Scores"].y() == score_value.y()


RERANKED = ("reranker SentenceTransformerRerank.postprocess_nodes (top_k 2) kept 2 of 3 document(s) "
            "(n3, n1); dropped: n2 (omitted items: only its output reached the model)")


def test_a_long_value_takes_a_full_line_and_stays_inside_the_panel(qtbot) -> None:
    """A reranker's 150-character "Retrieved" note beside "Cost" ran to five lines in the right-hand half
    at 1280 px, its longest identifier at the window's edge: a value over 60 characters takes the line."""
    panel = DetailPanel()
    qtbot.addWidget(panel)
    panel.set_rows([("Trace", "li-cap:li-cap-4"), ("Created", "2025-03-04 09:00:03 UTC"),
                    ("Cost", "$0.000025 · gpt-4o-mini"), ("Retrieved", RERANKED),
                    ("Policy", "x" * 60)])
    assert panel.spans() == [("Trace", 1), ("Created", 1), ("Cost", 1), ("Retrieved", 3), ("Policy", 1)]
    panel.resize(710, 300)  # the header's width in the window at 1280 px
    panel.show()
    qtbot.waitExposed(panel)
    value = next(lab for lab in panel._labels if lab.text() == RERANKED)
    assert value.x() + value.width() <= panel.width()
    assert value.height() < 3 * next(lab for lab in panel._labels if lab.text() == "li-cap:li-cap-4").height()
