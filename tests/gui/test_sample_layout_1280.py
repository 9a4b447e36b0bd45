"""Issue 13 leftovers seen on screenshots of the samples at 1280x800: the chart's ``C = 16,000``
label covered a bar value in ``history-16k``; the Findings detail was cut mid-line."""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
import pytest

from ctxviewer.gui.findings_panel import FindingsPanel
from ctxviewer.gui.screenshot import screenshot_window

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
WITH_FINDINGS = ["history-16k", "refund-approval-forgotten", "ticket-injection", "policy-missing",
                 "evidence-in-middle", "json-unsupported"]


@pytest.mark.slow
@pytest.mark.parametrize("trace_id", ["history-16k", "budget-8k", "refund-approval-forgotten"])
def test_capacity_label_covers_no_bar_and_no_value(qapp, trace_id: str) -> None:
    with screenshot_window(SAMPLES, trace_id) as w:
        plot = w.chart.ensure_plot()
        lines = [i for i in plot.items if isinstance(i, pg.InfiniteLine)]
        assert len(lines) == 1 and lines[0].label.format == "C = " + f"{int(w.chart.capacity_line or 0):,}"
        label = lines[0].label.sceneBoundingRect()
        assert label.height() > 0
        values = [i for i in plot.items if isinstance(i, pg.TextItem)]
        bars = [i for i in plot.items if isinstance(i, pg.BarGraphItem)]
        assert values and bars
        assert [v.toPlainText() for v in values if v.sceneBoundingRect().intersects(label)] == []
        assert [b for b in bars if b.sceneBoundingRect().intersects(label)] == []
        # the label is inside the plot, not cut off at its top
        assert plot.getViewBox().sceneBoundingRect().adjusted(-1, -1, 1, 1).contains(label)


@pytest.mark.slow
@pytest.mark.parametrize("trace_id", WITH_FINDINGS)
def test_findings_detail_shows_whole_lines_and_all_of_them(qapp, trace_id: str) -> None:
    with screenshot_window(SAMPLES, trace_id) as w:
        fp = w.findChild(FindingsPanel)
        assert fp.isVisible()  # a trace with findings opens on its Findings tab
        line = fp.detail.fontMetrics().lineSpacing()
        assert (fp.detail_scroll.height() - 2) % line == 0  # whole lines: no line shows in part
        need = fp.detail.heightForWidth(fp.detail_scroll.viewport().width())
        assert fp.detail_scroll.verticalScrollBar().maximum() == 0, (need, fp.detail_scroll.height())
        assert need <= fp.detail_scroll.viewport().height()
        assert fp.detail.text().splitlines()[-1].startswith(("failure: ", "warning: ", "info: ", "critical: "))
        rows = min(2, sum(1 + fp.model.rowCount(fp.model.index(r, 0)) for r in range(fp.model.rowCount())))
        assert fp.view.viewport().height() >= rows * fp.view.sizeHintForRow(0)  # the list keeps its rows
        assert fp.view.horizontalScrollBar().isHidden() or not fp.view.horizontalScrollBar().isVisible()
