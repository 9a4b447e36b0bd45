"""Strands Agents' OTel export (``strands/telemetry/tracer.py``): Bedrock Converse content blocks in
message events and in ``gen_ai.choice``'s ``message`` (:mod:`ctxviewer.importers.formats.otel.strands`,
:mod:`ctxviewer.importers.common.bedrock_parts`), and the event-loop cycle spans that repeat the
messages of the model call under them as run steps, not calls
(:mod:`ctxviewer.importers.formats.otel.wrappers`).

Inputs (tests/data/strands/, written from the tracer's shapes): ``legacy-cycles.otlp.json`` -- the
semconv 1.36 events, cycle spans with only ``event_loop.cycle_id`` (before Strands named their
operation), the tool result sent back as a ``gen_ai.user.message``; ``latest-conventions.otlp.json``
-- ``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``: ``gen_ai.client.inference.operation.details``
events with ``gen_ai.input.messages`` / ``gen_ai.output.messages``. Both: the model proposes
``file_delete`` and its ``execute_tool`` span ends in ``PermissionError: deletion not permitted by
policy``; the second call answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ctxviewer.assess.tool_review import review_call
from ctxviewer.cli import cli
from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.importers.common.bedrock_parts import bedrock_part, tool_result_text
from ctxviewer.importers.common.foreign_parts import foreign_part
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import Kind, RequestTrace, ToolVerdict

DATA = Path(__file__).resolve().parents[1] / "data" / "strands"
LEGACY = DATA / "legacy-cycles.otlp.json"
LATEST = DATA / "latest-conventions.otlp.json"
DECIDED = "its execute_tool span {} (refused: PermissionError: deletion not permitted by policy)"
SYSTEM = "You are a careful file assistant. Never delete files outside /srv/tmp."


def _records(path: Path) -> list[Any]:
    return list(get_importer("otel").load_runs(path))


def _traces(path: Path) -> list[RequestTrace]:
    return [r for r in _records(path) if isinstance(r, RequestTrace)]


def _variant(tmp_path: Path, change: Any) -> Path:
    doc = json.loads(LEGACY.read_text(encoding="utf-8"))
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        change(span)
    out = tmp_path / "variant.otlp.json"
    out.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return out


def test_bedrock_blocks_become_parts() -> None:
    assert foreign_part({"toolUse": {"toolUseId": "t1", "name": "find", "input": {"q": "x"}}}) == \
        {"type": "tool_call", "id": "t1", "name": "find", "arguments": {"q": "x"}}
    assert foreign_part({"toolResult": {"toolUseId": "t1", "status": "error", "content": [
        {"text": "boom"}, {"json": {"code": 7}}]}}) == \
        {"type": "tool_call_response", "id": "t1", "response": 'boom\n{"code":7}', "is_error": True}
    assert bedrock_part({"reasoningContent": {"reasoningText": {"text": "hm", "signature": "sig"}}}) == \
        {"type": "reasoning", "content": "hm", "signature": "sig"}
    assert bedrock_part({"reasoningContent": {"redactedContent": "<replaced>"}}) == \
        {"type": "reasoning", "content": "", "redacted": True}
    assert bedrock_part({"image": {"format": "png", "source": {"bytes": "<replaced>"}}}) == \
        {"type": "blob", "modality": "image", "mime_type": "image/png", "content": ""}
    assert bedrock_part({"document": {"format": "pdf", "name": "q3", "source": {"s3Location": {"uri": "s3://b/q3.pdf"}}}}) == \
        {"type": "uri", "modality": "document", "mime_type": "application/pdf", "uri": "s3://b/q3.pdf"}
    assert bedrock_part({"cachePoint": {"type": "default"}}) is None  # not converted: kept as it is
    assert bedrock_part({"toolUse": {"name": "x"}, "text": "two keys"}) is None
    assert tool_result_text("plain") == "plain"


@pytest.mark.parametrize("path", [LEGACY, LATEST], ids=["legacy", "latest"])
def test_the_proposed_call_its_blocked_verdict_and_the_responses(path: Path) -> None:
    first, second = _traces(path)
    span = "a1b2c3d4e5f60004" if path == LEGACY else "b1b2c3d4e5f60004"
    [call] = first.tool_calls
    assert (call.name, call.arguments, call.id) == ("file_delete", '{"path":"/srv/data/old.log"}', "tooluse_Q7a")
    assert (call.verdict, call.decided_by) == (ToolVerdict.BLOCKED, DECIDED.format(span))
    assert first.response is not None and (first.response.text, first.response.finish_reason) == \
        ("I will delete the file.", "tool_use")
    assert second.response is not None and (second.response.text, second.response.finish_reason) == \
        ("I may not delete that file: the policy does not permit it.", "end_turn")
    assert second.tool_calls == ()


@pytest.mark.parametrize("path", [LEGACY, LATEST], ids=["legacy", "latest"])
def test_the_tool_result_is_history_and_the_first_message_the_user_request(path: Path) -> None:
    _, second = _traces(path)
    assert [(i.id, i.kind, i.role) for i in second.items] == [
        ("system", Kind.POLICY, "system"), ("msg-0", Kind.USER, "user"), ("msg-1", Kind.HISTORY, "assistant"),
        ("msg-2", Kind.HISTORY, "tool"), ("file_delete", Kind.TOOL, None)]  # gen_ai.agent.tools: by name only
    assert second.user_request == "Please delete /srv/data/old.log, it is no longer needed."
    items = {i.id: i.content for i in second.items}
    assert items["system"] == SYSTEM
    assert items["msg-0"] == "Please delete /srv/data/old.log, it is no longer needed."
    assert items["msg-1"] == ('I will delete the file.\n{"type":"tool_call","id":"tooluse_Q7a","name":"file_delete",'
                              '"arguments":{"path":"/srv/data/old.log"}}')
    assert items["msg-2"] == "Error: PermissionError: deletion not permitted by policy"  # the text, not its blocks


def test_a_tool_result_message_named_gen_ai_tool_message_is_read_the_same(tmp_path: Path) -> None:
    def rename(span: dict[str, Any]) -> None:  # newer Strands names a message of tool results so
        for ev in span.get("events", []):
            if ev["name"] == "gen_ai.user.message" and "toolResult" in ev["attributes"][0]["value"]["stringValue"]:
                ev["name"] = "gen_ai.tool.message"
    _, second = _traces(_variant(tmp_path, rename))
    assert [(i.id, i.kind, i.role, i.content) for i in second.items if i.kind != Kind.TOOL][-1] == \
        ("msg-2", Kind.HISTORY, "tool", "Error: PermissionError: deletion not permitted by policy")
    assert [i.id for i in second.items if i.kind == Kind.USER] == ["msg-0"]


SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


@pytest.mark.parametrize("args, verdict", [({"path": "/srv/data/old.log"}, None),
                                           ({"file": 1}, "(root): 'path' is a required property")])
def test_tool_definitions_are_checked_against_the_schema_inside_bedrocks_wrapper(
        tmp_path: Path, args: dict[str, Any], verdict: str | None) -> None:
    defs = [{"name": "file_delete", "description": "Delete a file.", "inputSchema": {"json": SCHEMA}, "outputSchema": None}]

    def offer(span: dict[str, Any]) -> None:  # the gen_ai_tool_definitions opt-in: on the agent span
        if span["spanId"] == "a1b2c3d4e5f60001":
            span["attributes"].append({"key": "gen_ai.tool.definitions", "value": {"stringValue": json.dumps(defs)}})
        for ev in span.get("events", []):
            for a in ev["attributes"]:
                a["value"]["stringValue"] = a["value"]["stringValue"].replace(
                    '"input": {"path": "/srv/data/old.log"}', '"input": ' + json.dumps(args))
    first, _ = _traces(_variant(tmp_path, offer))
    [tool] = [i for i in first.items if i.kind == Kind.TOOL]
    assert (tool.id, json.loads(tool.content)) == (
        "file_delete", {"name": "file_delete", "description": "Delete a file.", "inputSchema": SCHEMA})
    [schema] = [c for c in review_call(first, 0).checks if c.name == "arguments_schema"]
    assert (schema.passed, schema.detail) == ((True, "arguments match the tool's parameter schema") if verdict is None
                                              else (False, verdict))


def test_cycle_spans_are_run_steps_not_model_calls() -> None:
    records = _records(LEGACY)
    traces = [r for r in records if isinstance(r, RequestTrace)]
    assert [t.trace_id.split(":")[1] for t in traces] == ["a1b2c3d4e5f60003", "a1b2c3d4e5f60006"]
    steps = {r.span_id: r for r in records if isinstance(r, RunSpan)}
    cycle = steps["a1b2c3d4e5f60002"]
    assert (cycle.kind, cycle.trace_id, cycle.attributes["ctxviewer.wraps_call"]) == \
        ("span", None, "span a1b2c3d4e5f60003")
    assert cycle.attributes["event_loop.cycle_id"] == "7f1e-c1"
    assert not any(k.startswith("gen_ai.input.messages") for k in cycle.attributes)
    assert [(p.message, p.info) for p in records if isinstance(p, ImportProblem)] == [
        ("2 span(s) only wrap the model call below them and repeat its messages (execute_event_loop_cycle): "
         "steps of the run, not model calls", True)]
    assert "ctxviewer.unmapped" not in traces[0].attributes  # no event_loop.* key named as unmapped


def test_a_span_whose_messages_differ_from_the_call_below_stays_a_call(tmp_path: Path) -> None:
    def other_question(span: dict[str, Any]) -> None:
        if span["spanId"] == "a1b2c3d4e5f60002":
            span["events"][0]["attributes"][0]["value"]["stringValue"] = json.dumps([{"text": "Something else?"}])
    traces = _traces(_variant(tmp_path, other_question))
    assert [t.trace_id.split(":")[1] for t in traces] == ["a1b2c3d4e5f60002", "a1b2c3d4e5f60003", "a1b2c3d4e5f60006"]


@pytest.mark.parametrize("path", [LEGACY, LATEST], ids=["legacy", "latest"])
def test_stats_counts_two_calls_with_their_cost(tmp_path: Path, path: Path) -> None:
    db = tmp_path / "s.db"
    result = CliRunner().invoke(cli, ["import", str(path), "-o", str(db)])
    assert result.exit_code == 0, result.output
    assert "imported 2 trace(s)" in result.stdout
    result = CliRunner().invoke(cli, ["stats", str(db), "--json"])
    assert result.exit_code == 0, result.output
    total = json.loads(result.stdout)["total"]
    assert (total["calls"], total["output_tokens"], total["output_known"]) == (2, 80, 2)
    assert (round(total["cost"], 6), total["cost_known"]) == (0.0039, 2)  # 420·$3/M + 45·$15/M + 480·$3/M + 35·$15/M


def test_the_agents_tool_names_are_the_tools_offered_by_name_only() -> None:
    """``gen_ai.agent.tools`` on the ``invoke_agent`` span lists the agent's tools by name: the
    proposed file_delete call is offered (its schema not recorded), where it read "? offered: the
    trace records no tool definitions"."""
    from ctxviewer.assess.tool_review import review_call

    first, _ = _traces(DATA / "legacy-cycles.otlp.json")
    checks = {c.name: (c.passed, c.detail) for c in review_call(first, 0).checks}
    assert checks["offered"] == (True, "file_delete offered by item file_delete (by name only: its schema is not recorded)")
    assert checks["arguments_schema"][0] is None
