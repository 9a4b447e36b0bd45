"""Mastra's OTel exporter (``observability/otel-exporter/src/gen-ai-semantics.ts``): the agent span's
``gen_ai.tool.definitions`` is ``JSON.stringify(availableTools)``, a list of tool names, not
definitions; the tool span's ``gen_ai.tool.call.arguments`` is the input as JSON.

New user nu4 #14: the call said "? offered: the trace records no tool definitions" although the agent
offered ``weatherTool``, and the lone tool row printed ``weatherTool({"location": "Z\\u00fcrich"})``.
Input: tests/data/mastra/weather-agent.otlp.json (agent, chat and tool spans; the tool span's
arguments as an ASCII-only JSON encoder writes them)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from factories import make_trace

from ctxviewer.assess.tool_review import review_calls
from ctxviewer.assess.trace_header import shown_arguments, tool_call_line
from ctxviewer.importers import get_importer
from ctxviewer.importers.formats.otel.mapping import by_name_only, span_tools
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, ToolCall

FILE = Path(__file__).resolve().parents[1] / "data" / "mastra" / "weather-agent.otlp.json"
T = "5e3a1c7b9d2f4e6a8b0c1d2e3f4a5b6c"


def _traces() -> dict[str, RequestTrace]:
    return {r.trace_id: r for r in get_importer("otel").load(FILE) if isinstance(r, RequestTrace)}


def test_a_list_of_names_offers_the_tools_by_name_only() -> None:
    t = _traces()[f"{T}:00000000000000d2"]
    assert [(i.kind, i.id, i.content) for i in t.items if i.kind is Kind.TOOL] == [
        (Kind.TOOL, "weatherTool", '{"name":"weatherTool"}')]
    assert t.attributes["ctxviewer.tools_inherited_from"] == "span invoke_agent Weather Agent (00000000000000d1)"
    assert list(t.attributes["ctxviewer.tools_by_name_only"]) == ["weatherTool"]
    [review] = review_calls(t)
    checks = {c.name: (c.passed, c.detail) for c in review.checks}
    assert checks["offered"] == (True, "weatherTool offered by item weatherTool (by name only: its schema is not recorded)")
    assert checks["arguments_schema"] == (
        None, "weatherTool is recorded by name only: its schema is not recorded, the arguments cannot be checked")


def test_names_only_is_read_from_a_list_of_names_and_nothing_else() -> None:
    assert by_name_only('["weatherTool", "search"]') == [{"name": "weatherTool"}, {"name": "search"}]
    assert by_name_only(["weatherTool"]) == [{"name": "weatherTool"}]
    assert by_name_only('["{\\"name\\": \\"x\\", \\"parameters\\": {}}"]') is None  # Vercel's JSON definitions
    assert by_name_only("[]") is None and by_name_only('["", "x"]') is None and by_name_only("weatherTool") is None
    assert span_tools({"gen_ai.tool.definitions": "[]"}) is None  # recorded empty: none offered


def test_a_definition_of_a_name_alone_declares_no_schema_unless_the_source_listed_names() -> None:
    item = ContextItem(id="lookup", kind=Kind.TOOL, content='{"name":"lookup"}')
    t = make_trace(items=(item,), tool_calls=(ToolCall(name="lookup", arguments='{"q":"x"}'),))
    checks = {c.name: (c.passed, c.detail) for c in review_calls(t)[0].checks}
    assert checks["offered"] == (True, "lookup offered by item lookup")
    assert checks["arguments_schema"] == (None, "the tool declares no parameter schema")
    named = replace(t, attributes={**t.attributes, "ctxviewer.tools_by_name_only": ["lookup"]})
    checks = {c.name: (c.passed, c.detail) for c in review_calls(named)[0].checks}
    assert checks["offered"] == (True, "lookup offered by item lookup (by name only: its schema is not recorded)")


def test_arguments_with_ascii_escapes_show_the_text() -> None:
    t = _traces()[f"{T}:00000000000000d3"]
    [call] = t.tool_calls
    assert call.arguments == '{"location": "Z\\u00fcrich"}'  # kept exactly as sent
    assert tool_call_line(call) == 'weatherTool({"location": "Zürich"}) → verdict not recorded'
    assert shown_arguments('"Z\\u00fcrich"') == '"Z\\u00fcrich"'  # not an object or array: as sent
    assert shown_arguments('{"path": "C:\\\\temp"}') == '{"path": "C:\\\\temp"}'
