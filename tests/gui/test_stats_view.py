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
    # one of 7 calls not priced: said with how many, as `ctxviewer stats` says it (a new user saw only "≥")
    assert view.table.item(3, header["cost (USD)"]).text() == f"≥ ${total.cost:,.6f} (1 not known)"
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
    from ctxviewer.store.group_sums import Group

    def group(key: str, window: tuple[int, ...]) -> Group:
        return Group(key, 2, 100, 2, 10, 2, 0.0, 0, None, None, 0, 2, 0, 0, 0, window)

    view = StatsView()
    qtbot.addWidget(view)
    view.show_groups(group("", (1, 1, 0, 0, 0)), [group("assumed-C", (0, 0, 0, 0, 0)), group("known-C", (1, 1, 0, 0, 0))], "")
    bands = [i for i, h in enumerate(HEADERS) if h.startswith("C used")]
    assert [view.table.item(0, c).text() for c in bands] == ["not recorded"] * 5  # not "0 calls under 50%"
    assert [view.table.item(1, c).text() for c in bands] == ["1", "1", "0", "0", "0"]
    assert view.table.horizontalHeaderItem(bands[0]).toolTip().startswith("calls by (input + reserved output) / C as the header decided eq. 3.1")


def _group(key: str, calls: int):  # type: ignore[no-untyped-def]
    from ctxviewer.store.group_sums import Group

    return Group(key, calls, 10 * calls, calls, calls, calls, 0.0, 0, None, None, 0, calls, 0, 0, 0, (0, 0, 0, 0, 0))


def test_many_groups_show_those_with_most_calls_and_the_csv_holds_all(qtbot, tmp_path: Path) -> None:
    from ctxviewer.gui.stats_view import SHOWN_GROUPS

    groups = [_group(f"s-{i:03d}", 1 + i % 7) for i in range(250)]  # keys in order; calls 1..7 repeating
    total = _group("", sum(g.calls for g in groups))
    view = StatsView()
    qtbot.addWidget(view)
    view.show_groups(total, groups, "1,000 traces")
    assert SHOWN_GROUPS == 200 and view.table.rowCount() == 201  # 200 groups and the total
    shown = [view.table.item(r, 0).text() for r in range(200)]
    assert shown == sorted(shown)  # still in key order
    # the 35 groups of 7 calls, 36 of 6 ... down to the first 201 - 36*... : every group not shown has no more calls
    assert max(g.calls for g in groups if g.key not in shown) <= min(g.calls for g in groups if g.key in shown)
    assert sum(1 for g in groups if g.calls == 1) == 36 and sum(1 for k in shown if int(k[2:]) % 7 == 0) == 0
    assert view.note.text() == ("1,000 traces; the 200 of 250 models with the most calls are shown "
                                "(Export CSV writes all 250)")  # the picker says model
    ticks = view.plot.getAxis("bottom")._tickLevels[0]
    assert [t[0] for t in ticks] == list(range(0, 200, 13)) and ticks[1][1] == shown[13]  # 16 names, not 200
    assert view.tip_for(13) == f"{shown[13]}: {groups[int(shown[13][2:])].calls} calls"
    out = tmp_path / "all.csv"
    view.write_csv(out)
    assert len(list(csv.reader(out.open(encoding="utf-8")))) == 1 + 250 + 1  # header, every group, total


def test_the_window_computes_in_the_background_and_cancel_stops_the_statement(qtbot, windows, db: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3
    import threading

    from ctxviewer.store.aggregates import TraceAggregates

    w = windows.open(db)
    w.stats.open()
    view = w.stats.view
    qtbot.waitUntil(lambda: w.stats.task is None and view.table.rowCount() == 4, timeout=10_000)  # 3 models + total
    assert view.note.text() == "7 traces" and not view.cancel.isVisible()

    entered, ended = threading.Event(), threading.Event()
    real = TraceAggregates.aggregate_top

    def endless(self, query, by, top):  # type: ignore[no-untyped-def]
        entered.set()
        try:
            self._conn.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                               "SELECT count(*) FROM c").fetchall()
        except sqlite3.OperationalError as exc:
            ended.set()
            raise self._fail("cannot aggregate traces", exc) from None
        return real(self, query, by, top)

    monkeypatch.setattr(TraceAggregates, "aggregate_top", endless)
    view.by.setCurrentText("day")  # a new grouping: computed in the background
    assert entered.wait(10)
    assert view.cancel.isVisible() and view.note.text() == "computing by day…"
    assert view.table.rowCount() == 4  # the figures from before stay while it runs
    view.cancel.click()
    assert ended.wait(10)  # the statement was interrupted, not left running
    assert view.note.text() == "cancelled: the figures shown are from before" and not view.cancel.isVisible()
    monkeypatch.setattr(TraceAggregates, "aggregate_top", real)
    view.by.setCurrentText("session")
    qtbot.waitUntil(lambda: w.stats.task is None and view.note.text() == "7 traces", timeout=10_000)
    assert view.table.rowCount() > 1 and view.table.item(view.table.rowCount() - 1, 0).text() == "total"
    view.close()


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """250 sessions (s-000 ... s-249) of 1 + i % 7 calls each, and 3 calls with no session."""
    from dataclasses import replace

    from factories import make_trace

    from ctxviewer.pipeline.stored_facts import with_facts

    traces = [replace(make_trace(), trace_id=f"t{i}-{j}", session_id=f"s-{i:03d}") for i in range(250)
              for j in range(1 + i % 7)]
    traces += [replace(make_trace(), trace_id=f"lone-{j}", session_id=None) for j in range(3)]
    path = tmp_path_factory.mktemp("many") / "many.db"
    with TraceStore.create(path) as store:
        store.add(with_facts(traces))
    return path


def test_the_store_ranks_the_shown_groups_as_the_window_would(many: Path) -> None:
    from ctxviewer.gui.stats_view import SHOWN_GROUPS, shown_groups

    with TraceStore.open(many) as store:
        total, groups = store.aggregate(None, "session")
        top_total, top, n = store.aggregate_top(None, "session", SHOWN_GROUPS)
        filtered = store.aggregate_top(TraceQuery(text='conversation ~ "s-1"'), "session", 5)
    assert n == 251 and len(top) == 200 and top == shown_groups(groups)  # the same 200, in key order
    assert top[0].key is None and top[0].calls == 3  # the calls with no session first, as the full list has them
    assert (top_total.calls, top_total.input_tokens, top_total.ok) == (total.calls, total.input_tokens, total.ok)
    assert total.calls == 3 + sum(1 + i % 7 for i in range(250))
    assert filtered[2] == 100 and [g.calls for g in filtered[1]] == [7, 7, 7, 7, 7]  # s-1xx: 100 sessions
    assert [g.key for g in filtered[1]] == ["s-104", "s-111", "s-118", "s-125", "s-132"]  # ties: key order


def test_the_window_shows_the_top_groups_and_exports_every_one(qtbot, windows, many: Path, tmp_path: Path) -> None:
    w = windows.open(many)
    w.stats.open()
    view = w.stats.view
    view.by.setCurrentText("session")
    qtbot.waitUntil(lambda: w.stats.task is None and view.table.rowCount() == 201, timeout=10_000)
    assert len(view.groups) == 200 and view.n_groups == 251  # only what it shows came from the store
    assert view.note.text() == ("998 traces; the 200 of 251 sessions with the most calls are shown "
                                "(Export CSV writes all 251)")
    out = tmp_path / "every.csv"
    w.filter_edit.setText('conversation ~ "s-1"')  # the list's filter changes; the window does not follow it
    view.export_to(out)  # what Export CSV… does once the file is picked: the table's own groups
    qtbot.waitUntil(lambda: w.stats.task is None and out.exists(), timeout=10_000)
    qtbot.waitUntil(lambda: view.note.text().startswith("wrote"), timeout=10_000)
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert len(rows) == 1 + 251 + 1 and rows[1][0] == "" and rows[2][0] == "s-000" and rows[-1][0] == "total"
    assert rows[-1][1] == "998"
    assert view.note.text() == f"wrote 251 groups and the total to {out}"
    bad = tmp_path / "no-such-folder" / "x.csv"
    view.export_to(bad)
    qtbot.waitUntil(lambda: w.stats.task is None and view.note.text().startswith("cannot write"), timeout=10_000)
    assert view.note.text().startswith(f"cannot write {bad}: ") and "No such file or directory" in view.note.text()
    view.close()


def test_the_window_says_when_the_states_summed_are_stale(qtbot, windows, tmp_path: Path) -> None:
    import shutil

    samples = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    db = tmp_path / "samples.db"
    shutil.copyfile(samples, db)
    (tmp_path / "ctxviewer.toml").write_text('[context_window.traces]\n"budget-8k" = 1000\n', encoding="utf-8")
    w = windows.open(db)
    w.stats.open()
    view = w.stats.view
    qtbot.waitUntil(lambda: w.stats.task is None and view.table.rowCount() > 1, timeout=10_000)
    assert view.note.text() == ("9 traces; 9 of them assessed with other settings or an older ctxviewer: their "
                                "states and bands are as stored at import")
    view.close()
