"""The ClickHouse backend (:mod:`ctxviewer.pipeline.clickhouse`) on chDB, the ClickHouse engine
in-process, with the OpenTelemetry Collector exporter's ``otel_traces`` DDL verbatim and generated
chat spans inserted with the exporter's INSERT column list (``tests/store/clickhouse_spans.py``):
the production SQL runs here. ``list``, ``show`` and ``check`` say the same of a ClickHouse URL as
of the same spans imported into SQLite (one test over both backends); every query carries the time
window and no ``OFFSET``; the password is only read from the environment."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
from ctxviewer.pipeline.clickhouse.target import PASSWORD_ENV, parse_target
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import StoreError, TraceQuery, TraceSource
from tests.store.clickhouse_spans import chdb_dir as shared_chdb_dir
from tests.store.clickhouse_spans import create_table, generate, insert, otlp_json

clickhouse_connect = pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")

NOW = time.time_ns()
SPANS = generate(NOW)
CHATS = sorted((s for s in SPANS if s.name.startswith("chat") and s.start_ns > NOW - 24 * 3600 * 10**9),
               key=lambda s: (s.start_ns, s.span_id))


@pytest.fixture(scope="module")
def chdb_dir() -> Path:
    """The process's chDB data directory (chDB keeps one engine per process), holding the Map
    flavour as ``otel.otel_traces`` and the JSON flavour as ``otel.otel_traces_json``."""
    path = shared_chdb_dir()
    client = clickhouse_connect.get_client(dsn=f"chdb://{path}")
    create_table(client, "otel", "otel_traces", "map")
    insert(client, "otel", "otel_traces", SPANS)
    create_table(client, "otel", "otel_traces_json", "json")
    insert(client, "otel", "otel_traces_json", SPANS)
    return path


@pytest.fixture(scope="module")
def sqlite_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same spans as an OTLP/JSON file, imported into SQLite by the import pipeline."""
    folder = tmp_path_factory.mktemp("sqlite")
    src = folder / "spans.otlp.json"
    src.write_text(json.dumps(otlp_json([s for s in SPANS if s.start_ns > NOW - 24 * 3600 * 10**9])), encoding="utf-8")
    report = import_into(folder / "t.db", [src], fmt="otel", workers=1)
    assert report.imported == len(CHATS), report.problems
    return folder / "t.db"


def url(chdb_dir: Path, table: str = "otel_traces", extra: str = "") -> str:
    return f"chdb://{chdb_dir}/otel?table={table}{extra}"


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout


@pytest.mark.parametrize(("table", "flavour", "attributes_type"), [
    ("otel_traces", "map", "Map(LowCardinality(String), String)"), ("otel_traces_json", "json", "JSON")])
def test_open_reads_the_schema_and_counts_the_chat_spans_of_the_window(chdb_dir: Path, table: str, flavour: str,
                                                                       attributes_type: str) -> None:
    src = ClickHouseSource(parse_target(url(chdb_dir, table)))
    assert isinstance(src, TraceSource)
    assert src.schema.flavour == flavour
    assert src.schema.version.split(".")[0].isdigit()
    assert src.schema.columns["SpanAttributes"] == attributes_type
    assert src.count() == len(CHATS) == 6  # the 2 spans 30 h old are outside the default 24 h window
    assert [r.trace_id for r in src.list()] == [f"{s.trace_id}:{s.span_id}" for s in CHATS]
    assert [(r.model, r.provider, r.session_id, r.span_status) for r in src.list()][:3] == [
        ("gpt-4o-mini", "openai", "conv-0", "ok"), ("gpt-4o-mini", "openai", "conv-1", "ok"),
        ("gpt-4o-mini", "openai", "conv-0", "error")]
    wide = ClickHouseSource(parse_target(url(chdb_dir, table, extra="&since=2d")))
    assert wide.count() == 8


def test_lists_page_by_key_never_offset_and_every_query_has_the_window(chdb_dir: Path) -> None:
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    first = src.first_rows(limit=4)
    assert [r.trace_id for _, r in first] == [f"{s.trace_id}:{s.span_id}" for s in CHATS[:4]]
    assert [r.trace_id for r in src.list(None, offset=4, limit=2)] == [f"{s.trace_id}:{s.span_id}" for s in CHATS[4:]]
    keys = src.row_keys()
    assert len(keys) == 6 and [r.trace_id for r in src.rows_by_key(keys[:2]) if r] == [r.trace_id for _, r in first[:2]]
    src.load(first[0][1].trace_id)
    src.session_trace_ids("conv-0")
    assert src.queries
    for sql in src.queries:
        assert "OFFSET" not in sql.upper()
        assert "Timestamp >= fromUnixTimestamp64Nano({lo:Int64})" in sql
        assert "Timestamp <= fromUnixTimestamp64Nano({hi:Int64})" in sql
    page = src.schema.page_sql(after=True)
    assert "(Timestamp, SpanId) > (fromUnixTimestamp64Nano({ts:Int64}), {span:String})" in page
    assert page.endswith("ORDER BY Timestamp, SpanId LIMIT {limit:UInt64}")
    plan = "\n".join(str(r[0]) for r in src._query("EXPLAIN actions = 1 " + page, ts=CHATS[1].start_ns,
                                                   span=CHATS[1].span_id, limit=2))
    assert "ReadFromMergeTree (otel.otel_traces)" in plan
    window = [line for line in plan.splitlines() if "Filter column" in line and "Timestamp >= '" in line]
    assert window and "Timestamp <= '" in window[0]  # the window is applied as the table is read


def test_content_is_read_only_for_the_selected_span(chdb_dir: Path) -> None:
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    src.first_rows(limit=10)
    listing = list(src.queries)
    assert all("gen_ai.input.messages'] != ''" in q and "SpanAttributes," not in q for q in listing)  # narrow rows
    trace = src.load(f"{CHATS[1].trace_id}:{CHATS[1].span_id}")
    assert src.queries[-1].count("SpanAttributes") >= 1 and "TraceId = {trace:String}" in src.queries[-1]
    assert [i.id for i in trace.items] == ["system", "msg-0", "msg-1", "msg-2"]  # inherited from the agent span
    assert trace.session_id == "conv-1" and trace.endpoint.model == "gpt-4o-mini"
    assert trace.usage is not None and trace.usage.input_tokens == 41
    with pytest.raises(KeyError):
        src.load("00000000000000000000000000000007:00000007cccccccc")  # 30 h old: outside the window


def test_every_query_is_read_only_with_a_time_limit(chdb_dir: Path) -> None:
    seen: list[dict[str, Any]] = []
    client = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir}")
    real = client.query

    def spy(sql: str, **kw: Any) -> Any:
        seen.append(kw.get("settings") or {})
        return real(sql, **kw)

    client.query = spy
    src = ClickHouseSource(parse_target(url(chdb_dir, extra="&timeout=7")), client=client)
    src.count()
    src.load(f"{CHATS[0].trace_id}:{CHATS[0].span_id}")
    assert seen and all(s.get("readonly") == 2 for s in seen)
    assert len(seen) == 5 and all(s.get("max_execution_time") == 7 for s in seen)  # the schema reads too (3)


def test_a_table_without_the_exporter_columns_is_refused_naming_them(chdb_dir: Path) -> None:
    client = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir}")
    client.command("CREATE TABLE IF NOT EXISTS otel.other (Timestamp DateTime64(9), TraceId String) "
                   "ENGINE = MergeTree ORDER BY Timestamp")
    with pytest.raises(StoreError, match=r"otel\.other is not an OpenTelemetry exporter spans table: no column SpanId"):
        ClickHouseSource(parse_target(url(chdb_dir, "other")))
    with pytest.raises(StoreError, match="no table otel.missing"):
        ClickHouseSource(parse_target(url(chdb_dir, "missing")))


def test_the_password_comes_only_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(StoreError, match=f"a password in the URL is refused; set it in the environment variable {PASSWORD_ENV}"):
        parse_target("clickhouse://reader:secret@ch.example:8443/otel?table=otel_traces")
    t = parse_target("clickhouse://reader@ch.example:8443/otel?table=otel_traces&since=2h")
    assert (t.host, t.port, t.user, t.database, t.table, t.window.total_seconds()) == (
        "ch.example", 8443, "reader", "otel", "otel_traces", 7200)
    assert "secret" not in repr(t)
    res = CliRunner().invoke(cli, ["list", "clickhouse://reader:secret@127.0.0.1:1/otel"])
    assert res.exit_code == 2 and "secret" not in res.output and PASSWORD_ENV in res.output
    seen: dict[str, Any] = {}

    def get_client(**kw: Any) -> Any:
        seen.update(kw)
        raise OSError("refused")

    monkeypatch.setattr(clickhouse_connect, "get_client", get_client)
    monkeypatch.setenv(PASSWORD_ENV, "from-env")
    with pytest.raises(StoreError, match=r"cannot connect \(refused\)"):
        ClickHouseSource(t)
    assert (seen["password"], seen["username"], seen["secure"], seen["port"]) == ("from-env", "reader", True, 8443)


@pytest.fixture(params=["sqlite", "clickhouse-map", "clickhouse-json"])
def backend(request: pytest.FixtureRequest, chdb_dir: Path, sqlite_db: Path) -> str:
    """The same spans three ways: imported into SQLite, in the exporter's Map and JSON tables."""
    if request.param == "sqlite":
        return str(sqlite_db)
    return url(chdb_dir, "otel_traces_json" if request.param.endswith("json") else "otel_traces")


def test_list_show_and_check_say_the_same_on_both_backends(backend: str, sqlite_db: Path) -> None:
    """One test over both backends: each must print what the SQLite import prints."""
    code, listed = run("list", backend, "--json")
    assert code == 0, listed
    rows = json.loads(listed)
    assert [r["trace_id"] for r in rows] == [f"{s.trace_id}:{s.span_id}" for s in CHATS]
    code, expected = run("list", str(sqlite_db), "--json")
    assert rows == json.loads(expected)
    assert {r["state"] for r in rows} <= {"ok", "warning", "failure"} and rows[0]["retained"] == 2
    code, table = run("list", backend, "--wide")
    assert code == 0 and table == run("list", str(sqlite_db), "--wide")[1]
    for s in CHATS:
        tid = f"{s.trace_id}:{s.span_id}"
        code, shown = run("show", backend, tid, "--json")
        assert code == 0, shown
        assert json.loads(shown) == json.loads(run("show", str(sqlite_db), tid, "--json")[1]), tid
        assert run("show", backend, tid)[1] == run("show", str(sqlite_db), tid)[1]
    code, checked = run("check", backend, "--json")
    assert (code, json.loads(checked)) == run("check", str(sqlite_db), "--json")[:1] + (
        json.loads(run("check", str(sqlite_db), "--json")[1]),)


SEARCHES = ["question", "careful helper", "earlier answer", '"what is 2"', "quest", "is 4", "nothing-here"]


def test_search_diff_whatif_and_report_say_the_same_on_both_backends(backend: str, sqlite_db: Path,
                                                                     tmp_path: Path) -> None:
    """The rest of the commands on the same three backends: each prints what SQLite prints."""
    sq = str(sqlite_db)
    for query in SEARCHES:
        for fmt in ("--json", "--jsonl"):
            code, found = run("search", backend, query, fmt)
            assert code == 0, found
            assert found == run("search", sq, query, fmt)[1], (query, fmt)
        assert run("search", backend, query)[1] == run("search", sq, query)[1]
    hits = json.loads(run("search", backend, "question", "--json")[1])
    assert [(h["trace_id"], h["item_id"]) for h in hits] == [(f"{s.trace_id}:{s.span_id}", "msg-2" if i % 3 == 1 else "msg-0")
                                                              for i, s in enumerate(CHATS)]
    assert run("search", backend, "nothing-here")[1] == "no item content matches 'nothing-here'\n"
    paged = CliRunner().invoke(cli, ["search", backend, "careful", "--limit", "2"])
    assert paged.exit_code == 0 and len(paged.stdout.splitlines()) == 2
    cursor = paged.stderr.strip().rsplit(" ", 1)[1].rstrip(")")
    rest = run("search", backend, "careful", "--after", cursor)[1]
    assert paged.stdout + rest == run("search", sq, "careful")[1]
    a, b = (f"{s.trace_id}:{s.span_id}" for s in (CHATS[0], CHATS[1]))
    for args in (["diff", backend, a, b], ["diff", backend, a, b, "--json"], ["diff", backend, b, a, "--against", sq],
                 ["whatif", backend, b], ["whatif", backend, b, "--capacity", "60", "--json"],
                 ["whatif", backend, a, "--pin", "msg-0", "--reserve", "40"]):
        code, said = run(*args)
        expected = run(*[sq if x == backend else x for x in args])
        assert (code, said) == expected, args
    assert "msg-1" in run("diff", backend, a, b)[1]
    for ids in ((), (a, b)):
        out, ref = tmp_path / f"ch{len(ids)}.html", tmp_path / f"sq{len(ids)}.html"
        assert run("report", backend, *ids, "-o", str(out))[0] == 0 == run("report", sq, *ids, "-o", str(ref))[0]
        # the title names the source; "generated <time>" is when each report was written (seconds apart)
        title = re.compile(r"ctxviewer audit report: [^<]*|generated \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")
        html, expected_html = (title.sub("", f.read_text(encoding="utf-8")) for f in (out, ref))
        assert html == expected_html
        assert [t for t in (f"{c.trace_id}:{c.span_id}" for c in CHATS) if t in html] == list(ids) or [
            f"{c.trace_id}:{c.span_id}" for c in CHATS]


def test_list_pages_by_cursor_on_a_clickhouse_url(chdb_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["list", url(chdb_dir), "--jsonl", "--limit", "4"])
    assert res.exit_code == 0
    first = [json.loads(line)["trace_id"] for line in res.stdout.splitlines()]
    assert first == [f"{s.trace_id}:{s.span_id}" for s in CHATS[:4]]
    hint = res.stderr.strip().splitlines()[-1]
    cursor = hint.rsplit(" ", 1)[1]
    rest = CliRunner().invoke(cli, ["list", url(chdb_dir), "--jsonl", "--after", cursor])
    assert [json.loads(line)["trace_id"] for line in rest.stdout.splitlines()] == [
        f"{s.trace_id}:{s.span_id}" for s in CHATS[4:]]


def test_import_pulls_the_window_into_a_local_database_that_says_the_same(chdb_dir: Path, sqlite_db: Path,
                                                                          tmp_path: Path) -> None:
    local = tmp_path / "local.db"
    # 45 minutes before NOW (when the spans were made), however long ago the suite made them
    since = f"{45 * 60 + (time.time_ns() - NOW) // 10**9}s"
    res = CliRunner().invoke(cli, ["import", url(chdb_dir, extra=f"&since={since}"), "-o", str(local)])
    assert res.exit_code == 0, res.output
    in_window = [s for s in CHATS if s.start_ns >= NOW - 45 * 60 * 10**9]  # 10 to 40 minutes old; 50 and 60 are not
    assert len(in_window) == 4
    assert res.stdout.strip() == f"imported 4 trace(s) from {url(chdb_dir, extra=f'&since={since}')} into {local}"
    rows = json.loads(run("list", str(local), "--json")[1])
    assert [r["trace_id"] for r in rows] == [f"{s.trace_id}:{s.span_id}" for s in in_window]
    imported = {r["trace_id"]: r for r in json.loads(run("list", str(sqlite_db), "--json")[1])}
    assert rows == [imported[r["trace_id"]] for r in rows]
    tid = rows[-1]["trace_id"]
    assert json.loads(run("show", str(local), tid, "--json")[1]) == json.loads(run("show", str(sqlite_db), tid, "--json")[1])
    empty = CliRunner().invoke(cli, ["import", url(chdb_dir, extra="&since=1s"), "-o", str(tmp_path / "none.db")])
    assert empty.exit_code == 2 and "no traces imported" in empty.output and not (tmp_path / "none.db").exists()


def test_cancel_kills_the_running_query_by_its_id_on_a_connection_of_its_own(chdb_dir: Path) -> None:
    client = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir}")
    real = client.query
    ids: list[str] = []
    killed: list[tuple[str, Any]] = []

    class Killer:  # the second connection: records what it is told
        def command(self, sql: str, parameters: Any = None) -> None:
            killed.append((sql, parameters))

    src = ClickHouseSource(parse_target(url(chdb_dir)), client=client)

    def query(sql: str, **kw: Any) -> Any:  # cancel() called while this query is in flight
        ids.append(kw["settings"]["query_id"])
        assert src.cancel(Killer()) == [ids[-1]]
        return real(sql, **kw)

    client.query = query
    assert src.count() == 6
    assert ids[0].startswith("ctxviewer-") and len(ids[0]) == len("ctxviewer-") + 32
    assert killed == [("KILL QUERY WHERE (query_id IN {ids:Array(String)} OR "
                       "hasAny(extractAll(query, 'ctxviewer-[0-9a-f]+'), {ids:Array(String)})) "
                       "AND NOT startsWith(query, 'KILL') ASYNC", {"ids": [ids[0]]})]
    assert src.cancel(Killer()) == []  # nothing in flight


def test_cancel_reaches_the_engine_and_the_waiting_call_says_cancelled(chdb_dir: Path) -> None:
    """On chDB for real: the query in flight (found in ``system.processes`` by the id in its
    ``log_comment``) is killed from another thread and the waiting call raises."""
    import threading

    src = ClickHouseSource(parse_target(url(chdb_dir)))
    failed: list[str] = []
    slow = "SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 3 AND {lo:Int64} < {hi:Int64}"

    def run() -> None:
        try:
            src._query(slow)
        except StoreError as exc:
            failed.append(str(exc))

    worker = threading.Thread(target=run)
    worker.start()
    probe = clickhouse_connect.get_client(dsn=f"chdb://{chdb_dir}")
    for _ in range(200):  # until the engine runs it
        if probe.query("SELECT count() FROM system.processes WHERE query LIKE '%sipHash64(number) % 7%' "
                       "AND query NOT LIKE '%system.processes%'").result_rows[0][0]:
            break
        time.sleep(0.02)
    (killed,) = src.cancel()
    worker.join(20)
    assert not worker.is_alive() and killed.startswith("ctxviewer-")
    assert failed == [f"{url(chdb_dir)}: query cancelled (KILL QUERY)"]


def test_the_fast_count_is_an_upper_bound_from_the_primary_key_read_before_the_exact_count(chdb_dir: Path) -> None:
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    bound = src.estimate_count()
    # 16 spans in the table: the 12 in the window (6 chat, 6 agent) are in the parts the window selects
    # (a day's partition, its Timestamp range meeting the window), the 4 older ones not
    assert (bound, src.count()) == (12, 6)
    assert src.queries[0].startswith("EXPLAIN ESTIMATE SELECT 1 FROM `otel`.`otel_traces` WHERE Timestamp >= ")
    assert src.estimate_count("(ServiceName = {f0:String})") == bound  # a filter only lowers it


OLD_SERVER = {"use_top_k_dynamic_filtering": 0, "use_skip_indexes_for_top_k": 0,
              "query_plan_optimize_lazy_materialization": 0}
"""An older server simulated: no top-K dynamic filtering, no lazy materialization."""


def test_an_older_server_without_top_k_or_lazy_materialization_lists_the_same_first_page(chdb_dir: Path) -> None:
    new = ClickHouseSource(parse_target(url(chdb_dir)))
    old = ClickHouseSource(parse_target(url(chdb_dir)), settings=OLD_SERVER)
    assert old.first_rows(limit=3) == new.first_rows(limit=3)
    tid = new.first_rows(limit=1)[0][1].trace_id
    assert old.load(tid) == new.load(tid)
    page = new.schema.page_sql(after=False)
    plan_new = "\n".join(str(r[0]) for r in new._query("EXPLAIN " + page, limit=3))
    plan_old = "\n".join(str(r[0]) for r in old._query("EXPLAIN " + page, limit=3))
    assert "LazilyReadFromMergeTree" in plan_new and "__topKFilter(Timestamp)" in plan_new  # today's engine
    assert "Lazily" not in plan_old and "topK" not in plan_old and "ReadFromMergeTree (otel.otel_traces)" in plan_old
    for plan in (plan_new, plan_old):  # both stop at the page, within the window
        assert "Limit 3" in plan and "Timestamp >= '" in plan and "Timestamp <= '" in plan


FILTERS = ["conversation == conv-1", "model ~ MINI", "status == error", "not status == error", "00000003cc",
           "conversation != conv-1 and operation == chat", "model in (gpt-4o-mini, other)", "provider !~ open",
           "(conversation == conv-0 or status == error) and service == support-bot", "format == otel"]


@pytest.mark.parametrize("text", FILTERS)
def test_a_display_filter_keeps_the_same_rows_on_both_backends(chdb_dir: Path, sqlite_db: Path, text: str) -> None:
    expected = json.loads(run("list", str(sqlite_db), "--json", "--filter", text)[1])
    for table in ("otel_traces", "otel_traces_json"):
        code, out = run("list", url(chdb_dir, table), "--json", "--filter", text)
        assert code == 0, out
        assert [r["trace_id"] for r in json.loads(out)] == [r["trace_id"] for r in expected], (table, text)
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    where, params = src.filter_where(TraceQuery(text=text))
    assert src.count_where(where, params) == len(expected)
    assert all(f"{{f{i}:String}}" in where for i in range(len(params)))  # every value a bound parameter
    assert "conv-" not in where and "MINI" not in where and "support-bot" not in where


def test_a_filter_on_what_only_the_assessment_knows_is_refused_at_its_column(chdb_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["list", url(chdb_dir), "--filter", "model ~ gpt and state == failure"])
    assert res.exit_code == 2
    assert "--filter: 'state' is not served on a ClickHouse store yet (pull the window into a database first" in res.output
    assert "at column 17" in res.output


def test_a_span_that_does_not_become_a_trace_is_named_never_dropped_silently(chdb_dir: Path, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.pipeline.clickhouse.pull import pull_window

    src = ClickHouseSource(parse_target(url(chdb_dir)))
    bad = f"{CHATS[2].trace_id}:{CHATS[2].span_id}"
    real = src.mapped
    monkeypatch.setattr(src, "mapped", lambda tid: (None, ["cannot map GenAI attributes: boom"]) if tid == bad
                        else real(tid))
    report = pull_window(src, tmp_path / "local.db")
    assert report.imported == 5
    assert [(p.record, p.message) for p in report.problems] == [
        (f"span {bad}", "cannot map GenAI attributes: boom"),
        (f"span {bad}", "not imported: the mapping could not make it a trace (above)")]


def test_a_cancel_between_two_queries_of_a_search_stops_it_before_the_next(chdb_dir: Path) -> None:
    """A no-hit search reads the 24 h window a one-hour slice at a time: cancel() landing after the
    first slice's query (no query in flight, nothing to kill) still stops it before the second."""
    src = ClickHouseSource(parse_target(url(chdb_dir)))
    real = src._query
    slices: list[str] = []

    def query(sql: str, **params: Any) -> list[tuple[Any, ...]]:
        rows = real(sql, **params)
        if "s_lo" in params:
            slices.append(sql)
            if len(slices) == 1:
                assert src.cancel() == []  # between two queries: none in flight
        return rows

    src._query = query  # type: ignore[method-assign]
    with pytest.raises(StoreError, match=r"query cancelled \(KILL QUERY\)"):
        src.search("zzqxnohitword")
    assert len(slices) == 1  # of the window's 24 slices
    slices.clear()
    src._query = real  # type: ignore[method-assign]
    assert src.search("zzqxnohitword").hits == []  # a search started after the cancel runs whole
    keys = src.row_keys()
    assert len(keys) == 6
