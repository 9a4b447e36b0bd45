"""TraceListModel: rows and values from a real store, lazy paging, SQL filter and sort."""

from __future__ import annotations

from pathlib import Path

from factories import make_trace
from PySide6.QtCore import Qt

from ctxviewer.budget import check_capacity
from ctxviewer.gui.trace_list_model import PAGE_SIZE, RowRole, TraceIdRole, TraceListModel
from ctxviewer.model import NOT_RECORDED
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
        assert column_texts(model, 1) == ["2026-01-05 08:00:00", "alpha", "gpt-4o-mini", "199 / 8,000", "6 / 1", "ok", "\u2014", "\u2014"]
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


def test_fetch_more_pages_of_200(qtmodeltester, big_db: Path) -> None:
    with TraceStore.open(big_db) as st:
        model = TraceListModel(st)
        qtmodeltester.check(model)
        # the model tester may fetch; start from a fresh model to count pages
        model = TraceListModel(st)
        assert model.total == 450
        assert model.rowCount() == PAGE_SIZE == 200
        assert model.canFetchMore()
        model.fetchMore()
        assert model.rowCount() == 400
        model.fetchMore()
        assert model.rowCount() == 450
        assert not model.canFetchMore()
        assert model.trace_id(449) == "t-449"


def test_filter_and_sort_requery_the_store(qtmodeltester, db: Path, big_db: Path) -> None:
    with TraceStore.open(db) as st:
        calls: list[object] = []
        real_list = st.list

        def spy(query=None, offset=0, limit=200):  # type: ignore[no-untyped-def]
            calls.append(query)
            return real_list(query, offset=offset, limit=limit)

        st.list = spy  # type: ignore[method-assign]
        model = TraceListModel(st)
        model.set_filter("claude")
        assert [model.trace_id(r) for r in range(model.rowCount())] == ["bravo"]
        assert calls[-1].text == "claude"  # type: ignore[attr-defined]
        model.set_filter("")
        model.sort(1, Qt.SortOrder.DescendingOrder)  # trace id
        assert calls[-1].sort == "trace_id" and calls[-1].descending  # type: ignore[attr-defined]
        assert [model.trace_id(r) for r in range(4)] == ["delta", "charlie", "bravo", "alpha"]
        model.sort(3, Qt.SortOrder.AscendingOrder)  # input / capacity sorts by input tokens
        assert calls[-1].sort == "input_tokens"  # type: ignore[attr-defined]
        qtmodeltester.check(model)
    with TraceStore.open(big_db) as st:
        model = TraceListModel(st)
        model.sort(0, Qt.SortOrder.DescendingOrder)
        assert model.trace_id(0) == "t-449"  # newest first, from SQL across all 450 rows
        model.set_filter("t-44")
        assert model.total == 10 and model.rowCount() == 10


def test_store_error_is_a_signal_not_an_exception(qtbot, db: Path) -> None:
    st = TraceStore.open(db)
    model = TraceListModel(st)
    st.close()
    with qtbot.waitSignal(model.sig_error) as blocker:
        model.set_filter("x")
    assert blocker.args and isinstance(blocker.args[0], str)
    assert model.rowCount() == 0
