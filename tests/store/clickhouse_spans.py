"""Generated GenAI chat spans, written both ways: an OTLP/JSON file (to import into SQLite) and
rows of the OpenTelemetry Collector ClickHouse exporter's ``otel_traces`` table on chDB, created
with the exporter's DDL verbatim (``tests/data/clickhouse/otel_traces_map.sql`` and
``otel_traces_json.sql``: ``exporter/clickhouseexporter/internal/sqltemplates/traces_table.sql`` /
``traces_json_table.sql`` of opentelemetry-collector-contrib, the ``%s`` placeholders filled as the
exporter fills them) and inserted with the exporter's INSERT column list. The exporter writes each
attribute value as text, so the OTLP file carries the same values as ``stringValue``."""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctxviewer.pipeline.clickhouse.schema import INSERT_COLUMNS

DATA = Path(__file__).resolve().parents[1] / "data" / "clickhouse"


@functools.cache
def chdb_dir() -> Path:
    """The chDB data directory of this test process: chDB runs one engine per process, on one
    directory, so every test module shares it and keeps its tables in a database of its own.
    Removed at exit."""
    path = Path(tempfile.mkdtemp(prefix="ctxviewer-chdb-"))
    atexit.register(shutil.rmtree, path, True)
    return path


@dataclass
class GenSpan:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    duration_ns: int
    attributes: dict[str, str]
    service: str = "support-bot"
    status: str = "Ok"


def generate(now_ns: int, n: int = 6, old: int = 2) -> list[GenSpan]:
    """``n`` OTel traces in the last hours before ``now_ns`` (each an ``invoke_agent`` span with
    the system instructions and a ``chat`` child), and ``old`` more 30 h before it (outside the
    default 24 h window). Times in whole milliseconds, as both stores keep them."""
    spans = []
    for i in range(n + old):
        age_s = 3600 * 30 + i * 60 if i >= n else (n - i) * 600
        start = (now_ns - age_s * 10**9) // 10**6 * 10**6
        tid = f"{i + 1:032x}"
        agent = f"{i + 1:08x}{'a' * 8}"
        chat = f"{i + 1:08x}{'c' * 8}"
        spans.append(GenSpan(tid, agent, "", "invoke_agent helper", start, 900_000_000, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper",
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "You are a careful helper."}]),
        }))
        messages = [{"role": "user", "parts": [{"type": "text", "content": f"question {i}: what is {i} + {i}?"}]}]
        if i % 3 == 1:
            messages.insert(0, {"role": "user", "parts": [{"type": "text", "content": "earlier turn"}]})
            messages.insert(1, {"role": "assistant", "parts": [{"type": "text", "content": "earlier answer"}]})
        spans.append(GenSpan(tid, chat, agent, "chat gpt-4o-mini", start + 10_000_000, 700_000_000, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.provider.name": "openai", "gen_ai.conversation.id": f"conv-{i % 2}",
            "gen_ai.usage.input_tokens": str(40 + i), "gen_ai.usage.output_tokens": str(5 + i),
            "gen_ai.request.max_tokens": "256",
            "gen_ai.input.messages": json.dumps(messages),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "text", "content": f"{2 * i}"}], "finish_reason": "stop"}]),
        }, status="Error" if i == 2 else "Ok"))
    return spans


def otlp_json(spans: list[GenSpan]) -> dict[str, Any]:
    """The spans as one OTLP/JSON ``ExportTraceServiceRequest`` (values as ``stringValue``)."""
    def kv(d: dict[str, str]) -> list[dict[str, Any]]:
        return [{"key": k, "value": {"stringValue": v}} for k, v in d.items()]

    out = []
    for s in spans:
        out.append({"traceId": s.trace_id, "spanId": s.span_id, "parentSpanId": s.parent_id, "name": s.name,
                    "kind": 3, "startTimeUnixNano": str(s.start_ns),
                    "endTimeUnixNano": str(s.start_ns + s.duration_ns), "attributes": kv(s.attributes),
                    "status": {"code": 2 if s.status == "Error" else 1,
                               **({"message": "upstream 500"} if s.status == "Error" else {})}})
    return {"resourceSpans": [{"resource": {"attributes": kv({"service.name": "support-bot"})},
                               "scopeSpans": [{"scope": {"name": "gen", "version": "1.0"}, "spans": out}]}]}


def create_table(client: Any, database: str, table: str, flavour: str = "map") -> None:
    """The exporter's DDL (``flavour`` ``map`` or ``json``), its placeholders filled as the
    exporter fills them (database, table, no cluster clause, ``MergeTree()``, no TTL)."""
    client.command(f'CREATE DATABASE IF NOT EXISTS "{database}"')
    ddl = (DATA / f"otel_traces_{flavour}.sql").read_text(encoding="utf-8")
    client.command(ddl % (database, table, "", "MergeTree()", ""))


def insert(client: Any, database: str, table: str, spans: list[GenSpan]) -> None:
    """The spans as the exporter inserts them: :data:`INSERT_COLUMNS`, one row per span."""
    rows = []
    for s in spans:
        start = datetime.fromtimestamp(s.start_ns / 1e9, tz=timezone.utc)
        rows.append([start, s.trace_id, s.span_id, s.parent_id, "", s.name, "Client", s.service,
                     {"service.name": s.service}, "gen", "1.0", s.attributes, s.duration_ns, s.status,
                     "upstream 500" if s.status == "Error" else "", [], [], [], [], [], [], []])
    client.insert(f"{database}.{table}", rows, column_names=list(INSERT_COLUMNS))


ACCELERATORS = (  # README "Optional accelerators", verbatim but for the database and table
    "ALTER TABLE {t} ADD COLUMN gen_ai_operation_name LowCardinality(String) MATERIALIZED SpanAttributes['gen_ai.operation.name']",
    "ALTER TABLE {t} ADD COLUMN gen_ai_request_model LowCardinality(String) MATERIALIZED SpanAttributes['gen_ai.request.model']",
    "ALTER TABLE {t} ADD COLUMN gen_ai_conversation_id String MATERIALIZED SpanAttributes['gen_ai.conversation.id']",
    "ALTER TABLE {t} MATERIALIZE COLUMN gen_ai_operation_name",
    "ALTER TABLE {t} MATERIALIZE COLUMN gen_ai_request_model",
    "ALTER TABLE {t} MATERIALIZE COLUMN gen_ai_conversation_id",
    "ALTER TABLE {t} ADD INDEX idx_gen_ai_input lower(SpanAttributes['gen_ai.input.messages'])"
    " TYPE text(tokenizer = splitByNonAlpha) SETTINGS allow_experimental_full_text_index = 1",
    "ALTER TABLE {t} MATERIALIZE INDEX idx_gen_ai_input",
)
"""The README's ``ALTER TABLE`` statements adding the optional accelerators (``{t}``: ``db.table``)."""


def accelerate(client: Any, database: str, table: str) -> None:
    """Apply :data:`ACCELERATORS` to ``database.table``, each mutation waited for."""
    for sql in ACCELERATORS:
        client.command(sql.format(t=f"{database}.{table}"), settings={"mutations_sync": 2})
