"""The ClickHouse backend against a real server, when ``CLICKHOUSE_URL`` names one (skipped
otherwise: no server can be installed on the machines the suite usually runs on; chDB covers the
production SQL in ``tests/store/test_clickhouse_source.py``).

``CLICKHOUSE_URL`` is a store URL (``clickhouse://reader@host:8443/otel?table=otel_traces&since=7d``,
the password in ``CTXVIEWER_CLICKHOUSE_PASSWORD``) of an exporter table holding at least one chat
span in its window. The tests only read."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli

URL = os.environ.get("CLICKHOUSE_URL", "")
pytestmark = pytest.mark.skipif(not URL, reason="CLICKHOUSE_URL is not set: no ClickHouse server to test against "
                                "(chDB runs the same SQL in test_clickhouse_source.py)")


@pytest.fixture(scope="module")
def source():  # type: ignore[no-untyped-def]
    pytest.importorskip("clickhouse_connect")
    from ctxviewer.pipeline.clickhouse.source import open_clickhouse

    src = open_clickhouse(URL)
    yield src
    src.close()


def test_the_server_table_is_read_with_the_window_and_the_bound(source) -> None:  # type: ignore[no-untyped-def]
    assert source.schema.flavour in ("map", "json") and source.schema.version[0].isdigit()
    n = source.count()
    bound = source.estimate_count()
    assert n >= 1 and (bound is None or bound >= n)
    first = source.first_rows(limit=5)
    assert first and all(r.trace_id.count(":") == 1 for _k, r in first)
    trace = source.load(first[0][1].trace_id)
    assert trace.trace_id == first[0][1].trace_id and trace.items


def test_the_commands_read_the_server_url() -> None:
    res = CliRunner().invoke(cli, ["list", URL, "--json", "--limit", "3"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert rows and {"trace_id", "state"} <= set(rows[0])
    shown = CliRunner().invoke(cli, ["show", URL, rows[0]["trace_id"], "--json"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["trace_id"] == rows[0]["trace_id"]


def test_cancel_kills_the_query_on_the_server(source) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.store import StoreError

    failed: list[str] = []

    def run() -> None:
        try:
            source._query("SELECT count() FROM numbers(1000000000000) WHERE sipHash64(number) % 7 = 3 "
                          "AND {lo:Int64} < {hi:Int64}")
        except StoreError as exc:
            failed.append(str(exc))

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.5)
    killed = source.cancel()
    worker.join(10)
    assert killed and not worker.is_alive() and failed and "cancelled" in failed[0]
