"""The optional accelerators of a ClickHouse spans table (README "Team store": the materialized
``gen_ai_*`` columns and the ``idx_gen_ai_input`` text index) detected on open and used, on chDB:
the same spans in the exporter's table as is and in one with the README's ``ALTER TABLE``
statements applied; the SQL reads the columns (and the index: ``EXPLAIN``) where they are, and
every list, count, filter, session and search gives the same rows in the same order on both."""

from __future__ import annotations

import json
import time

import pytest

from ctxviewer.pipeline.clickhouse.schema import materialized_columns
from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
from ctxviewer.pipeline.clickhouse.target import parse_target
from ctxviewer.store import TraceQuery
from tests.store.clickhouse_spans import GenSpan, accelerate, chdb_dir, create_table, generate, insert

clickhouse_connect = pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")

NOW = time.time_ns()


def _extra(now_ns: int) -> list[GenSpan]:
    """Spans the generated ones lack: a chat span with input messages and no operation name (the
    chat predicate's second half), a word right after an escaped newline and in upper case (a
    token index would miss the first), another model and conversation."""
    start = (now_ns - 1800 * 10**9) // 10**6 * 10**6
    msgs = [{"role": "user", "parts": [{"type": "text", "content": "Line one\nREFUND please, order 4521"}]}]
    return [
        GenSpan("e" * 32, "e" * 16, "", "chat legacy", start, 300_000_000, {
            "gen_ai.request.model": "claude-x", "gen_ai.provider.name": "anthropic",
            "gen_ai.conversation.id": "conv-9", "gen_ai.input.messages": json.dumps(msgs)}),
        GenSpan("f" * 32, "f" * 16, "", "chat other", start + 10**9, 300_000_000, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-x",
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                {"type": "text", "content": "tab\trefunded? see earlier"}]}])}),
        GenSpan("f" * 32, "f" * 15 + "0", "f" * 16, "execute_tool lookup", start + 2 * 10**9, 100_000_000, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}),
    ]


@pytest.fixture(scope="module")
def urls() -> tuple[str, str]:
    """``acc.plain`` (the exporter's DDL) and ``acc.fast`` (the same with the README's ALTERs,
    :data:`~tests.store.clickhouse_spans.ACCELERATORS`;
    spans inserted both before the ALTERs and after), holding the same spans."""
    path = chdb_dir()
    client = clickhouse_connect.get_client(dsn=f"chdb://{path}")
    spans, extra = generate(NOW), _extra(NOW)
    for table in ("plain", "fast"):
        create_table(client, "acc", table, "map")
        insert(client, "acc", table, spans)
    accelerate(client, "acc", "fast")
    for table in ("plain", "fast"):
        insert(client, "acc", table, extra)
    return f"chdb://{path}/acc?table=plain", f"chdb://{path}/acc?table=fast"


def test_open_detects_the_materialized_columns_and_the_text_index(urls: tuple[str, str]) -> None:
    plain, fast = (ClickHouseSource(parse_target(u)) for u in urls)
    assert plain.schema.materialized == {} and plain.schema.input_index == ""
    assert fast.schema.materialized == {"gen_ai.operation.name": "gen_ai_operation_name",
                                        "gen_ai.request.model": "gen_ai_request_model",
                                        "gen_ai.conversation.id": "gen_ai_conversation_id"}
    assert fast.schema.input_index == "idx_gen_ai_input"


def test_only_a_materialized_string_column_of_the_attribute_itself_stands_for_it() -> None:
    rows = [("a_op", "String", "MATERIALIZED", "SpanAttributes['gen_ai.operation.name']"),
            ("b_op", "LowCardinality(String)", "MATERIALIZED", "SpanAttributes[ 'gen_ai.operation.name' ]"),
            ("model_n", "Nullable(String)", "MATERIALIZED", "SpanAttributes['gen_ai.request.model']"),
            ("model_d", "String", "DEFAULT", "SpanAttributes['gen_ai.request.model']"),
            ("conv", "String", "MATERIALIZED", "lower(SpanAttributes['gen_ai.conversation.id'])"),
            ("Timestamp", "DateTime64(9)", "", "")]
    assert materialized_columns(rows) == {"gen_ai.operation.name": "a_op"}


def test_the_list_chat_predicate_filters_and_count_read_the_columns(urls: tuple[str, str]) -> None:
    fast = ClickHouseSource(parse_target(urls[1]))
    page = fast.schema.page_sql(after=True)
    assert ("`gen_ai_operation_name` IN ('chat', 'generate_content', 'text_completion', 'chat.completions', "
            "'chat.streaming_completions', 'text.completions', 'text.streaming_completions')") in page
    assert "`gen_ai_request_model`" in page and "`gen_ai_conversation_id`" in page
    for attr in ("operation.name", "request.model", "conversation.id"):
        assert f"SpanAttributes['gen_ai.{attr}']" not in page
    assert "(Timestamp, SpanId) > (fromUnixTimestamp64Nano({ts:Int64}), {span:String})" in page
    where, _ = fast.filter_where(TraceQuery(text="model ~ claude and conversation == conv-9 and operation != chat"))
    assert where == ("((positionCaseInsensitive(`gen_ai_request_model`, {f0:String}) > 0) AND "
                     "(`gen_ai_conversation_id` = {f1:String}) AND "
                     "(`gen_ai_operation_name` != '' AND `gen_ai_operation_name` != {f2:String}))")
    count = fast.schema.count_sql()
    assert count.count("SELECT count()") == 2 and "`gen_ai_operation_name` = '' AND" in count
    assert "OFFSET" not in page.upper() + count.upper()
    plan = "\n".join(str(r[0]) for r in fast._query("EXPLAIN actions = 1 " + page, ts=0, span="", limit=3))
    assert "ReadFromMergeTree (acc.fast)" in plan and "gen_ai_operation_name" in plan
    assert "key_gen_ai.operation.name" not in plan  # not read from the map


FILTERS = ["", "model ~ claude", "model == gpt-4o-mini", "conversation == conv-1", "conversation != conv-9",
           "operation == chat", "not operation", "session == conv-0 or model ~ X", "claude", "status == error"]


@pytest.mark.parametrize("text", FILTERS)
def test_lists_counts_and_filters_are_the_same_with_and_without_accelerators(urls: tuple[str, str],
                                                                            text: str) -> None:
    plain, fast = (ClickHouseSource(parse_target(u)) for u in urls)
    query = TraceQuery(text=text)
    rows = plain.list(query, limit=-1)
    assert fast.list(query, limit=-1) == rows
    assert fast.count(query) == plain.count(query) == len(rows)
    assert [r for _, r in fast.first_rows(*fast.filter_where(query), limit=3)] == rows[:3]
    assert [r for _, r in fast.first_rows(*fast.filter_where(query), descending=True, limit=2)] == rows[::-1][:2]
    assert fast.estimate_count() == plain.estimate_count()


def test_the_fallback_half_of_the_chat_predicate_is_listed_and_counted(urls: tuple[str, str]) -> None:
    plain, fast = (ClickHouseSource(parse_target(u)) for u in urls)
    ids = [r.trace_id for r in fast.list(limit=-1)]
    assert f"{'e' * 32}:{'e' * 16}" in ids and len(ids) == 8 == fast.count()  # 6 generated + 2 extra
    assert [r.trace_id for r in fast.list(TraceQuery(text="not operation"), limit=-1)] == [f"{'e' * 32}:{'e' * 16}"]
    assert fast.session_trace_ids("conv-9") == plain.session_trace_ids("conv-9") == [f"{'e' * 32}:{'e' * 16}"]
    assert fast.session_trace_ids("conv-0") == plain.session_trace_ids("conv-0") != []
    assert "`gen_ai_conversation_id` = {session:String}" in fast.queries[-1]


SEARCHES = ["refund", "REFUND", "refunded", "order 4521", "earlier", "question", "quest", "careful helper",
            "is 4", "see earlier", "lookup", "zzqqnohit", '"line one"']


@pytest.mark.parametrize("query", SEARCHES)
def test_search_is_the_same_with_and_without_the_text_index(urls: tuple[str, str], query: str) -> None:
    plain, fast = (ClickHouseSource(parse_target(u)) for u in urls)
    hits = plain.search_hits(query, limit=-1)
    assert fast.search_hits(query, limit=-1) == hits
    if query == "refund":  # the word after an escaped newline (a token index would miss it), whole then prefix
        assert [(h.trace_id, h.item_id) for h in hits] == [(f"{'e' * 32}:{'e' * 16}", "msg-0"),
                                                           (f"{'f' * 32}:{'f' * 16}", "msg-0")]


def test_search_scans_the_attributes_with_or_without_the_text_index(urls: tuple[str, str]) -> None:
    """The text index is recorded but not used by search (the schema module says why: measured)."""
    plain, fast = (ClickHouseSource(parse_target(u)) for u in urls)
    sql = fast.schema.search_candidates_sql(1, after=False)
    assert "LIKE" not in sql and "positionCaseInsensitive(concat(arrayStringConcat(mapValues(SpanAttributes)" in sql
    assert "`gen_ai_operation_name` IN (" in sql  # its chat spans by the column
    assert sql == plain.schema.search_candidates_sql(1, after=False).replace(
        "SpanAttributes['gen_ai.operation.name']", "`gen_ai_operation_name`").replace("`plain`", "`fast`")
