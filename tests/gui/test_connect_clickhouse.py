"""File › Connect to ClickHouse… (issue 23 item 1): the dialog builds the store's URL from its
fields and has no password field (the password comes from the environment), and the window shows
a ClickHouse spans table through the store interface -- here chDB in-process with the exporter's
DDL -- with each shown row's state computed from its span, as ``ctxviewer list URL`` prints it."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from ctxviewer.gui.connect_dialog import ConnectDialog
from ctxviewer.gui.trace_list_model import TraceIdRole
from ctxviewer.pipeline.clickhouse.assessed import sidecar_path
from ctxviewer.pipeline.clickhouse.target import PASSWORD_ENV

clickhouse_connect = pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")


def test_the_dialog_builds_the_url_and_never_asks_for_a_password(qtbot) -> None:
    d = ConnectDialog()
    qtbot.addWidget(d)
    d.host.setText("ch.example")
    d.port.setValue(8443)
    d.user.setText("reader")
    d.since.setText("2h")
    assert d.url() == "clickhouses://reader@ch.example:8443/otel?table=otel_traces&since=2h"
    d.tls.setChecked(False)
    d.port.setValue(8123)
    assert d.url() == "clickhouse://reader@ch.example:8123/otel?table=otel_traces&since=2h"
    assert not [e for e in d.findChildren(QLineEdit) if e.echoMode() != QLineEdit.EchoMode.Normal]
    assert PASSWORD_ENV in d.note.text() and "never stored" in d.note.text()
    assert "password" not in " ".join(d.values()).lower()
    d.since.setText("soon")
    d._accept()
    assert d.result() == 0 and "since='soon'" in d.error.text()


def test_the_window_shows_a_clickhouse_store_with_each_rows_state(windows) -> None:
    from tests.store.clickhouse_spans import chdb_dir, create_table, generate, insert

    now = time.time_ns()
    client = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir()}")
    create_table(client, "gui", "otel_traces")
    insert(client, "gui", "otel_traces", generate(now, n=3, old=1))
    w = windows.new(show=False)
    assert w.connector.act_connect.text() == "Connect to &ClickHouse…"
    assert w.connector.connect_url(f"chdb://{chdb_dir()}/gui?table=otel_traces")
    trace = windows.shown(w)
    assert trace.trace_id == f"{1:032x}:{1:08x}cccccccc"
    assert w.trace_model.rowCount() == 3  # the span 30 h old is outside the 24 h window
    assert [i.id for i in trace.items] == ["system", "msg-0"]
    run = w.panel.tabs.run  # the Run tab reads the run from the window's source (borrowed)
    assert run.store is w.store and run.borrowed and run.run_id == f"{1:032x}" and run.note.isHidden()
    root = run.tree.topLevelItem(0)
    assert (root.text(0), root.child(0).text(0)) == ("agent invoke_agent helper", "llm chat gpt-4o-mini")
    assert w.windowTitle() == f"ctxviewer — gui.otel_traces on {chdb_dir()}"
    m = w.trace_model
    heads = [m.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole).split(" (")[0]
             for c in range(m.columnCount())]

    def cell(row: int, head: str) -> str:
        return str(m.data(m.index(row, heads.index(head))))

    # the span's own columns at once; the rest once the background refresh read the span
    windows.qtbot.waitUntil(lambda: cell(0, "Retained / omitted") == "2 / not recorded", timeout=30_000)
    windows.qtbot.waitUntil(lambda: [cell(r, "State") for r in range(3)] == ["ok", "ok", "failure"], timeout=30_000)
    assert cell(0, "Model") == "gpt-4o-mini" and m.refreshed == 3
    chats = [f"{i:032x}:{i:08x}cccccccc" for i in (1, 2, 3)]
    with sqlite3.connect(sidecar_path(w.store.store_key)) as side:  # the shown rows, kept by span id + rule set
        assert list(side.execute("SELECT trace_id, state, worst_rule, fingerprint FROM assessed ORDER BY created")) == [
            (chats[0], "ok", "accounting.reported_gap", w.context.fingerprint), (chats[1], "ok", None, w.context.fingerprint),
            (chats[2], "failure", "span.error", w.context.fingerprint)]
    windows.qtbot.waitUntil(lambda: w.count_label.text() == "3 traces · 3 assessed", timeout=10_000)
    w.filter_edit.setText("finding == accounting")  # a filter on the assessment: the assessed rows only
    w.apply_filter()
    windows.qtbot.waitUntil(lambda: m.counted and m.rowCount() == 2, timeout=30_000)
    assert [m.data(m.index(r, 0), TraceIdRole) for r in range(2)] == [chats[0], chats[2]]
    windows.qtbot.waitUntil(lambda: w.count_label.text().startswith("2 traces · of the assessed rows"), timeout=10_000)
    assert "covers the 3 rows of this window assessed so far" in w.count_label.toolTip()
    # the loader and the search dock read on handles of their own (chDB's reader() is the window's
    # source itself): the list's cancel of its count (KILL QUERY by this handle's ids) never kills a load
    assert w.loader._reader is not None and w.loader._reader is not w.store and w.loader._reader_of is w.store
    assert w.loader._reader._running is not w.store._running
    w.stats.open()  # sums are SQL over a database file: said, not "cannot compute: no such file"
    assert w.stats.view.note.text() == ("Statistics sum a database file, and this store is read in place: pull its "
                                        "window into one first (ctxviewer import URL -o local.db; README, Team store)")
    assert w.stats.task is None
    w.stats.view.close()
    assert not w.connector.connect_url(f"chdb://{chdb_dir()}/gui?table=missing")
    assert "no table gui.missing" in windows.message(w)


def test_ctxviewer_with_a_clickhouse_url_opens_the_store_in_the_window(windows, monkeypatch) -> None:
    """``ctxviewer clickhouse://…`` (the ``open`` command): the URL is checked before the window
    starts (a bad one: exit 2 naming it, no window), then shown as File › Connect shows it."""
    from click.testing import CliRunner

    from ctxviewer.cli import cli
    from ctxviewer.gui.app import open_argument
    from tests.store.clickhouse_spans import chdb_dir, create_table, generate, insert

    client = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir()}")
    create_table(client, "guiopen", "otel_traces")
    insert(client, "guiopen", "otel_traces", generate(time.time_ns(), n=2, old=0))
    url = f"chdb://{chdb_dir()}/guiopen?table=otel_traces"
    started: list[list[str]] = []
    monkeypatch.setattr("ctxviewer.gui.app.main", lambda argv: started.append(argv) or 0)
    res = CliRunner().invoke(cli, [url.replace("otel_traces", "nope")])
    assert res.exit_code == 2 and "no table guiopen.nope" in res.output and started == []
    assert CliRunner().invoke(cli, [url]).exit_code == 0 and started == [[url]]
    w = windows.new(show=False)
    assert open_argument(w, url)
    trace = windows.shown(w)
    assert trace.trace_id == f"{1:032x}:{1:08x}cccccccc" and w.trace_model.rowCount() == 2
    assert w.windowTitle() == f"ctxviewer — guiopen.otel_traces on {chdb_dir()}"


def test_the_list_shows_the_fast_bound_then_the_exact_count_and_a_new_query_kills_the_old_count(
        windows, monkeypatch) -> None:
    """Issue 23: "counts are a fast upper bound first ... and exact in the background with cancel".
    The exact count is held on the worker until a new filter supersedes it: the superseded count's
    query is cancelled on the store (KILL QUERY by its id), the new one counts."""
    import threading

    from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
    from ctxviewer.pipeline.clickhouse.target import parse_target
    from tests.store.clickhouse_spans import chdb_dir, create_table, generate, insert

    client = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir()}")
    create_table(client, "guicount", "otel_traces")
    insert(client, "guicount", "otel_traces", generate(time.time_ns(), n=120, old=0))
    src = ClickHouseSource(parse_target(f"chdb://{chdb_dir()}/guicount?table=otel_traces"))
    release = threading.Event()
    cancels: list[list[str]] = []
    held: list[str] = []
    real_query, real_cancel = src._client.query, src.cancel

    def query(sql: str, **kw: Any) -> Any:
        if sql.startswith("SELECT count()") and "{f0:String}" not in sql:  # the exact count of all spans
            held.append(kw["settings"]["query_id"])
            release.wait(20)  # still running on the server when the filter comes
        return real_query(sql, **kw)

    def recorded_cancel(killer: Any = None) -> list[str]:
        with src._lock:
            cancels.append(sorted(src._running))
        release.set()
        return real_cancel(killer)

    monkeypatch.setattr(src._client, "query", query)
    monkeypatch.setattr(src, "cancel", recorded_cancel)
    w = windows.new(show=False)
    w.set_source(src, "guicount", context_path="")
    assert w.trace_model.bound == 240 and not w.trace_model.counted  # every span of the window's parts
    assert w.count_label.text() == "≤ 240 traces · counting…"
    assert "upper bound" in w.count_label.toolTip()
    windows.qtbot.waitUntil(lambda: bool(held), timeout=10_000)  # the exact count is on the server
    w.trace_model.set_filter("conversation == conv-1")
    windows.qtbot.waitUntil(lambda: w.trace_model.counted, timeout=30_000)
    windows.qtbot.waitUntil(lambda: bool(cancels), timeout=10_000)
    # the superseded count, by its id (on chDB reader() is the one handle, so the handle's other
    # queries then in flight -- a row's refresh, the shown trace -- are in the same KILL)
    assert len(cancels) == 1 and held[0] in cancels[0] and held[0].startswith("ctxviewer-")
    assert w.trace_model.total == 60 and w.count_label.text().startswith("60 traces")
    assert w.trace_model.bound is None  # a filtered list is counted off the GUI thread from the start
