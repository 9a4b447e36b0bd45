"""Trace › Sessions… (Ctrl+Alt+J; issue 22 item 2): the sessions with a call the list's filter keeps,
read lazily by a Qt model over the store, the selected session's calls in send order with their
states, Show Call selecting the call in the main window, and the call's diff against the call
before it one key away (the pair ``ctxviewer session --diff N`` diffs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from shared_data import needs_corpus

from ctxviewer.gui import sessions_model
from ctxviewer.gui.sessions_model import SessionListModel
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

pytestmark = needs_corpus

ROOT = Path(__file__).resolve().parents[2]
LANGSMITH = ROOT / "tests" / "data" / "runs" / "langsmith-agent-thread.post-patch.json"
OTEL = ROOT / "tests" / "data" / "runs" / "otel-agent-tools.otlp.json"
BROWSER = ROOT.parent / "shared" / "corpus" / "other" / "inspect_ai" / "inspect-browser-tools-gpt-4o-mini.json"
LLM_RUNS = ["11111111-1111-4111-8111-000000000003", "11111111-1111-4111-8111-000000000006",
            "11111111-1111-4111-8111-000000000008"]


@pytest.fixture
def sdb(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with TraceStore.create(path) as store:
        import_files([LANGSMITH, OTEL, BROWSER], store, workers=1)
    return path


def _cells(model, row: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [model.index(row, c).data() for c in range(model.columnCount())]


def test_sessions_window_lists_calls_shows_one_and_diffs_with_the_previous(qtbot, windows, sdb: Path) -> None:
    w = windows.open(sdb)
    uuid = json.loads(BROWSER.read_text(encoding="utf-8"))["samples"][0]["uuid"]
    keys = {a.text(): a.shortcut().toString() for a in w.menu("&Trace").actions()}
    assert keys["Sess&ions…"] == "Ctrl+Alt+J" and keys["Session of This &Call"] == "Ctrl+Alt+Shift+J"
    assert w.sessions.act_this in w.trace_view.actions()  # the trace list's context menu
    view = w.sessions.open()
    assert view is not None and view.isVisible()
    assert view.note.text() == "3 session(s), by session id"
    assert [view.sessions.index(r, 0).data() for r in range(view.sessions.rowCount())] == sorted([uuid, "conv-7", "thread-9"])
    assert view.select_session("thread-9")
    assert view.calls_title.text() == "session thread-9: 3 call(s) in send order"
    with TraceStore.open(sdb) as store:
        rows = store.session_calls("thread-9")
    assert [view.calls.index(r, 2).data() for r in range(3)] == LLM_RUNS
    assert [view.calls.index(r, 4).data() for r in range(3)] == [r.state for r in rows]
    assert _cells(view.calls, 0)[0] == "1" and _cells(view.calls, 2)[6] == "5"  # place; output tokens of call 3
    assert not view.act_diff.isEnabled()  # the first call has no call before it
    view.call_view.selectRow(1)
    assert view.act_diff.isEnabled()
    view.act_diff.trigger()
    (diff,) = w.sessions.diffs
    assert diff.windowTitle() == f"ctxviewer — compare {LLM_RUNS[0]} ↔ {LLM_RUNS[1]}"
    view.call_view.selectRow(2)
    view.act_show.trigger()
    windows.shown(w, LLM_RUNS[2])  # Show Call selects it in the main window
    diff.close()


def test_session_of_this_call_opens_it_selected(qtbot, windows, sdb: Path) -> None:
    w = windows.open(sdb)
    windows.select(w, LLM_RUNS[1])
    view = w.sessions.open_current()
    assert view is not None
    (row,) = view.session_view.selectionModel().selectedRows()
    assert view.sessions.index(row.row(), 0).data() == "thread-9"
    assert view.current_call() == 1
    windows.select(w, "5b8efff798038103d269b633813fc60c:a000000000000002")
    view = w.sessions.open_current()
    assert view is not None and view.calls_title.text() == "session conv-7: 2 call(s) in send order"


def test_the_session_list_reads_a_page_at_a_time(qtbot, monkeypatch: pytest.MonkeyPatch, sdb: Path) -> None:
    monkeypatch.setattr(sessions_model, "PAGE_SIZE", 1)
    with TraceStore.open(sdb) as store:
        calls: list[object] = []
        real = store.sessions

        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            calls.append(args)
            return real(*args, **kwargs)

        monkeypatch.setattr(store, "sessions", counted)
        model = SessionListModel()
        model.set_source(store, "")
        assert model.rowCount() == 1 and len(calls) == 1  # only the first page read
        while model.canFetchMore():
            model.fetchMore()
        assert model.rowCount() == 3 and len(calls) == 4  # one page per fetch, the last one empty
        assert model.find("thread-9") == 2
        model.set_source(store, "state ==")
        assert model.rowCount() == 0
        assert model.index(0, 0).data(Qt.ItemDataRole.DisplayRole) is None


def test_the_session_id_takes_the_spare_width(qtbot, sdb: Path) -> None:
    from PySide6.QtWidgets import QHeaderView

    from ctxviewer.gui.sessions_view import SESSION_STRETCH, SessionsWindow

    view = SessionsWindow()
    qtbot.addWidget(view)
    with TraceStore.open(sdb) as store:
        view.set_source(store)
        view.resize(1280, 800)
        view.show()
        qtbot.waitExposed(view)
        head = view.session_view.horizontalHeader()
        assert view.sessions.headers[SESSION_STRETCH] == "session"
        assert head.sectionResizeMode(SESSION_STRETCH) == QHeaderView.ResizeMode.Stretch
        assert not head.stretchLastSection()
        models = view.sessions.headers.index("models")
        assert head.sectionResizeMode(models) == QHeaderView.ResizeMode.ResizeToContents
        # the last column ("models", a count) is as wide as its contents, the session id gets the rest
        assert head.sectionSize(models) == max(view.session_view.sizeHintForColumn(models), head.sectionSizeHint(models))
        assert head.sectionSize(SESSION_STRETCH) > view.session_view.sizeHintForColumn(SESSION_STRETCH)
        assert head.sectionPosition(models) + head.sectionSize(models) == head.length()
        assert view.call_view.horizontalHeader().stretchLastSection()  # a call's worst finding: text, at the end
        view.close()
