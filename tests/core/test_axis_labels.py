"""Issue 13: token-axis labels in k / M with separators, never ``1e+06``; the omitted bar."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.assess.assessment import assess
from ctxviewer.report.budget_svg import budget_svg
from ctxviewer.store import TraceStore
from ctxviewer.util.axis_labels import tick_label, tick_labels


@pytest.mark.parametrize("values,spacing,labels", [
    ([0, 500_000, 1_000_000, 1_500_000, 2_000_000], 500_000, ["0", "0.5M", "1M", "1.5M", "2M"]),
    ([0, 200_000, 400_000], 200_000, ["0", "200k", "400k"]),
    ([1000, 2000, 8000], 1000, ["1k", "2k", "8k"]),
    ([2500, 5000, 7500], 2500, ["2.5k", "5k", "7.5k"]),
    ([500, 1000, 1500], 500, ["500", "1,000", "1,500"]),
    ([1_000, 1_500_000], 1000, ["1k", "1,500k"]),
    ([0, 0.5, 1], 0.5, ["0", "0.5", "1"]),
])
def test_tick_labels(values: list[float], spacing: float, labels: list[str]) -> None:
    assert tick_labels(values, spacing) == labels
    assert all("e+" not in x for x in labels)


def test_single_label_defaults_to_its_own_size() -> None:
    assert tick_label(2_000_000, 1_000_000) == "2M"
    assert tick_label(16_000, 2_000) == "16k"


def test_omitted_row_of_json_unsupported_and_svg() -> None:
    with TraceStore.open(Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db") as st:
        fig = assess(st.load("json-unsupported")).figure
    assert [(s.key, s.start, s.tokens) for s in fig.omitted] == [("evidence", 0, 175)]
    assert [name for name, _ in fig.rows] == ["used", "omitted", "declared"]
    svg = budget_svg(fig)
    assert "<title>evidence: 175 tokens omitted</title>" in svg
    assert 'fill-opacity="0.25" stroke="#d97706"' in svg
