"""The Run tab on a ClickHouse store (chDB): the window's source reads the run itself
(:mod:`ctxviewer.pipeline.clickhouse.runs`), borrowed by the panel, and the tab shows what it shows
for the same spans imported into SQLite (``tests/store/test_clickhouse_runs.py``'s spans)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QTreeWidgetItem

from ctxviewer.gui.run_panel import RunPanel

pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")

from tests.store.test_clickhouse_runs import RUN, make_backends


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The run's spans on chDB (database ``runs_gui``) and imported into SQLite."""
    return make_backends(tmp_path_factory.mktemp("runs-gui"), "runs_gui")


def _rows(item: QTreeWidgetItem, depth: int = 0) -> list[tuple[Any, ...]]:
    item.setExpanded(True)  # reads its children
    out = [(depth, *(item.text(c) for c in range(5)))]
    for i in range(item.childCount()):
        out += _rows(item.child(i), depth + 1)
    return out


def test_the_run_tab_shows_the_same_run_as_for_the_imported_spans(qtbot: Any, backends: tuple[str, str]) -> None:
    from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
    from ctxviewer.pipeline.clickhouse.target import parse_target

    url, db = backends
    source = ClickHouseSource(parse_target(url))
    sqlite_panel, ch_panel = RunPanel(), RunPanel()
    for p in (sqlite_panel, ch_panel):
        qtbot.addWidget(p)
    sqlite_panel.set_database(db)
    ch_panel.set_runs(source)
    call = f"{RUN}:{'9d' * 8}"
    for p in (sqlite_panel, ch_panel):
        p.show_trace(call)
        assert p.wait()  # read off the GUI thread
    assert ch_panel.note.isHidden() and ch_panel.run_id == RUN
    assert ch_panel.tree.currentItem().text(0) == sqlite_panel.tree.currentItem().text(0) == "llm chat gpt-4o-mini"
    rows = [_rows(p.tree.topLevelItem(0)) for p in (sqlite_panel, ch_panel)]
    assert rows[1] == rows[0] and len(rows[0]) == 4
    assert ch_panel.bounds == sqlite_panel.bounds
    ch_panel.close_store()  # borrowed: let go, not closed
    assert ch_panel.store is None and source.first_rows(limit=1)
    ch_panel.set_runs(source)
    ch_panel.show_trace("0" * 32 + ":" + "0" * 16)
    assert ch_panel.wait()
    assert not ch_panel.note.isHidden()  # no run: said in the note
