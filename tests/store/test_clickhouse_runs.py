"""The run tree of a ClickHouse spans table (:mod:`ctxviewer.pipeline.clickhouse.runs`) on chDB: a
chat span's whole OTel trace (agent, tool and chat spans) read by ``TraceId`` within the window is
the same run as the same spans imported into SQLite -- ``ctxviewer tree`` prints the same, text and
``--json``, and the run panel's reads (children, bounds, the branch to a call) are equal."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
from ctxviewer.pipeline.clickhouse.target import parse_target
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceStore
from tests.store.clickhouse_spans import GenSpan, chdb_dir, create_table, generate, insert, otlp_json

clickhouse_connect = pytest.importorskip("clickhouse_connect")
pytest.importorskip("chdb")

NOW = time.time_ns()
RUN = "9" * 32
"""The OTel trace of an agent that calls a tool between two model calls."""


def _agent_run(now_ns: int) -> list[GenSpan]:
    start = (now_ns - 900 * 10**9) // 10**6 * 10**6
    agent, chat1, tool, chat2 = "9a" * 8, "9b" * 8, "9c" * 8, "9d" * 8
    ask = [{"role": "user", "parts": [{"type": "text", "content": "refund order 4521?"}]}]
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "lookup",
                                            "arguments": {"order": 4521}}]}
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "shipped"}]}
    return [
        GenSpan(RUN, agent, "", "invoke_agent refunds", start, 5_000_000_000, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refunds",
            "gen_ai.conversation.id": "conv-r"}),
        GenSpan(RUN, chat1, agent, "chat gpt-4o-mini", start + 100_000_000, 900_000_000, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.provider.name": "openai",
            "gen_ai.usage.input_tokens": "30", "gen_ai.usage.output_tokens": "12",
            "gen_ai.input.messages": json.dumps(ask), "gen_ai.output.messages": json.dumps([call])}),
        GenSpan(RUN, tool, agent, "execute_tool lookup", start + 1_100_000_000, 200_000_000, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "call_1"},
            status="Error"),
        GenSpan(RUN, chat2, agent, "chat gpt-4o-mini", start + 1_400_000_000, 800_000_000, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.provider.name": "openai",
            "gen_ai.usage.input_tokens": "55", "gen_ai.usage.output_tokens": "7",
            "gen_ai.input.messages": json.dumps([*ask, call, result]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "text", "content": "It shipped; no refund."}], "finish_reason": "stop"}])}),
    ]


SPANS = generate(NOW) + _agent_run(NOW)
IN_WINDOW = [s for s in SPANS if s.start_ns > NOW - 24 * 3600 * 10**9]


def make_backends(folder: Path, database: str) -> tuple[str, str]:
    """The spans in ``DATABASE.otel_traces`` on chDB (URL) and imported into SQLite from an OTLP
    file in ``folder`` (path)."""
    path = chdb_dir()
    client = clickhouse_connect.get_client(dsn=f"chdb://{path}")
    create_table(client, database, "otel_traces")
    insert(client, database, "otel_traces", SPANS)
    src = folder / "spans.otlp.json"
    src.write_text(json.dumps(otlp_json(IN_WINDOW)), encoding="utf-8")
    report = import_into(folder / "t.db", [src], fmt="otel", workers=1)
    assert report.imported == 8, report.problems
    return f"chdb://{path}/{database}?table=otel_traces", str(folder / "t.db")


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """:func:`make_backends` in database ``runs``."""
    return make_backends(tmp_path_factory.mktemp("runs"), "runs")


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.output


@pytest.mark.parametrize("which", [f"{RUN}:{'9d' * 8}", f"{RUN}:{'9b' * 8}", RUN, f"{1:032x}:{1:08x}{'c' * 8}"])
def test_tree_prints_the_same_run_on_both_backends(backends: tuple[str, str], which: str) -> None:
    url, db = backends
    for extra in ([], ["--json"]):
        code, said = run("tree", url, which, *extra)
        assert (code, said) == run("tree", db, which, *extra), extra
        assert code == 0
    text = run("tree", url, f"{RUN}:{'9d' * 8}")[1]
    assert text.splitlines()[0].startswith(f"run {RUN} · ")
    steps = json.loads(run("tree", url, RUN, "--json")[1])["steps"]
    assert [(s["kind"], s["name"]) for s in steps] == [("agent", "invoke_agent refunds")]
    assert [(c["kind"], c["name"], c["status"], c["input_tokens"], c["output_tokens"])
            for c in steps[0]["children"]] == [("llm", "chat gpt-4o-mini", "ok", 30, 12),
                                               ("tool", "execute_tool lookup", "error", None, None),
                                               ("llm", "chat gpt-4o-mini", "ok", 55, 7)]


def test_the_run_panel_reads_the_same_on_both_backends(backends: tuple[str, str]) -> None:
    url, db = backends
    source = ClickHouseSource(parse_target(url))
    with TraceStore.open(db) as store:
        call = f"{RUN}:{'9d' * 8}"
        assert source.run_of(call) == store.run_of(call) == RUN
        assert source.run_steps(RUN) == store.run_steps(RUN)
        assert source.children(RUN, None) == store.children(RUN, None)
        assert source.children(RUN, "9a" * 8) == store.children(RUN, "9a" * 8)
        assert source.run_bounds(RUN) == store.run_bounds(RUN)
        assert source.step_path(call) == store.step_path(call) == (RUN, ["9a" * 8, "9d" * 8])
    assert "TraceId = {trace:String}" in source.queries[-1] and "Timestamp >= " in source.queries[-1]


def test_a_span_outside_the_window_or_unknown_has_no_run(backends: tuple[str, str]) -> None:
    url, _db = backends
    source = ClickHouseSource(parse_target(url))
    old = next(s for s in SPANS if s.start_ns < NOW - 24 * 3600 * 10**9 and s.name.startswith("chat"))
    assert source.run_of(f"{old.trace_id}:{old.span_id}") is None
    assert source.run_of("0" * 32) is None and source.run_steps("0" * 32) == []
    code, said = run("tree", url, "0" * 32)
    assert code == 2 and f"no trace or run with id {'0' * 32!r}" in said  # none in the window
