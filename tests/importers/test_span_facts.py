"""Issue 13: the trace list's span status and agent / operation -- what the importers record
(``gen_ai.agent.name`` on the call or inherited from an ancestor span, ``gen_ai.operation.name``,
the OTel span status), what the store keeps on each ``traces`` row (schema 5) and which traces
the ``status`` / ``agent`` / ``operation`` display filters keep, on corpus files and OTLP spans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.model.span_facts import agent_name, operation_name, span_status, status_message
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceQuery, TraceStore
from ctxviewer.store.filters import compile_filter

DATA = Path(__file__).resolve().parents[1] / "data" / "store"
OTEL_T = "4bf92f3577b34da6a3ce929d0e0e4736:00000000000000"


def _rows(db: Path, flt: str = "") -> list[tuple[str, str | None, str | None, str | None, str | None]]:
    with TraceStore.open(db) as store:
        return [(r.trace_id, r.span_status, r.status_message, r.agent, r.operation)
                for r in store.list(TraceQuery(text=flt), 0, -1)]


def _ids(db: Path, flt: str) -> list[str]:
    return [r[0] for r in _rows(db, flt)]


# ------------------------------------------------------------------ the core rule


@pytest.mark.parametrize("attrs, status", [
    ({}, None),
    ({"otel.status_code": "ok", "ctxviewer.completeness": "ended"}, "ok"),
    ({"otel.status_code": "unset"}, "unset"),
    ({"otel.status_code": "ERROR"}, "error"),
    ({"error.type": "timeout"}, "error"),
    ({"otel.span.ended": False, "ctxviewer.completeness": "never ended"}, "unfinished"),
    ({"ctxviewer.completeness": "never ended"}, "unfinished"),
    ({"otel.status_code": "error", "otel.span.ended": False}, "error"),  # an error wins
    ({"otel.status_code": "ok", "ctxviewer.completeness": "end not recorded"}, "ok"),
])
def test_span_status_word(attrs: dict[str, object], status: str | None) -> None:
    assert span_status(attrs) == status


def test_message_agent_operation() -> None:
    assert status_message({"otel.status_message": "429 rate limited"}) == "429 rate limited"
    assert status_message({"error.type": "timeout"}) == "timeout"
    long = status_message({"otel.status_message": "x" * 600})
    assert long is not None and len(long) == 500 and long.endswith("…")
    assert agent_name({"gen_ai.agent.name": "planner", "agent.name": "other"}) == "planner"
    assert agent_name({"agent.name": "oi-agent"}) == "oi-agent"  # OpenInference
    assert agent_name({"agent_name": "qa_agent"}) == "qa_agent"  # Pydantic AI / Logfire
    assert agent_name({"gen_ai.agent.name": "  "}) is None
    assert operation_name({"gen_ai.operation.name": "chat"}) == "chat"
    assert operation_name({}) is None


def test_filter_words() -> None:
    c = compile_filter('status == "never ended"')
    assert c.params == ("unfinished",)
    assert compile_filter("status == unfinished").params == ("unfinished",)
    assert "span_status" in compile_filter("status == error").where
    assert "i.status" in compile_filter("item.status == omitted").where  # an item's status is still item.status
    assert "i.status" in compile_filter("item(status == omitted)").where
    assert compile_filter("agent == planner and operation == chat").probes  # both indexed


# ------------------------------------------------------------------ OTLP spans


def test_otlp_error_never_ended_and_inherited_agent(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    import_into(db, [DATA / "schema-3.otlp.json"])
    assert _rows(db) == [
        (OTEL_T + "b1", "error", "429 rate limited", "planner", "chat"),
        (OTEL_T + "b2", "unfinished", None, "planner", "chat"),
        (OTEL_T + "b3", "ok", None, "writer", "chat"),
    ]
    with TraceStore.open(db) as store:
        a = store.load(OTEL_T + "b1").attributes
        assert a["ctxviewer.agent_from"] == "span invoke_agent planner (00000000000000b0)"
        assert "ctxviewer.agent_from" not in store.load(OTEL_T + "b3").attributes  # its own span names it
    assert _ids(db, "status == error") == [OTEL_T + "b1"]
    assert _ids(db, "status == unfinished") == [OTEL_T + "b2"]
    assert _ids(db, "agent == planner") == [OTEL_T + "b1", OTEL_T + "b2"]
    assert _ids(db, "agent ~ RIT") == [OTEL_T + "b3"]
    assert _ids(db, "agent == planner and not status == error") == [OTEL_T + "b2"]
    assert _ids(db, "operation == chat") == [OTEL_T + "b1", OTEL_T + "b2", OTEL_T + "b3"]
    assert _ids(db, "status in (ok, error)") == [OTEL_T + "b1", OTEL_T + "b3"]
    with TraceStore.open(db) as store:  # each filter walks its own narrow index (schema 5)
        for flt, index in (("status == error", "idx_traces_span_status"), ("agent == planner", "idx_traces_agent"),
                           ("operation == chat", "idx_traces_operation")):
            where, params = store.filter_where(TraceQuery(text=flt))
            plan = store._conn.execute(f"EXPLAIN QUERY PLAN SELECT trace_id FROM traces WHERE {where}", params).fetchall()
            assert f"USING INDEX {index}" in " ".join(str(r[-1]) for r in plan) or \
                f"USING COVERING INDEX {index}" in " ".join(str(r[-1]) for r in plan), (flt, plan)


def test_damaged_details_json_does_not_stop_the_schema_5_back_fill(tmp_path: Path) -> None:
    import sqlite3
    from contextlib import closing

    from ctxviewer.store import upgrade_copy

    old, new = tmp_path / "old.db", tmp_path / "new.db"
    old.write_bytes((DATA / "schema-3.db").read_bytes())
    with closing(sqlite3.connect(old)) as conn, conn:
        conn.execute("UPDATE details SET json = '{not json' WHERE trace_id = ?", (OTEL_T + "b2",))
    upgrade_copy(old, new)
    with closing(sqlite3.connect(new)) as conn:
        rows = conn.execute("SELECT trace_id, span_status, agent FROM traces ORDER BY created, trace_id").fetchall()
    assert rows == [(OTEL_T + "b1", "error", None), (OTEL_T + "b2", None, None), (OTEL_T + "b3", "ok", None),
                    ("native-with-agent", None, "triage")]


# ------------------------------------------------------------------ corpus files


LANGFUSE_AGENTS = {
    # file: [(trace id, agent, operation)] in list (time) order
    "microsoft-agent-2025-12-17.trace.json": [
        ("2406e8343fd49c0e", "171105b7-59dd-49c0-9677-0b95395aa46a", "chat"),  # gen_ai.agent.name of invoke_agent
        ("b0913e7cd82d72b8", "171105b7-59dd-49c0-9677-0b95395aa46a", "chat"),
    ],
    "openai-agents-2025-09-30.trace.json": [  # the AGENT observation's own name
        ("98870087af69bf06", "Hello world", None),
        ("90d94774e8e3724d", "Hello world", None),
    ],
    "pydantic-ai-tools-2025-06-06.trace.json": [("5cb389a3bdd21a6e", "qa_agent", "chat")],  # agent_name
    "koog-2025-08-26.trace.json": [  # its AGENT observations record an id, no name
        ("042f9350c3729147", None, "chat"), ("e44e72cf2d221781", None, "chat")],
    "langgraph-python-2025-08-22.trace.json": [("4f6535aaebcda355", None, None), ("5ba09605e0929d78", None, None)],
}


@pytest.mark.parametrize("name", sorted(LANGFUSE_AGENTS))
def test_langfuse_agents(shared: Path, tmp_path: Path, name: str) -> None:
    db = tmp_path / "lf.db"
    import_into(db, [shared / "corpus" / "langfuse" / name])
    got = sorted((r[0], r[3], r[4]) for r in _rows(db))
    assert got == sorted(LANGFUSE_AGENTS[name])
    assert {r[1] for r in _rows(db)} == {"ok"}  # every call ended ok (level DEFAULT, an end time)


def test_corpus_filters_across_formats(shared: Path, tmp_path: Path) -> None:
    corpus = shared / "corpus"
    db = tmp_path / "c.db"
    import_into(db, [corpus / "langfuse" / n for n in sorted(LANGFUSE_AGENTS)]
                + [corpus / "otel-genai" / "vercel-ai-sdk-v6-generateText-doGenerate.readablespan.json",
                   corpus / "otel-genai" / "interlingua-raw-openai-v2.otlp.json"])
    assert sorted(_ids(db, "agent")) == sorted(["2406e8343fd49c0e", "b0913e7cd82d72b8", "98870087af69bf06",
                                                "90d94774e8e3724d", "5cb389a3bdd21a6e"])
    assert _ids(db, 'agent == "qa_agent"') == ["5cb389a3bdd21a6e"]
    assert sorted(_ids(db, "agent ~ hello")) == ["90d94774e8e3724d", "98870087af69bf06"]
    raw = "053074667b1113278073667614bb3e19:03491beea3cb073d"
    assert sorted(_ids(db, "status == unset")) == sorted([raw, "b3e700af9eab81e19f72f964d62a35af:39d6e9b3ddec9996",
                                                          "edff2fc5854be6170e8cccccec0c82cf:6c0201026326855d"])
    assert _ids(db, "status == error") == [] and _ids(db, "status == unfinished") == []
    # the raw OpenAI v2 span's "status": {} is OTLP's UNSET, the default code left out (review item 11b)
    assert [r for r in _rows(db) if r[0] == raw] == [(raw, "unset", None, None, "chat")]
    assert raw not in _ids(db, "not status")
    assert len(_ids(db, "operation == chat")) == 6  # microsoft 2, pydantic 1, koog 2, the raw OpenAI span 1


def test_samples_record_no_span_status_or_agent() -> None:
    samples = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    assert _ids(samples, "status == error") == []
    assert _ids(samples, "agent") == [] and _ids(samples, "operation") == []
    assert len(_ids(samples, "not status")) == 9  # native traces record no span status
    assert json.loads(json.dumps(_rows(samples)[0][1:])) == [None, None, None, None]
