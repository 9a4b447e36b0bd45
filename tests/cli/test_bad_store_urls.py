"""A malformed or unreachable ClickHouse store URL is bad input (exit status 2) in every command
that reads a store, with a one-line message naming the bad part of the URL -- never a traceback
(exit 1). The parser is
:func:`ctxviewer.pipeline.clickhouse.target.parse_target`, shared with the window's Connect
path (:func:`~ctxviewer.pipeline.clickhouse.source.open_clickhouse`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.clickhouse.source import open_clickhouse
from ctxviewer.pipeline.clickhouse.target import parse_target
from ctxviewer.store import StoreError

pytest.importorskip("clickhouse_connect")

BAD = [
    ("clickhouse://h:abc/db", "port 'abc' is not a number"),
    ("clickhouse://h:99999/db", "port 99999 is out of range 1-65535"),
    ("clickhouse://h:0/db", "port 0 is out of range 1-65535"),
    ("clickhouse://[::1/db", "malformed host: '[' without its ']' (an IPv6 address is written [::1])"),
    ("clickhouse://127.0.0.1:1/otel?since=99999999999d", "since='99999999999d': longer than the most allowed, 36500d"),
    ("clickhouse://127.0.0.1:1/otel?since=banana", "since='banana': expected a positive length such as 30m, 2h or 7d"),
]


def commands(url: str, out: Path) -> list[list[str]]:
    """Every command that reads a store, given ``url``."""
    return [["list", url], ["show", url, "t1"], ["check", url], ["import", url, "-o", str(out / "x.db")],
            ["report", url, "-o", str(out / "r.html")]]


@pytest.mark.parametrize(("url", "why"), BAD)
def test_a_bad_store_url_is_bad_input_naming_the_part(url: str, why: str, tmp_path: Path) -> None:
    for args in commands(url, tmp_path):
        res = CliRunner().invoke(cli, args)
        assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"Error: {url}: {why}\n"), args
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(("url", "why"), BAD)
def test_the_connect_path_refuses_the_same_url_the_same_way(url: str, why: str) -> None:
    with pytest.raises(StoreError) as info:
        open_clickhouse(url)
    assert str(info.value) == f"{url}: {why}"


def test_the_accepted_forms_still_parse() -> None:
    t = parse_target("clickhouse://[::1]:9000/otel?table=spans&since=36500d&timeout=5")
    assert (t.host, t.port, t.database, t.table, t.window.days, t.timeout) == ("::1", 9000, "otel", "spans", 36500, 5)
    t = parse_target("clickhouse://ch.example/otel")
    assert (t.host, t.port, t.table, t.timeout) == ("ch.example", None, "otel_traces", 30)
