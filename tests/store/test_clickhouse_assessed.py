"""Assessment on demand for a ClickHouse store (issue 23 item 1; :mod:`ctxviewer.pipeline.clickhouse.assessed`):
the rows a surface shows are assessed as the import assesses them and kept in a local SQLite
sidecar keyed by span id and rule-set fingerprint -- read back without a query to the store, and
assessed again under other settings; a filter on the assessment covers the assessed rows only and
says so. On chDB with the exporter's DDL and the generated spans of ``tests/store/clickhouse_spans.py``
(their findings: ``accounting.reported_gap`` on chats 1, 3, 4 and 6, ``span.error`` on chat 3)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.assess.config import CheckConfig
from ctxviewer.assess.context import AssessContext
from ctxviewer.cli import cli
from ctxviewer.pipeline.clickhouse.assessed import sidecar_path
from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
from ctxviewer.pipeline.clickhouse.target import parse_target
from ctxviewer.pipeline.fresh_rows import refreshed_rows
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceQuery, TraceStore
from ctxviewer.store.filters import FilterError
from tests.store.clickhouse_spans import chdb_dir as shared_chdb_dir
from tests.store.clickhouse_spans import create_table, generate, insert, otlp_json

clickhouse_connect = pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")

NOW = time.time_ns()
SPANS = generate(NOW)
CHATS = [f"{i:032x}:{i:08x}cccccccc" for i in range(1, 7)]  # the window's chat spans, in send order


@pytest.fixture(scope="module")
def chdb_dir() -> Path:
    path = shared_chdb_dir()
    client = clickhouse_connect.get_client(dsn=f"chdb://{path}")
    create_table(client, "assessed", "otel_traces", "map")
    insert(client, "assessed", "otel_traces", SPANS)
    return path


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The rows the import stores for the same spans (trace id -> TraceRow)."""
    folder = tmp_path_factory.mktemp("assessed-sqlite")
    src = folder / "spans.otlp.json"
    src.write_text(json.dumps(otlp_json([s for s in SPANS if s.start_ns > NOW - 24 * 3600 * 10**9])), encoding="utf-8")
    import_into(folder / "t.db", [src], fmt="otel", workers=1)
    with TraceStore.open(folder / "t.db") as store:
        return {r.trace_id: r for r in store.list(limit=-1)}


def url(chdb_dir: Path) -> str:
    return f"chdb://{chdb_dir}/assessed?table=otel_traces"


def kept(key: str) -> list[tuple[str, str, str | None]]:
    """The sidecar's rows: (fingerprint, trace id, state), in order."""
    with sqlite3.connect(sidecar_path(key)) as conn:
        return list(conn.execute("SELECT fingerprint, trace_id, state FROM assessed ORDER BY fingerprint, created"))


def test_a_page_is_assessed_as_the_import_assesses_it_then_read_back_without_a_query(
        chdb_dir: Path, imported: dict[str, object]) -> None:
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    rows = [r for _k, r in src.first_rows(limit=4)]
    assert [r.trace_id for r in rows] == CHATS[:4] and all(r.retained_count is None for r in rows)
    context = AssessContext()
    assessed = src.assess_rows(rows, context)
    assert assessed == [imported[t] for t in CHATS[:4]]  # every column, as the import stored it
    assert [(r.state, r.worst_rule, r.input_tokens) for r in assessed] == [
        ("ok", "accounting.reported_gap", 18), ("ok", None, 24), ("failure", "span.error", 18),
        ("ok", "accounting.reported_gap", 18)]
    assert kept(src.store_key) == [(context.fingerprint, t, s) for t, s in zip(CHATS, ["ok", "ok", "failure", "ok"])]
    before = len(src.queries)
    again = ClickHouseSource(parse_target(url(chdb_dir) + "&since=12h"))  # another handle, another window
    assert again.store_key == src.store_key
    shown = len(again.queries)
    assert again.assess_rows(rows, context) == assessed and len(again.queries) == shown  # the sidecar, no query
    assert src.assess_rows(rows, context) == assessed and len(src.queries) == before
    other = AssessContext(CheckConfig().with_expected({"support-bot": "v9"}))
    assert other.fingerprint != context.fingerprint
    src.assess_rows(rows[:1], other)
    assert len(src.queries) > before  # another rule-set fingerprint: assessed again, never reused
    assert [k[1] for k in kept(src.store_key) if k[0] == other.fingerprint] == CHATS[:1]
    assert refreshed_rows(src, rows, context) == assessed  # what the window's refresher calls


def test_a_filter_on_the_assessment_covers_the_assessed_rows_and_says_so(chdb_dir: Path) -> None:
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    context = AssessContext(CheckConfig().with_expected({"filter-test": "v1"}))  # a sidecar fingerprint of its own
    rows = [r for _k, r in src.first_rows(limit=6)]
    src.assess_rows(rows[:4], context)
    found = src.assessed_matches("finding == accounting", context)
    assert [r.trace_id for r in found.rows] == [CHATS[0], CHATS[2], CHATS[3]] and found.assessed == 4
    assert "covers the 4 rows of this window assessed so far" in found.note
    assert [r.trace_id for r in src.assessed_matches("state == failure and model ~ gpt", context).rows] == [CHATS[2]]
    src.assess_rows(rows, context)
    found = src.assessed_matches("finding == accounting.reported_gap", context)
    assert [r.trace_id for r in found.rows] == [CHATS[0], CHATS[2], CHATS[3], CHATS[5]] and found.assessed == 6
    assert [r.trace_id for r in src.assessed_matches("not finding", context).rows] == [CHATS[1], CHATS[4]]
    with pytest.raises(FilterError, match="reads items, which the assessed rows of a ClickHouse store do not keep"):
        src.assessed_matches("item.kind == tool", context)


def test_the_store_serves_a_filter_on_the_assessment_from_the_sidecar(chdb_dir: Path) -> None:
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    query = TraceQuery(text="finding == accounting")
    with pytest.raises(FilterError, match="is not served on a ClickHouse store yet"):
        src.filter_where(query)  # nothing assessed yet: refused, never an empty answer
    src.assess_rows([r for _k, r in src.first_rows(limit=4)], AssessContext())
    where, values = src.filter_where(query)
    assert where == "concat(TraceId, ':', SpanId) IN {f0:Array(String)}" and values == [[CHATS[0], CHATS[2], CHATS[3]]]
    assert src.count(query) == 3 and [r.trace_id for r in src.list(query)] == [CHATS[0], CHATS[2], CHATS[3]]
    assert "covers the 4 rows of this window assessed so far" in (src.filter_note(query.text) or "")
    assert src.filter_note("model ~ gpt") is None and src.count(TraceQuery(text="model ~ gpt")) == 6
    with pytest.raises(FilterError, match="is not served on a ClickHouse store yet"):
        src.filter_where(TraceQuery(text="item.kind == tool"))


def test_list_assesses_its_page_and_a_filter_on_findings_says_what_it_covers(chdb_dir: Path) -> None:
    runner = CliRunner()
    target = url(chdb_dir)
    res = runner.invoke(cli, ["list", target, "--json", "--limit", "3"])
    assert res.exit_code == 0, res.output
    assert [r["state"] for r in json.loads(res.stdout)] == ["ok", "ok", "failure"]
    res = runner.invoke(cli, ["list", target, "--json", "--filter", "finding == accounting"])
    assert res.exit_code == 0, res.output
    assert [r["trace_id"] for r in json.loads(res.stdout)] == [CHATS[0], CHATS[2]]  # of the 3 assessed
    assert "note: the filter reads the assessment: it covers the 3 rows of this window assessed so far" in res.stderr
    res = runner.invoke(cli, ["list", target, "--filter", "item.kind == tool"])
    assert res.exit_code == 2 and "is not served on a ClickHouse store yet" in res.stderr
