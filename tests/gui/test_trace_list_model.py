"""TraceListModel: rows and values from a real store; keys read off the GUI thread, pages by key,
a bounded page cache, the scroll range and the real end from the start; SQL filter and sort."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
import time
from pathlib import Path

import pytest
from factories import make_trace
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QTableView

from ctxviewer.assess.budget import check_capacity
from ctxviewer.gui import trace_list_pages
from ctxviewer.gui.trace_list_model import PAGE_ROWS, RowRole, TraceIdRole, TraceListModel
from ctxviewer.model.trace import NOT_RECORDED
from ctxviewer.store import TraceStore


def column_texts(model: TraceListModel, row: int) -> list[str]:
    return [model.data(model.index(row, c)) for c in range(model.columnCount())]


def test_rows_and_values(qtmodeltester, db: Path) -> None:
    with TraceStore.open(db) as st:
        model = TraceListModel(st)
        qtmodeltester.check(model)
        assert model.rowCount() == 4 and model.total == 4
        ids = [model.data(model.index(r, 0), TraceIdRole) for r in range(4)]
        # ascending by created, NULL first
        assert ids == ["delta", "alpha", "bravo", "charlie"]
        n = check_capacity(make_trace()).input_tokens
        assert n == 199  # the factory's true cl100k counts of the retained items
        assert column_texts(model, 1) == ["2026-01-05 08:00:00", "alpha", "gpt-4o-mini", "199 / 8,000", "6 / 1", "ok", "\u2014", "\u2014", "sess-2f9c", "not recorded", "not recorded", "not known", "\u2014"]
        assert column_texts(model, 0)[0] == NOT_RECORDED
        assert column_texts(model, 0)[4] == "7 / 0"
        assert column_texts(model, 2)[2] == "claude-sonnet-4"
        assert column_texts(model, 3)[3] == "199 / not recorded"
        assert model.data(model.index(1, 0), RowRole).trace_id == "alpha"
        assert model.headerData(3, Qt.Orientation.Horizontal) == "Input /\ncapacity"
        align = model.data(model.index(1, 3), Qt.ItemDataRole.TextAlignmentRole)
        assert align & int(Qt.AlignmentFlag.AlignRight)


def test_data_never_raises(db: Path) -> None:
    with TraceStore.open(db) as st:
        model = TraceListModel(st)
        assert model.data(model.index(99, 0)) is None
        assert model.data(model.index(0, 99)) is None
        assert model.data(model.index(0, 0), 12345) is None
    assert TraceListModel().rowCount() == 0


def wait_counted(qtbot, model: TraceListModel, action=None) -> None:  # type: ignore[no-untyped-def]
    """Run ``action`` (if any) and wait until the model has its keys; a store error fails the test
    with its message. Pumps events with ``processEvents`` itself: qtbot's waits run a nested
    QEventLoop, which returns at once once another test has quit the application's loop."""
    errors: list[str] = []
    model.sig_error.connect(errors.append)
    if action is not None:
        action()
    deadline = time.monotonic() + 120
    while not (model.keys_ready or errors) and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.005)
    model.sig_error.disconnect(errors.append)
    assert not errors and model.counted and model.keys_ready


def ids(model: TraceListModel) -> list[str | None]:
    return [model.trace_id(r) for r in range(model.rowCount())]


def test_all_rows_from_the_start_and_the_keys_off_the_gui_thread(qtbot, qtmodeltester, big_db: Path) -> None:
    with TraceStore.open(big_db) as st:
        model = TraceListModel(st)
        # before the keys: the scroll range already spans every row, the first page and the real
        # end are there; the rows between are not read yet
        assert model.rowCount() == 450 and not model.counted
        assert model.trace_id(0) == "t-000" and model.trace_id(99) == "t-099"
        assert model.trace_id(449) == "t-449" and model.trace_id(350) == "t-350"  # the reverse keyset page
        assert model.trace_id(250) is None
        events: list[str] = []
        model.sig_counted.connect(lambda n: events.append(f"counted {n}, keys ready: {model.keys_ready}"))
        model.sig_keys_ready.connect(lambda: events.append("keys ready"))
        wait_counted(qtbot, model)
        # the exact count first (SELECT count(*)), the keys after it
        assert events == ["counted 450, keys ready: False", "keys ready"]
        assert model.counted and model.total == 450
        assert ids(model) == [f"t-{i:03d}" for i in range(450)]
        assert model.row_of("t-321") == 321 and model.row_of("nope") is None
        qtmodeltester.check(model)


def test_pages_read_by_key_never_offset_never_payloads(monkeypatch, qtbot, big_db: Path) -> None:
    monkeypatch.setattr(trace_list_pages, "CACHE_PAGES", 2)  # the page cache's bound (its part of the model)
    with TraceStore.open(big_db) as st:
        sql: list[str] = []
        st._conn.set_trace_callback(sql.append)
        model = TraceListModel(st, threaded=False)
        assert model.counted and model.rowCount() == 450
        assert ids(model)[::150] == ["t-000", "t-150", "t-300"]
        assert len(model._pages) == 2  # bounded: only the two most recently read pages stay
        assert sorted(model._pages) == [3, 4]
        reads = [q for q in sql if "rowid IN" in q]
        assert len(reads) == 5  # one lookup per page of PAGE_ROWS
        assert PAGE_ROWS == 100
        assert not [q for q in sql if "OFFSET" in q.upper()]
        assert not [q for q in sql if any(t in q for t in ("details", "blobs", "items"))]
        assert model.trace_id(10) == "t-010"  # page 0 read again after it was dropped
        assert len([q for q in sql if "rowid IN" in q]) == 6


def test_filter_fragment_and_sort_requery_the_store(qtbot, qtmodeltester, db: Path, big_db: Path) -> None:
    with TraceStore.open(db) as st:
        model = TraceListModel(st)
        wait_counted(qtbot, model, lambda: model.set_where("model = ? AND capacity IS NOT NULL", ["claude-sonnet-4"]))
        assert ids(model) == ["bravo"] and model.where == ("model = ? AND capacity IS NOT NULL", ("claude-sonnet-4",))
        wait_counted(qtbot, model, lambda: model.set_filter(""))
        model.sort(1, Qt.SortOrder.DescendingOrder)  # trace id: an index walk, read at once
        assert model.sort_order == ("trace_id", True)
        assert ids(model) == ["delta", "charlie", "bravo", "alpha"]
        qtmodeltester.check(model)
    with TraceStore.open(big_db) as st:
        model = TraceListModel(st, threaded=False)
        model.sort(0, Qt.SortOrder.DescendingOrder)
        assert model.trace_id(0) == "t-449"  # newest first, from SQL across all 450 rows
        model.set_filter("t-44")
        assert model.total == 10 and ids(model) == [f"t-44{i}" for i in range(9, -1, -1)]
        model.set_sort("retained_count")  # not an index walk: read off the GUI thread when threaded
        assert ids(model)[:2] == ["t-440", "t-441"]


def test_store_error_is_a_signal_not_an_exception(qtbot, db: Path, big_db: Path) -> None:
    st = TraceStore.open(db)
    model = TraceListModel(st, threaded=False)
    st.close()
    with qtbot.waitSignal(model.sig_error) as blocker:
        model.set_filter("x")
    assert blocker.args and isinstance(blocker.args[0], str)
    assert model.rowCount() == 0
    # threaded: the worker's own connection fails; the message names the file
    with TraceStore.open(big_db) as st:
        model = TraceListModel(st)
        big_db.unlink()
        errors: list[str] = []
        model.sig_error.connect(errors.append)
        model.set_filter("t-1")
        deadline = time.monotonic() + 120
        while not errors and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.005)
        assert errors and str(big_db) in errors[0]


def _generated(tmp: Path, n: int) -> Path:
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("gen_traces", root / "benchmarks" / "gen_traces.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_traces", mod)
    spec.loader.exec_module(mod)
    db = tmp / "gen.db"
    mod.write(db, n, seed=7)
    return db


@pytest.fixture(scope="module")
def gen_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,200 traces of the realistic generator (benchmarks/gen_traces.py)."""
    return _generated(tmp_path_factory.mktemp("genlist"), 1200)


@pytest.mark.slow
def test_generated_db_order_count_and_the_last_row_reachable(qtbot, gen_db: Path) -> None:
    sql_order = [r[0] for r in sqlite3.connect(gen_db).execute(
        "SELECT trace_id FROM traces ORDER BY input_tokens DESC, trace_id DESC")]
    assert len(sql_order) == 1200
    with TraceStore.open(gen_db) as st:
        model = TraceListModel(st)
        view = QTableView()
        view.setModel(model)
        view.resize(600, 400)
        qtbot.addWidget(view)
        view.show()
        wait_counted(qtbot, model, lambda: model.set_sort("input_tokens", descending=True))
        assert model.rowCount() == 1200
        assert ids(model) == sql_order
        # End: the view scrolls to the real last row at once
        view.scrollToBottom()
        QApplication.processEvents()
        bottom = view.indexAt(QPoint(2, view.viewport().height() - 2))
        assert bottom.row() == 1199
        assert model.data(bottom, TraceIdRole) == sql_order[-1]
        assert view.verticalScrollBar().maximum() > 0


def test_display_filter_is_planned_by_the_store_off_the_gui_thread(monkeypatch, qtbot, gen_db: Path) -> None:
    """set_filter takes display-filter text and plans it with the store's filter_where (as
    ``ctxviewer list --filter`` does), in the worker, with the count before the keys."""
    import threading

    from ctxviewer.store import TraceQuery

    planned: list[tuple[str, bool]] = []
    real = TraceStore.filter_where

    def spy(self: TraceStore, query: TraceQuery | None) -> tuple[str, list[object]]:
        planned.append((query.text if query else "", threading.current_thread() is threading.main_thread()))
        return real(self, query)

    monkeypatch.setattr(TraceStore, "filter_where", spy)
    with TraceStore.open(gen_db) as st:
        sid = st._conn.execute("SELECT session_id FROM traces GROUP BY session_id HAVING count(*) > 3 "
                               "ORDER BY session_id LIMIT 1").fetchone()[0]
        text = f"conversation == {sid} and omitted >= 0"
        where, params = real(st, TraceQuery(text=text))
        assert where.startswith("traces.rowid IN")  # the planner drives it from the session index
        expected = [r.trace_id for r in st.rows_by_key(st.row_keys(where, params)) if r is not None]
        assert len(expected) > 3
        model = TraceListModel(st)
        counts: list[int] = []
        model.sig_counted.connect(counts.append)
        wait_counted(qtbot, model, lambda: model.set_filter(text))
        assert planned == [(text, False)], planned  # planned once, in the worker
        assert counts == [len(expected)] and ids(model) == expected and model.filter_text == text
        wait_counted(qtbot, model, lambda: model.set_filter(""))
        assert model.total == 1200 and model.filter_text == ""


def test_end_shows_the_real_end_while_the_keys_arrive(monkeypatch, qtbot, big_db: Path) -> None:
    """Counted, the first chunk of keys in, the rest still being read: the first rows come by key,
    the last page by the reverse keyset query (End), the rows between are empty until their chunk."""
    import threading

    from ctxviewer.store import keyed_listing

    monkeypatch.setattr(keyed_listing, "KEY_CHUNK", 100)
    gate = threading.Event()
    real = TraceStore.key_chunks

    def held(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        for i, chunk in enumerate(real(self, *args, **kwargs)):
            if i == 1:
                gate.wait(30)
            yield chunk

    monkeypatch.setattr(TraceStore, "key_chunks", held)
    with TraceStore.open(big_db) as st:
        model = TraceListModel(st)
        deadline = time.monotonic() + 60
        while not (model.counted and model._filled == 100) and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.005)
        assert model.counted and model.total == 450 and not model.keys_ready
        assert model.trace_id(42) == "t-042"  # by key
        assert model.trace_id(449) == "t-449" and model.trace_id(350) == "t-350"  # the tail
        assert model.trace_id(250) is None  # its chunk is not there yet
        gate.set()
        wait_counted(qtbot, model)
        assert ids(model) == [f"t-{i:03d}" for i in range(450)]


@pytest.mark.parametrize(("chunk_rows", "painted", "expected"), [
    (100, 250, [(0, 99), (200, 299)]),  # one page per chunk
    (130, 150, [(0, 99), (100, 199)]),  # page 1 split over two chunks: repainted whole once complete
    (130, 330, [(0, 99), (300, 399)]),  # page 3 split over chunks 3 and 4 (390: after it the tail)
])
def test_key_chunks_repaint_only_the_rows_shown_before_them(monkeypatch, qtbot, big_db: Path, chunk_rows: int,
                                                           painted: int, expected: list[tuple[int, int]]) -> None:
    """A chunk of keys updates the rows painted before it came (the first page, read by keyset; a
    page painted empty) and no others: a dataChanged over every chunk repainted the whole list at
    each of the 61 chunks of a million keys."""
    import threading
    from array import array

    original = TraceStore.key_chunks
    go = threading.Event()

    def gated(st, *a, **k):  # type: ignore[no-untyped-def]
        go.wait(10)
        for chunk in original(st, *a, **k):
            for start in range(0, len(chunk), chunk_rows):
                yield array("q", chunk[start:start + chunk_rows])

    monkeypatch.setattr(TraceStore, "key_chunks", gated)
    with TraceStore.open(big_db) as st:
        model = TraceListModel(st)
        changed: list[tuple[int, int]] = []
        model.dataChanged.connect(lambda a, b, _roles=(): changed.append((a.row(), b.row())))
        assert model.trace_id(0) == "t-000"  # the first page, by keyset before any key
        assert model.trace_id(painted) is None  # painted empty: its keys are not there
        go.set()
        wait_counted(qtbot, model)
        assert changed == expected
        assert model.trace_id(painted) == f"t-{painted:03d}" and model.trace_id(150) == "t-150"


def test_a_row_whose_time_cannot_be_read_is_listed_with_why(db: Path) -> None:
    """New-user finding N2: the window listed "0 traces" when one row's ``created`` was epoch seconds."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE traces SET created = 1763604838 WHERE trace_id = 'alpha'")
    with TraceStore.open(db) as st:
        model = TraceListModel(st, threaded=False)
        assert model.rowCount() == 4
        row = next(r for r in range(4) if model.data(model.index(r, 0), TraceIdRole) == "alpha")
        assert model.data(model.index(row, 0)) == NOT_RECORDED
        assert model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole) == (  # escaped: plain text
            "<p style='white-space:pre-wrap'>not recorded: created: &#x27;1763604838&#x27; is not an ISO-8601 "
            "time</p>")
