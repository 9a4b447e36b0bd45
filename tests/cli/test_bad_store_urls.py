"""A malformed or unreachable ClickHouse store URL is bad input (exit status 2) in every command
that reads a store, with a one-line message naming the bad part of the URL -- never a traceback
(exit 1), a silent default (no host -> localhost) or the driver's retry text. The parser is
:func:`ctxviewer.pipeline.clickhouse.target.parse_target`, shared with the window's Connect
path (:func:`~ctxviewer.pipeline.clickhouse.source.open_clickhouse`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.clickhouse.source import open_clickhouse
from ctxviewer.pipeline.clickhouse.target import parse_target
from ctxviewer.store import StoreError

pytest.importorskip("clickhouse_connect")

KNOWN = "dedup, kind, project_id, since, table, timeout"
BAD = [
    ("clickhouse://h:abc/db", "port 'abc' is not a number"),
    ("clickhouse://h:99999/db", "port 99999 is out of range 1-65535"),
    ("clickhouse://h:0/db", "port 0 is out of range 1-65535"),
    ("clickhouse://[::1/db", "malformed host: '[' without its ']' (an IPv6 address is written [::1])"),
    ("clickhouse://127.0.0.1:1/otel?since=99999999999d", "since='99999999999d': longer than the most allowed, 36500d"),
    ("clickhouse://127.0.0.1:1/otel?since=banana", "since='banana': expected a positive length such as 30m, 2h or 7d"),
    ("clickhouse://", "no host (expected clickhouse://HOST:PORT/DATABASE?table=TABLE)"),
    ("clickhouses:///otel", "no host (expected clickhouses://HOST:PORT/DATABASE?table=TABLE)"),
    ("clickhouse://127.0.0.1:1/otel?bogus=1", f"unknown option 'bogus' (known: {KNOWN})"),
    ("clickhouse://127.0.0.1:1/otel?table=t&flag", f"unknown option 'flag' (known: {KNOWN})"),
    ("clickhouse://127.0.0.1:1/otel?table=", "table= has no value"),
    ("clickhouse://127.0.0.1:1/otel?timeout=0", "timeout='0': expected a positive whole number of seconds"),
    ("clickhouse://127.0.0.1:1/otel?timeout=-1", "timeout='-1': expected a positive whole number of seconds"),
    ("clickhouse://127.0.0.1:1/otel?timeout=1.5", "timeout='1.5': expected a positive whole number of seconds"),
    # a refused connection: the OS's words, no "Unexpected Http Driver Exception" line, no query id
    ("clickhouse://127.0.0.1:1/otel", "cannot connect (Connection refused)"),
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
    t = parse_target("clickhouse://[::1]:9000/otel?table=spans&since=36500d&timeout=5&kind=observations"
                     "&project_id=p1&dedup=1")
    assert (t.host, t.port, t.database, t.table, t.window.days, t.timeout) == ("::1", 9000, "otel", "spans", 36500, 5)
    t = parse_target("clickhouse://ch.example/otel")
    assert (t.host, t.port, t.table, t.timeout) == ("ch.example", None, "otel_traces", 30)


def test_a_url_of_another_scheme_is_named_as_given() -> None:
    url = "http://example.com/x.db"
    res = CliRunner().invoke(cli, ["list", url])
    assert (res.exit_code, res.stderr) == (2, f"Error: {url}: not a trace database or a clickhouse:// URL "
                                              "(stores: clickhouse://, clickhouses://, chdb://; else a database file)\n")


def test_the_real_process_prints_one_line() -> None:
    """The process as a user runs it (no pytest handler on any logger): stderr is the one line --
    not clickhouse-connect's "Unexpected Http Driver Exception" log record (printed by Python's
    last-resort handler before), nor urllib3's retry text with its query id."""
    url = "clickhouse://127.0.0.1:1/otel"
    res = subprocess.run([sys.executable, "-m", "ctxviewer", "list", url], capture_output=True, text=True,
                         timeout=120, check=False)
    assert (res.returncode, res.stdout, res.stderr) == (2, "", f"Error: {url}: cannot connect (Connection refused)\n")
