"""File › Connect to ClickHouse… (issue 23 item 1): the dialog builds the store's URL from its
fields and has no password field (the password comes from the environment), and the window shows
a ClickHouse spans table through the store interface -- here chDB in-process with the exporter's
DDL -- with each shown row's state computed from its span, as ``ctxviewer list URL`` prints it."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from ctxviewer.gui.connect_dialog import ConnectDialog
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
    assert w.windowTitle() == f"ctxviewer — gui.otel_traces on {chdb_dir()}"
    m = w.trace_model
    heads = [m.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole).split(" (")[0]
             for c in range(m.columnCount())]

    def cell(row: int, head: str) -> str:
        return str(m.data(m.index(row, heads.index(head))))

    # the span's own columns at once; the rest once the background refresh read the span
    windows.qtbot.waitUntil(lambda: cell(0, "Retained / omitted") == "2 / not recorded", timeout=30_000)
    assert cell(0, "Model") == "gpt-4o-mini" and cell(0, "State") in ("ok", "warning", "failure")
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
