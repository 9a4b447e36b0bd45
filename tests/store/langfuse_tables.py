"""Generated Langfuse rows, written both ways: a blob-storage export (the legacy ``traces/``,
``observations/``, ``scores/`` JSON Lines of one window, to import into SQLite with
``langfuse-blob``) and rows of Langfuse's ClickHouse tables on chDB, created with Langfuse's DDL
verbatim (``tests/data/clickhouse/langfuse_v3.sql``: the unclustered migrations of
langfuse/langfuse; ``langfuse_v4_events_full.sql``: v4's ``events_full`` from
``packages/shared/clickhouse/scripts/dev-tables.sh``).

The tables get what Langfuse's eventual de-duplication leaves to the reader: an older version of
every generation (an earlier ``event_ts``, a draft output), a generation whose latest version is
deleted (``is_deleted = 1``), an older version of a trace row (another session), and the same
rows under another project. The export holds only what de-duplication keeps (the latest version
of each row of the project, none deleted), as Langfuse's export writes it."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data" / "clickhouse"
PROJECT = "proj-lf"
OTHER = "proj-other"
WINDOW_FILE = "2026-12-03T00-00-00-000Z.jsonl"


def _at(now_ns: int, seconds_ago: float) -> datetime:
    ms = (now_ns // 10**6) - int(seconds_ago * 1000)
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def generate(now_ns: int, n: int = 5, old: int = 2) -> dict[str, list[dict[str, Any]]]:
    """``n`` Langfuse traces in the last hour before ``now_ns`` and ``old`` more 30 h before it
    (outside the default 24 h window): each an ``AGENT`` observation with the system instructions
    (in ``metadata.attributes``, as Langfuse's OTel ingestion keeps them) and a ``GENERATION``
    child; every second one a ``TOOL`` and a second generation; scores on every trace. Rows of
    the final state, ``{"traces": [...], "observations": [...], "scores": [...]}``, in the tables'
    column names (``event_ts``, ``is_deleted`` included)."""
    out: dict[str, list[dict[str, Any]]] = {"traces": [], "observations": [], "scores": []}
    for i in range(n + old):
        age = 3600 * 30 + i * 60 if i >= n else (n - i) * 600
        start = _at(now_ns, age)
        tid = f"lf-trace-{i}"
        out["traces"].append({
            "id": tid, "timestamp": start, "name": "support-chat", "user_id": f"user-{i % 3}",
            "metadata": {"tenant": "acme"}, "release": "2026.12.1", "version": None, "project_id": PROJECT,
            "environment": "production", "public": False, "bookmarked": i == 0, "tags": ["refunds"],
            "input": json.dumps({"question": f"question {i}"}), "output": f"{2 * i}",
            "session_id": f"sess-{i % 2}", "created_at": start, "updated_at": start, "event_ts": start, "is_deleted": 0})

        def obs(oid: str, kind: str, parent: str | None, offset: float, length: float, start: datetime = start,
                tid: str = tid, **kw: Any) -> dict[str, Any]:
            begin = start + timedelta(seconds=offset)
            row = {"id": oid, "trace_id": tid, "project_id": PROJECT, "environment": "production", "type": kind,
                   "parent_observation_id": parent, "start_time": begin, "end_time": begin + timedelta(seconds=length),
                   "name": kind.lower(), "metadata": {}, "level": "DEFAULT", "status_message": None, "version": None,
                   "input": None, "output": None, "provided_model_name": None, "internal_model_id": None,
                   "model_parameters": None, "provided_usage_details": {}, "usage_details": {},
                   "provided_cost_details": {}, "cost_details": {}, "total_cost": None,
                   "usage_pricing_tier_id": None, "usage_pricing_tier_name": None, "completion_start_time": None,
                   "prompt_id": None, "prompt_name": None, "prompt_version": None, "tool_definitions": {},
                   "tool_calls": [], "tool_call_names": [], "created_at": begin, "updated_at": begin,
                   "event_ts": begin + timedelta(seconds=length), "is_deleted": 0}
            row.update(kw)
            return row

        agent = f"lf-agent-{i}"
        instructions = json.dumps([{"type": "text", "content": "You are a careful helper."}])
        out["observations"].append(obs(agent, "AGENT", None, 0, 5, name="helper", metadata={
            "attributes": json.dumps({"gen_ai.system_instructions": instructions})}))
        messages = [{"role": "user", "content": f"question {i}: what is {i} + {i}?"}]
        gen = dict(provided_model_name="gpt-4o-mini", internal_model_id="m-4om",
                   model_parameters=json.dumps({"temperature": 0.0, "max_tokens": 256}),
                   usage_details={"input": 40 + i, "output": 5 + i, "total": 45 + 2 * i},
                   provided_usage_details={"input": 40 + i, "output": 5 + i},
                   cost_details={"input": Decimal("0.000006"), "output": Decimal("0.000003"), "total": Decimal("0.000009")},
                   total_cost=Decimal("0.000009"), name="chat gpt-4o-mini")
        if i % 2 == 1:
            calls = [{"id": f"call_{i}", "type": "function", "function": {"name": "add", "arguments": json.dumps({"a": i})}}]
            out["observations"].append(obs(f"lf-gen-{i}a", "GENERATION", agent, 0.1, 0.9, **gen, input=json.dumps(messages),
                                           output=json.dumps({"role": "assistant", "content": None, "tool_calls": calls}),
                                           tool_call_names=["add"], tool_calls=[json.dumps({
                                               "id": f"call_{i}", "arguments": json.dumps({"a": i}), "type": "function",
                                               "index": 0})]))
            out["observations"].append(obs(f"lf-tool-{i}", "TOOL", agent, 1.1, 0.2, name="add", input=json.dumps({"a": i}),
                                           output=str(2 * i)))
            messages = messages + [{"role": "assistant", "content": None, "tool_calls": calls},
                                   {"role": "tool", "tool_call_id": f"call_{i}", "content": str(2 * i)}]
        level = dict(level="ERROR", status_message="upstream 500") if i == 2 else {}
        out["observations"].append(obs(f"lf-gen-{i}", "GENERATION", agent, 1.5, 1.0, **gen, **level,
                                       input=json.dumps(messages), output=json.dumps(f"{2 * i}")))
        out["scores"].append({
            "id": f"lf-score-{i}", "timestamp": start + timedelta(seconds=30), "project_id": PROJECT,
            "environment": "production", "trace_id": tid, "session_id": None, "dataset_run_id": None,
            "observation_id": f"lf-gen-{i}", "name": "correct", "value": float(i % 2), "source": "EVAL",
            "comment": "checked by the judge", "metadata": {}, "author_user_id": None, "config_id": None,
            "data_type": "BOOLEAN", "string_value": None, "queue_id": None, "created_at": start, "updated_at": start,
            "event_ts": start + timedelta(seconds=30), "is_deleted": 0, "execution_trace_id": None,
            "long_string_value": ""})
    return out


def table_rows(final: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """What the tables hold beyond ``final``: an older version of every generation (a draft
    output, an earlier ``event_ts``), a deleted generation (an older live version, then the
    deleted latest), an older trace row version, and every row again under :data:`OTHER`."""
    rows = {t: list(v) for t, v in final.items()}
    for r in final["observations"]:
        if r["type"] == "GENERATION":
            rows["observations"].append(dict(r, output=json.dumps("draft"), event_ts=r["event_ts"] - timedelta(seconds=1)))
    first = final["observations"][0]
    gone = dict(first, id="lf-gen-deleted", type="GENERATION", parent_observation_id=None, name="deleted call",
                provided_model_name="gpt-4o", input=json.dumps([{"role": "user", "content": "delete me"}]))
    rows["observations"] += [gone, dict(gone, is_deleted=1, event_ts=gone["event_ts"] + timedelta(seconds=5))]
    rows["traces"] += [dict(t, session_id="sess-stale", event_ts=t["event_ts"] - timedelta(seconds=1))
                       for t in final["traces"]]
    for table in ("traces", "observations", "scores"):
        rows[table] += [dict(r, project_id=OTHER) for r in rows[table]]
    return rows


def _text(value: Any) -> Any:
    """A value as the export's JSON writes it (timestamps ``YYYY-MM-DD HH:MM:SS.ffffff`` UTC, costs as numbers)."""
    if isinstance(value, datetime):
        return f"{value.astimezone(timezone.utc):%Y-%m-%d %H:%M:%S.%f}"
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _text(v) for k, v in value.items()}
    return value


def write_export(final: dict[str, list[dict[str, Any]]], folder: Path, lo: datetime) -> Path:
    """``final``'s rows from ``lo`` on as a legacy blob-storage export of one window under
    ``folder/PROJECT/``; returns the observations file (which reads its window's siblings)."""
    keep = {"traces": "timestamp", "observations": "start_time", "scores": "timestamp"}
    for table, column in keep.items():
        (folder / PROJECT / table).mkdir(parents=True, exist_ok=True)
        lines = [json.dumps({k: _text(v) for k, v in r.items() if k not in ("event_ts", "is_deleted")})
                 for r in final[table] if r[column] >= lo]
        (folder / PROJECT / table / WINDOW_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / PROJECT / "observations" / WINDOW_FILE


def statements(name: str) -> list[str]:
    """The statements of a DDL file of ``DATA`` (comment lines dropped, split at ``;`` line ends)."""
    text = (DATA / name).read_text(encoding="utf-8")
    parts = (re.sub(r"^--.*$", "", p, flags=re.M).strip() for p in text.split(";\n"))
    return [p.rstrip(";") for p in parts if p]


def create_v3(client: Any) -> None:
    """Langfuse v3's tables, by its migrations verbatim, in ``client``'s database."""
    for statement in statements("langfuse_v3.sql"):
        client.command(statement)


def insert(client: Any, rows: dict[str, list[dict[str, Any]]]) -> None:
    """``rows`` into the tables of ``client``'s database, column names as the rows hold them."""
    for table, found in rows.items():
        columns = list(found[0])
        client.insert(table, [[r.get(c) for c in columns] for r in found], column_names=columns)


def v4_events(rows: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The observations as v4 ``events_full`` rows: ``span_id`` / ``parent_span_id`` (``""`` for a
    root), the trace's fields on every row, metadata as parallel name / value arrays."""
    traces = {(t["project_id"], t["id"], t["event_ts"]): t for t in rows["traces"]}
    latest = {}
    for (project, tid, _ts), t in sorted(traces.items(), key=lambda kv: kv[0][2]):
        latest[(project, tid)] = t
    out = []
    for o in rows["observations"]:
        t = latest[(o["project_id"], o["trace_id"])]
        out.append({
            "project_id": o["project_id"], "trace_id": o["trace_id"], "span_id": o["id"],
            "parent_span_id": o["parent_observation_id"] or "", "start_time": o["start_time"], "end_time": o["end_time"],
            "name": o["name"], "type": o["type"], "environment": o["environment"], "version": o["version"] or "",
            "release": t["release"] or "", "trace_name": t["name"], "user_id": t["user_id"] or "",
            "session_id": t["session_id"] or "", "tags": t["tags"], "level": o["level"],
            "status_message": o["status_message"] or "", "completion_start_time": o["completion_start_time"],
            "bookmarked": t["bookmarked"], "public": t["public"], "prompt_id": o["prompt_id"] or "",
            "prompt_name": o["prompt_name"] or "", "prompt_version": o["prompt_version"],
            "model_id": o["internal_model_id"] or "", "provided_model_name": o["provided_model_name"] or "",
            "model_parameters": o["model_parameters"] or "", "provided_usage_details": o["provided_usage_details"],
            "usage_details": o["usage_details"], "provided_cost_details": o["provided_cost_details"],
            "cost_details": o["cost_details"], "usage_pricing_tier_id": None, "usage_pricing_tier_name": None,
            "tool_definitions": o["tool_definitions"], "tool_calls": o["tool_calls"],
            "tool_call_names": o["tool_call_names"], "input": o["input"] or "", "output": o["output"] or "",
            "metadata_names": list(o["metadata"]), "metadata_values": list(o["metadata"].values()),
            "source": "ingestion-api", "event_ts": o["event_ts"], "is_deleted": o["is_deleted"],
            "created_at": o["created_at"], "updated_at": o["updated_at"]})
    return out
