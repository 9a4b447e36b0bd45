"""BudgetChart: the bars it drew (values from the core), the capacity line, the verdict in words."""

from __future__ import annotations

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess.assessment import assess
from ctxviewer.gui.budget_chart import BudgetChart
from ctxviewer.model.trace import Category, ContextItem, Endpoint, Kind, Policy, RequestTrace, Status


def draw(chart: BudgetChart, trace: RequestTrace | None) -> None:
    """Paint ``trace``'s assessment as the window does (``None`` clears the chart)."""
    chart.set_assessment(assess(trace) if trace is not None else None)


def chapter_8k(evidence: int = 3000, omitted: int = 0) -> RequestTrace:
    """The chapter's 8,000-token example: policy 800, history 1,200, evidence 3,000, tools 600,
    user 400, reserved output 1,200 -> margin 800."""
    def it(kind: Kind, i: str, n: int, status: Status = Status.RETAINED) -> ContextItem:
        return ContextItem(kind, i, "x", status, tokens=n, omission_reason="budget" if status is Status.OMITTED else None)
    items = [it(Kind.POLICY, "p", 800), it(Kind.HISTORY, "h", 1200), it(Kind.EVIDENCE, "e", evidence),
             it(Kind.TOOL, "t", 600), it(Kind.USER, "u", 400)]
    if omitted:
        items.append(it(Kind.EVIDENCE, "e2", omitted, Status.OMITTED))
    return RequestTrace(
        trace_id="budget-8k", created=None, endpoint=Endpoint(capacity=8000), policy=Policy(id="p"),
        user_request="u", items=tuple(items), reserved_output_tokens=1200,
        budget={Category.SYS: 800, Category.HIST: 1200, Category.EVIDENCE: 3000, Category.TOOLS: 600,
                Category.USER: 400, Category.OUT: 1200},
    )


def values(segs) -> list[tuple[str, int, int]]:  # type: ignore[no-untyped-def]
    return [(s.key, s.start, s.tokens) for s in segs]


def test_8k_bars_margin_and_capacity_line(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    draw(chart, chapter_8k())
    segs = chart.segments()
    assert values(segs["used"]) == [
        ("sys", 0, 800), ("hist", 800, 1200), ("evidence", 2000, 3000), ("tools", 5000, 600),
        ("user", 5600, 400), ("out", 6000, 1200), ("margin", 7200, 800)]
    assert values(segs["declared"]) == [
        ("sys", 0, 800), ("hist", 800, 1200), ("evidence", 2000, 3000), ("tools", 5000, 600),
        ("user", 5600, 400), ("out", 6000, 1200)]
    assert chart.capacity_line == 8000
    assert chart.verdict() == "fits, 800 tokens margin"
    assert chart.verdict_label.property("state") == "ok"
    assert chart.state() == "\u2714 OK"  # symbol + word (issue 9)
    assert "capacity 8,000 tokens" in chart.numbers_label.text()
    assert chart.legend.labels() == [
        "system policy", "history", "evidence", "tools", "user request", "reserved output", "margin"]


def test_over_capacity_is_red_segment_and_words(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    draw(chart, chapter_8k(evidence=4500))
    used = chart.segments()["used"]
    assert values(used)[-1] == ("over", 8000, 700)
    assert used[-1].label == "over capacity"
    assert "over capacity" in chart.legend.labels()
    assert chart.verdict() == "over capacity by 700 tokens: had 6,800 tokens left, needed 7,500"
    assert chart.verdict_label.property("state") == "failure"
    assert chart.state() == "\u2716 FAILURE"


def test_trimmed_trace_says_before_trimming(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    draw(chart, chapter_8k(omitted=1500))
    assert chart.verdict() == "fits, 800 tokens margin; before trimming: over by 700"
    assert values(chart.segments()["used"])[-1] == ("margin", 7200, 800)


def test_capacity_not_recorded_is_words_not_a_line(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    trace = replace(chapter_8k(), endpoint=Endpoint(capacity=None), budget={})
    draw(chart, trace)
    assert chart.verdict() == "capacity not recorded"
    assert chart.capacity_line is None
    assert chart.segments()["declared"] == []
    assert [s.key for s in chart.segments()["used"]] == ["sys", "hist", "evidence", "tools", "user", "out"]
    assert chart.verdict_label.property("state") == "ok"  # not recorded is neutral (info)
    assert chart.figure is not None and chart.figure.note == "capacity not recorded"


def test_factory_trace_and_clear(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    draw(chart, make_trace())
    assert chart.verdict() == "fits, 6,601 tokens margin"
    draw(chart, None)
    assert chart.segments() == {"used": [], "omitted": [], "declared": []}
    assert chart.verdict() == ""
    assert chart.is_empty() and chart.empty_label.text() == "No trace selected."


# --------------------------------------------------------------------------- issue 13


def test_omitted_tokens_per_category_hatched_with_exact_tooltips(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    draw(chart, chapter_8k(omitted=1500))
    assert values(chart.segments()["omitted"]) == [("evidence", 0, 1500)]
    assert [name for name, _ in chart.figure.rows] == ["used", "omitted", "declared"]
    assert "evidence: 1,500 tokens omitted" in chart.tooltips()
    assert "evidence: 3,000 tokens retained" in chart.tooltips()
    assert "margin: 800 tokens" in chart.tooltips()
    assert chart.legend.labels()[-1] == "omitted (hatched)"
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QBrush
    bars = [i for i in chart.ensure_plot().items if isinstance(i, pg.BarGraphItem)]
    hatched = [b for b in bars if isinstance(b.opts["brush"], QBrush) and b.opts["brush"].style() == Qt.BrushStyle.BDiagPattern]
    assert len(hatched) == 1 and hatched[0].toolTip() == "evidence: 1,500 tokens omitted"


def test_refund_sample_omitted_history_and_evidence(qtbot) -> None:
    from pathlib import Path

    from ctxviewer.store import TraceStore
    with TraceStore.open(Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db") as st:
        trace = st.load("refund-approval-forgotten")
    chart = BudgetChart()
    qtbot.addWidget(chart)
    draw(chart, trace)
    assert values(chart.segments()["omitted"]) == [("hist", 0, 278), ("evidence", 278, 231)]


def test_axis_in_k_and_m_with_separators(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    axis = chart.ensure_plot().getAxis("bottom")
    assert axis.tickStrings([0, 500000, 1000000, 1500000, 2000000], 1.0, 500000) == ["0", "0.5M", "1M", "1.5M", "2M"]
    assert axis.tickStrings([1000, 2000, 8000], 1.0, 1000) == ["1k", "2k", "8k"]
    assert axis.tickStrings([500, 1000, 1500], 1.0, 500) == ["500", "1,000", "1,500"]
    big = replace(chapter_8k(), endpoint=Endpoint(capacity=2_000_000))
    draw(chart, big)
    assert chart.capacity_line == 2_000_000


def test_legend_order_is_fixed_whatever_the_trace(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    # tools declared but unused: it used to come after "reserved output" (first seen in the declared bar)
    t = chapter_8k()
    no_tools = replace(t, items=tuple(i for i in t.items if i.kind is not Kind.TOOL))
    draw(chart, no_tools)
    assert chart.legend.labels() == [
        "system policy", "history", "evidence", "tools", "user request", "reserved output", "margin"]
    draw(chart, chapter_8k(evidence=4500, omitted=10))
    assert chart.legend.labels() == [
        "system policy", "history", "evidence", "tools", "user request", "reserved output", "over capacity",
        "omitted (hatched)"]


def test_empty_state_has_no_axis(qtbot) -> None:
    chart = BudgetChart()
    qtbot.addWidget(chart)
    draw(chart, chapter_8k())
    assert not chart.is_empty()
    chart.set_assessment(None, "No trace matches the filter “zzz”.")
    assert chart.is_empty()
    assert chart.empty_label.text() == "No trace matches the filter “zzz”."
    assert chart.legend.labels() == [] and chart.verdict() == ""


def test_a_request_far_under_its_window_is_zoomed_to_its_items_and_names_c_at_the_edge(qtbot) -> None:
    """Input 6,000 + B_out 1,200 against C = 128,000: zoomed by default (x range 7,416 tokens, so the
    policy's 800 tokens are 11 % of the plot, not 0.6 %), C named at the right edge; the action
    shows the whole window (x range 131,840) and back; a trace near its C offers no zoom."""
    from ctxviewer.gui.budget_chart import ZOOM_SHORTCUT

    chart = BudgetChart()
    qtbot.addWidget(chart)
    chart.resize(700, 320)
    chart.show()
    draw(chart, replace(chapter_8k(), endpoint=Endpoint(capacity=128_000), budget={}))
    assert (chart.act_zoom.isEnabled(), chart.act_zoom.isChecked(), chart.zoom_button.isVisible()) == (True, True, True)
    assert chart.act_zoom.shortcut().toString() == ZOOM_SHORTCUT
    assert chart.x_end == 7_200 * 1.03
    assert chart.capacity_line == 128_000  # the line is where C is: past the zoomed range
    texts = [i.toPlainText() for i in chart.ensure_plot().items if hasattr(i, "toPlainText")]
    assert "C = 128,000 \u2192" in texts and "800" in texts
    chart.act_zoom.trigger()
    qtbot.waitUntil(lambda: chart.x_end == 128_000 * 1.03)
    texts = [i.toPlainText() for i in chart.ensure_plot().items if hasattr(i, "toPlainText")]
    assert "C = 128,000 \u2192" not in texts and "120,800" in texts and "800" not in texts
    chart.act_zoom.trigger()
    draw(chart, chapter_8k())
    qtbot.waitUntil(lambda: chart.x_end == 8_000 * 1.03)
    assert (chart.act_zoom.isEnabled(), chart.zoom_button.isVisible()) == (False, False)


def test_over_capacity_lies_on_the_input_and_labels_stay_apart(qtbot) -> None:
    """A 120,005-token user request with B_out 500 against C = 8,192: the overflow (112,319) lies
    translucent on the input and B_out past C; the user segment's label would sit in its visible
    part before C (6.6 % of the range, too narrow for "120,005"), so only the overflow is labelled;
    C's label is right of its line (it is near the left edge)."""
    chart = BudgetChart()
    qtbot.addWidget(chart)
    items = (ContextItem(Kind.POLICY, "p", "x", Status.RETAINED, tokens=6),
             ContextItem(Kind.USER, "u", "x", Status.RETAINED, tokens=120_005))
    draw(chart, replace(chapter_8k(), items=items, endpoint=Endpoint(capacity=8_192), reserved_output_tokens=500,
                        budget={}))
    assert values(chart.segments()["used"]) == [("sys", 0, 6), ("user", 6, 120_005), ("out", 120_011, 500),
                                                ("over", 8_192, 112_319)]
    plot = chart.ensure_plot()
    texts = [i.toPlainText() for i in plot.items if hasattr(i, "toPlainText")]
    assert texts == ["112,319"]
    over = [i for i in plot.items if getattr(i, "opts", {}).get("x0") == [8_192]][0]
    assert over.opts["brush"].alpha() == 110
    line = [i for i in plot.items if hasattr(i, "label") and getattr(i, "value", None) and i.value() == 8_192][0]
    assert line.label.toPlainText() == "C = 8,192" and line.label.anchors == [(0, 0), (0, 0)]


def test_numbers_take_two_lines_beside_the_zoom_button_and_the_height_stays(qtbot) -> None:
    from ctxviewer.gui.budget_chart import NUMBERS_LINES

    chart = BudgetChart()
    qtbot.addWidget(chart)
    chart.resize(520, 400)  # narrower than the 1280 px window's chart (700 px), with the zoom button
    heights = []
    small = make_trace()  # declares a safety margin of 800
    big = replace(small, endpoint=replace(small.endpoint, capacity=128_000))  # offers the zoom
    for trace in (small, big):
        chart.show()
        draw(chart, trace)
        chart._elide()
        heights.append(chart.fixed_height(520))
    assert chart.zoom_button.isVisibleTo(chart)
    assert chart.numbers() == ("input 199 + reserved output 1,200 of capacity 128,000 tokens · declared safety "
                               "margin 800")
    assert chart.numbers_label.text() == chart.numbers()  # whole, wrapped: capacity and margin in view
    assert chart.numbers_label.wordWrap() and NUMBERS_LINES == 2
    assert chart.numbers_label.height() == 2 * chart.numbers_label.fontMetrics().lineSpacing() + 2
    assert len(set(heights)) == 1  # one line of numbers or two: the chart's height is the same
    long = "input 7,200 + " + " + ".join(f"part {n:,}" for n in range(60))  # far past two lines
    chart._numbers_text = long
    chart._elide()
    shown = chart.numbers_label.text()
    assert shown.endswith("…") and long.startswith(shown[:-1].rstrip()) and "part 59" in chart.numbers_label.toolTip()
