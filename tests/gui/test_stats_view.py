"""Trace › Statistics… (issue 22 item 5): the sums of ``ctxviewer stats`` over the list's filter as a
table, a chart with the exact value on hover, and a CSV export with the same numbers."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from shared_data import needs_corpus

from ctxviewer.gui.stats_view import HEADERS, StatsView
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceQuery, TraceStore

pytestmark = needs_corpus

INSPECT = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "other" / "inspect_ai"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stats") / "inspect.db"
    with TraceStore.create(path) as store:
        import_files([INSPECT], store, workers=1)
    return path


def test_table_chart_and_csv_agree_with_the_store(qtbot, db: Path, tmp_path: Path) -> None:
    with TraceStore.open(db) as store:
        total, groups = store.aggregate(TraceQuery(), "model")
    view = StatsView()
    qtbot.addWidget(view)
    view.show_groups(total, groups, "7 traces")
    assert [view.table.item(r, 0).text() for r in range(view.table.rowCount())] == [
        "gemma3", "gpt-4o", "gpt-4o-mini", "total"]
    header = {h: i for i, h in enumerate(HEADERS)}
    assert view.table.item(0, header["cost (USD)"]).text() == "not known"  # ollama/gemma3: no price, never $0
    assert view.table.item(2, header["calls"]).text() == "5"
    assert view.table.item(3, header["cost (USD)"]).text().startswith("≥ $")  # one of 7 calls not priced
    view.measure.setCurrentText("output tokens")
    assert view.tip_for(2) == f"gpt-4o-mini: {groups[2].output_tokens:,} output tokens"
    out = tmp_path / "stats.csv"
    view.write_csv(out)
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows[0] == list(HEADERS)
    assert [r[0] for r in rows[1:]] == ["gemma3", "gpt-4o", "gpt-4o-mini", "total"]
    assert rows[1][header["cost (USD)"]] == ""  # not known: empty, not 0
    assert float(rows[4][header["cost (USD)"]]) == pytest.approx(total.cost, rel=1e-12)
    assert int(rows[3][header["output tokens"]]) == groups[2].output_tokens


def test_group_names_are_not_elided_and_the_total_row_stands_out(qtbot, db: Path) -> None:
    with TraceStore.open(db) as store:
        total, groups = store.aggregate(TraceQuery(), "session")
    view = StatsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.waitExposed(view)
    view.show_groups(total, groups, "7 traces")
    table = view.table
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert names[-1] == "total" and max(len(n) for n in names) == 22  # an Inspect sample's uuid as the session id
    fm = table.fontMetrics()
    widest = max(fm.horizontalAdvance(n) for n in names)
    assert table.columnWidth(0) >= widest + 6  # the whole name and the cell's margins: nothing elided
    assert table.columnWidth(0) == max(table.sizeHintForColumn(0), table.horizontalHeader().sectionSizeHint(0))
    assert not table.verticalHeader().isVisible()  # no row numbers
    assert table.item(table.rowCount() - 1, 1).font().bold() and not table.item(0, 1).font().bold()


def test_window_bands_without_a_recorded_capacity_say_not_recorded(qtbot) -> None:
    from ctxviewer.store.aggregates import Group

    def group(key: str, window: tuple[int, ...]) -> Group:
        return Group(key, 2, 100, 2, 10, 2, 0.0, 0, None, None, 0, 2, 0, 0, 0, window)

    view = StatsView()
    qtbot.addWidget(view)
    view.show_groups(group("", (1, 1, 0, 0, 0)), [group("assumed-C", (0, 0, 0, 0, 0)), group("known-C", (1, 1, 0, 0, 0))], "")
    bands = [i for i, h in enumerate(HEADERS) if h.startswith("input/C")]
    assert [view.table.item(0, c).text() for c in bands] == ["not recorded"] * 5  # not "0 calls under 50%"
    assert [view.table.item(1, c).text() for c in bands] == ["1", "1", "0", "0", "0"]
    assert view.table.horizontalHeaderItem(bands[0]).toolTip().startswith("calls whose input tokens and capacity C")
