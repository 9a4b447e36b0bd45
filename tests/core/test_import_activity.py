"""Progress inside one huge item (issue 12: "importing a 50 MB item ... with no progress").

Token counting and the injection scan of a long text report how far they are through
:func:`ctxviewer.util.interrupt.progress`; ``import_into(..., activity=...)`` hears it (the import dialog
shows it under its label).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from factories import make_trace

from ctxviewer.importers.formats.native import write_jsonl
from ctxviewer.pipeline.importing import import_into
from ctxviewer.util import interrupt

FILLER = "The parcel left the depot on Monday and reached the sorting centre on Tuesday.\n"


def _huge_trace_file(path: Path, chars: int) -> str:
    base = make_trace()
    text = (FILLER * (chars // len(FILLER) + 1))[:chars]
    items = list(base.items)
    items[4] = replace(items[4], content=text, tokens=None)  # untrusted evidence: counted and scanned
    write_jsonl([replace(base, trace_id="huge", items=tuple(items))], path)
    return text


def test_a_huge_item_reports_counting_and_scanning(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(interrupt, "PROGRESS_EVERY_S", 0.0)  # every report, not a few a second
    src = tmp_path / "huge.jsonl"
    _huge_trace_file(src, 1_200_000)
    heard: list[str] = []
    report = import_into(tmp_path / "o.db", [src], activity=heard.append)
    assert report.imported == 1
    counting = [m for m in heard if m.startswith("counting tokens: ")]
    scanning = [m for m in heard if m.startswith("scanning for instruction-like text: ")]
    assert counting[0] == "counting tokens: 0 % of 1.2 million characters"
    assert len(counting) >= 10 and counting[-1].endswith("% of 1.2 million characters")  # per 100,000-char chunk
    assert scanning[:3] == ["scanning for instruction-like text: 0 % of 1.2 million characters",
                            "scanning for instruction-like text: 8 % of 1.2 million characters",
                            "scanning for instruction-like text: 16 % of 1.2 million characters"]


def test_short_texts_and_runs_without_activity_report_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(interrupt, "PROGRESS_EVERY_S", 0.0)
    src = tmp_path / "small.jsonl"
    _huge_trace_file(src, 200_000)  # under PROGRESS_MIN_CHARS
    heard: list[str] = []
    assert import_into(tmp_path / "o.db", [src], activity=heard.append).imported == 1
    assert heard == []
    interrupt.progress("counting tokens", 0, 5_000_000)  # outside an import: nobody listens, nothing breaks
