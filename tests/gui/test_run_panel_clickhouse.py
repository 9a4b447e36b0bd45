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

from tests.store.clickhouse_spans import chdb_dir
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


def test_a_newer_call_kills_the_older_run_read_in_the_engine(qtbot: Any, backends: tuple[str, str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The Run tab's read of a run is a real query in flight on chDB (a slow one stands in for a
    slow server); selecting a call of another run meanwhile kills it by its query id (``KILL
    QUERY``, on the tab's own handle, never the window's source) and shows the newer run."""
    import clickhouse_connect

    from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
    from ctxviewer.pipeline.clickhouse.target import parse_target
    from ctxviewer.store import StoreError

    url, _db = backends
    source = ClickHouseSource(parse_target(url))
    slow = "SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 11 = 5 AND {lo:Int64} < {hi:Int64}"
    real = ClickHouseSource._read_run
    failures: list[str] = []
    handles: list[ClickHouseSource] = []

    def read_run(self: ClickHouseSource, run_id: str) -> Any:
        handles.append(self)
        if run_id == RUN:  # the agent's run: the server is slow
            try:
                self._query(slow)
            except StoreError as exc:
                failures.append(str(exc))
                raise
        return real(self, run_id)

    monkeypatch.setattr(ClickHouseSource, "_read_run", read_run)
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.set_runs(source)
    panel.show_trace(f"{RUN}:{'9d' * 8}")
    probe = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir()}")
    qtbot.waitUntil(lambda: probe.query("SELECT count() FROM system.processes WHERE query LIKE '%sipHash64(number) % 11%' "
                                        "AND query NOT LIKE '%system.processes%'").result_rows[0][0] > 0,
                    timeout=30_000)  # the engine runs it; the tab says it is reading
    assert panel.note.text() == "reading the run…" and panel.reading
    other = f"{1:032x}:{1:08x}cccccccc"
    panel.show_trace(other)
    assert panel.wait()
    assert failures == [f"{url}: query cancelled (KILL QUERY)"]  # killed in the engine, its error dropped
    assert handles[0] is not source and all(h is handles[0] for h in handles)  # the tab's own handle
    assert panel.run_id == f"{1:032x}" and panel.note.isHidden()
    assert panel.tree.currentItem().text(0) == "llm chat gpt-4o-mini"
    panel.stop()
