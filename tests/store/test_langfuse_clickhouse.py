"""Langfuse's ClickHouse tables as a second table kind (:mod:`ctxviewer.pipeline.clickhouse.langfuse_source`)
on chDB, with Langfuse's DDL verbatim (v3 migrations; v4 ``events_full``) and generated rows that
hold what eventual de-duplication leaves to the reader (``tests/store/langfuse_tables.py``):
``list``, ``show`` and ``check`` say the same of the URL as of the same rows exported and imported
into SQLite by ``langfuse-blob`` (one test over the backends); every query is bounded by
``project_id`` and the window, never ``OFFSET``; both de-duplications keep the latest version and
drop deleted rows."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.clickhouse.langfuse_source import LangfuseSource
from ctxviewer.pipeline.clickhouse.source import open_clickhouse
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import StoreError
from ctxviewer.store.filters import FilterError
from tests.store.clickhouse_spans import chdb_dir as shared_chdb_dir
from tests.store.langfuse_tables import (
    PROJECT,
    create_v3,
    generate,
    insert,
    statements,
    table_rows,
    v4_events,
    write_export,
)

clickhouse_connect = pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")

NOW = time.time_ns()
FINAL_ROWS = generate(NOW)
IN_WINDOW = [o for o in FINAL_ROWS["observations"] if o["type"] == "GENERATION"
             and o["start_time"].timestamp() * 1e9 > NOW - 24 * 3600 * 10**9]
CALLS = [o["id"] for o in sorted(IN_WINDOW, key=lambda o: (o["start_time"], o["id"]))]


@pytest.fixture(scope="module")
def chdb_dir() -> Path:
    """The process's chDB directory with Langfuse v3's tables in ``lf3`` and v4's ``events_full``
    (and ``scores``) in ``lf4``, both holding :func:`table_rows` (versions, a deleted row, another project)."""
    path = shared_chdb_dir()
    admin = clickhouse_connect.get_client(dsn=f"chdb://{path}")
    rows = table_rows(FINAL_ROWS)
    for db in ("lf3", "lf4"):
        admin.command(f"CREATE DATABASE IF NOT EXISTS {db}")
    v3 = clickhouse_connect.get_client(dsn=f"chdb://{path}", database="lf3")
    create_v3(v3)
    insert(v3, rows)
    v4 = clickhouse_connect.get_client(dsn=f"chdb://{path}", database="lf4")
    [events] = statements("langfuse_v4_events_full.sql")
    v4.command(events)
    scores_ddl = next(s for s in statements("langfuse_v3.sql") if s.startswith("CREATE TABLE scores"))
    v4.command(scores_ddl)
    for alter in (s for s in statements("langfuse_v3.sql") if s.startswith("ALTER TABLE scores")):
        v4.command(alter)
    insert(v4, {"events_full": v4_events(rows), "scores": rows["scores"]})
    return path


@pytest.fixture(scope="module")
def sqlite_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same rows' final state as a blob-storage export of the window, imported into SQLite."""
    folder = tmp_path_factory.mktemp("lf-sqlite")
    from datetime import datetime, timezone

    lo = datetime.fromtimestamp((NOW - 24 * 3600 * 10**9) / 1e9, tz=timezone.utc)
    src = write_export(FINAL_ROWS, folder / "export", lo)
    report = import_into(folder / "t.db", [src], workers=1)
    assert report.imported == len(CALLS), report.problems
    assert not report.problems, report.problems
    return folder / "t.db"


def url(chdb_dir: Path, db: str = "lf3", extra: str = "") -> str:
    table = "observations" if db == "lf3" else "events_full"
    return f"chdb://{chdb_dir}/{db}?table={table}&kind=langfuse&project_id={PROJECT}{extra}"


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout


@pytest.fixture(params=["sqlite", "v3-final", "v3-latest", "v4-final", "v4-latest"])
def backend(request: pytest.FixtureRequest, chdb_dir: Path, sqlite_db: Path) -> str:
    """The same rows: exported and imported into SQLite; in v3's tables read with FINAL and with
    the latest version per id; in v4's ``events_full``."""
    if request.param == "sqlite":
        return str(sqlite_db)
    db, dedup = request.param.split("-")
    return url(chdb_dir, "lf3" if db == "v3" else "lf4", f"&dedup={dedup}")


def test_list_show_and_check_say_the_same_on_every_backend(backend: str, sqlite_db: Path) -> None:
    code, listed = run("list", backend, "--json")
    assert code == 0, listed
    rows = json.loads(listed)
    assert [r["trace_id"] for r in rows] == CALLS  # no draft, no deleted call, no other project, no old trace
    assert rows == json.loads(run("list", str(sqlite_db), "--json")[1])
    assert rows[0]["model"] == "gpt-4o-mini" and {r["session_id"] for r in rows} == {"sess-0", "sess-1"}
    assert run("list", backend, "--wide")[1] == run("list", str(sqlite_db), "--wide")[1]
    for tid in CALLS:
        code, shown = run("show", backend, tid, "--json")
        assert code == 0, shown
        assert json.loads(shown) == json.loads(run("show", str(sqlite_db), tid, "--json")[1]), tid
        assert run("show", backend, tid)[1] == run("show", str(sqlite_db), tid)[1]
    code, checked = run("check", backend, "--json")
    want_code, want = run("check", str(sqlite_db), "--json")
    assert (code, json.loads(checked)) == (want_code, json.loads(want))


def test_the_run_tree_is_the_same_on_every_backend(backend: str, sqlite_db: Path) -> None:
    trees = {}
    for tid in CALLS:
        code, tree = run("tree", backend, tid)
        assert code == 0, tree
        assert tree == run("tree", str(sqlite_db), tid)[1], tid  # steps, kinds, durations, tokens, cost
        trees[tid] = tree
    first = trees[CALLS[0]].splitlines()
    assert first[0].startswith("run ") and " steps · " in first[0] and " model calls" in first[0]
    assert any(CALLS[0] in line and line.lstrip().startswith("generation ") for line in first)


def test_the_latest_version_wins_and_a_deleted_row_is_gone(chdb_dir: Path) -> None:
    for dedup in ("final", "latest"):
        src = open_clickhouse(url(chdb_dir, extra=f"&dedup={dedup}"))
        assert isinstance(src, LangfuseSource) and src.lf.dedup == dedup
        assert src.count() == len(CALLS)
        assert src.key_of("lf-gen-deleted") is None
        trace = src.load("lf-gen-1")
        assert trace.response is not None and trace.response.text == "2"  # not the draft version's "draft"
        assert trace.session_id == "sess-1"  # the trace row's latest version, not "sess-stale"
        assert [(s["name"], s["value"]) for s in trace.attributes["ctxviewer.scores"]] == [("correct", True)]
        assert trace.usage.input_tokens == 41 and trace.attributes["langfuse.cost.total"] == pytest.approx(9e-06)


def test_every_query_is_bounded_by_project_and_window_and_never_offset(chdb_dir: Path) -> None:
    src = open_clickhouse(url(chdb_dir))
    assert isinstance(src, LangfuseSource)
    src.list(limit=-1)
    src.load(CALLS[0])
    src.session_trace_ids("sess-1")
    assert src.queries
    for sql in src.queries:
        assert "OFFSET" not in sql.upper()
        assert sql.count("project_id = {project:String}") == sql.count("FROM `lf3`.")
        assert "fromUnixTimestamp64Nano({hi:Int64})" in sql
    assert any(" FINAL " in sql for sql in src.queries)


@pytest.mark.parametrize("db,dedup", [("lf3", "final"), ("lf3", "latest"), ("lf4", "final")])
def test_the_plan_reads_the_table_within_project_and_window_and_skips_nothing(chdb_dir: Path, db: str,
                                                                               dedup: str) -> None:
    src = open_clickhouse(url(chdb_dir, db, f"&dedup={dedup}"))
    assert isinstance(src, LangfuseSource)
    page = src.lf.page_sql(after=True)
    plan = [str(r[0]) for r in src._query("EXPLAIN actions = 1 " + page, ts=src.window[0], span="", limit=10)]
    table = f"{db}.{src.lf.table}"
    assert sum(f"ReadFromMergeTree ({table})" in line for line in plan) >= 1
    filters = [line for line in plan if "ilter column:" in line and "start_time >= '" in line]
    assert filters and all(f"project_id = '{PROJECT}'" in f and "start_time <= '" in f and "type = 'GENERATION'" in f
                           for f in filters)  # project and window applied as the table is read
    assert {line.split("Offset", 1)[1].strip() for line in plan if "Offset" in line} <= {"0"}  # no rows skipped
    assert "│  Limit 10" in "\n".join(plan)  # the page stops at its limit


def test_sessions_read_through_the_trace_rows(chdb_dir: Path) -> None:
    src = open_clickhouse(url(chdb_dir))
    assert src.session_trace_ids("sess-1") == [c for c in CALLS if int(c.split("-")[2].rstrip("a")) % 2 == 1]
    assert src.session_trace_ids("sess-stale") == []
    v4 = open_clickhouse(url(chdb_dir, "lf4"))
    assert v4.session_trace_ids("sess-1") == src.session_trace_ids("sess-1")


def test_the_kind_is_read_from_the_columns_and_a_project_is_required(chdb_dir: Path) -> None:
    found = open_clickhouse(f"chdb://{chdb_dir}/lf3?table=observations&project_id={PROJECT}")
    assert isinstance(found, LangfuseSource) and not found.lf.v4 and found.lf.traces and found.lf.scores
    v4 = open_clickhouse(f"chdb://{chdb_dir}/lf4?table=events_full&project_id={PROJECT}")
    assert isinstance(v4, LangfuseSource) and v4.lf.v4 and not v4.lf.traces
    with pytest.raises(StoreError, match="no table lf4.events_core"):
        open_clickhouse(f"chdb://{chdb_dir}/lf4?table=events_core&project_id={PROJECT}")
    with pytest.raises(StoreError, match="read one project at a time: add &project_id=ID"):
        open_clickhouse(f"chdb://{chdb_dir}/lf3?kind=langfuse")
    with pytest.raises(StoreError, match="kind='jaeger'"):
        open_clickhouse(f"chdb://{chdb_dir}/lf3?kind=jaeger")


def test_a_filter_is_refused_rather_than_ignored(chdb_dir: Path) -> None:
    code, out = run("list", url(chdb_dir), "--filter", "model ~ gpt")
    assert code == 2
    with pytest.raises(FilterError, match="not served on a Langfuse table yet"):
        from ctxviewer.store import TraceQuery

        open_clickhouse(url(chdb_dir)).filter_where(TraceQuery(text="model ~ gpt"))


def test_import_pulls_the_window_into_a_database_that_says_the_same(chdb_dir: Path, sqlite_db: Path,
                                                                    tmp_path: Path) -> None:
    local = tmp_path / "local.db"
    res = CliRunner().invoke(cli, ["import", url(chdb_dir), "-o", str(local)])
    assert res.exit_code == 0, res.output
    assert json.loads(run("list", str(local), "--json")[1]) == json.loads(run("list", str(sqlite_db), "--json")[1])
