"""The window's header flags a span that ends before it starts (issue 27 item 4): the golden span
``tests/data/spans/negative-duration.otlp.json`` ends 12 ms before its start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxviewer.pipeline.importing import import_into

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "spans" / "negative-duration.otlp.json"


def test_the_span_row_says_negative_duration(windows: Any, tmp_path: Path) -> None:
    db = tmp_path / "neg.db"
    assert import_into(db, [GOLDEN], workers=1).imported == 1
    w = windows.open(db)
    rows = dict(w.detail.rows())
    assert rows["Span"] == "ok · ended with a negative duration (end before start: -12 ms)"
    assert w.panel.assessment.state.value == "warning"
    assert [f.rule for f in w.panel.assessment.findings if f.severity.value == "warning"] == ["input.implausible"]
