"""The one normaliser from a model call to a trace (:mod:`ctxviewer.importers.common.llm_call`):
the rules that tell the sources apart are fields of the call, and the OTel path goes through it
like every other format."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from otlp_factories import chat_span, otlp_request, otlp_span, s

from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.importers.common.llm_call import LLMCall, build_trace, status_attributes
from ctxviewer.model.trace import RequestTrace, Usage

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


def _msg(role: str, *parts: dict) -> dict:
    return {"role": role, "parts": list(parts)}


def _text(t: str) -> dict:
    return {"type": "text", "content": t}


TOOL_RESULT = {"type": "tool_call_response", "id": "c1", "response": "12:00"}


def test_the_user_request_is_the_last_user_message_that_is_not_only_tool_results() -> None:
    msgs = [_msg("user", _text("What time is it?")), _msg("assistant", {"type": "tool_call", "id": "c1",
                                                                       "name": "clock", "arguments": "{}"}),
            _msg("user", TOOL_RESULT)]
    trace, _ = build_trace(LLMCall(trace_id="t", source_format="provider-api", messages=msgs))
    assert trace.user_request == "What time is it?"
    assert [(i.id, i.kind.value, i.role) for i in trace.items] == [
        ("msg-0", "user", "user"), ("msg-1", "history", "assistant"), ("msg-2", "history", "tool")]
    # the same in OTel (Pydantic AI puts a tool's return in a user message: new user nu2 #1, it was the user request)
    otel, _ = build_trace(LLMCall(trace_id="t", source_format="otel", messages=msgs))
    assert [(i.id, i.kind.value, i.role) for i in otel.items] == [
        ("msg-0", "user", "user"), ("msg-1", "history", "assistant"), ("msg-2", "history", "tool")]


def test_output_tool_calls_count_only_when_the_first_output_has_none() -> None:
    indexed = [{"type": "tool_call", "id": "x", "name": "lookup", "arguments": '{"q": 1}'}]
    trace, _ = build_trace(LLMCall(trace_id="t", source_format="otel", messages=[_msg("user", _text("q"))],
                                   output=[_msg("assistant", _text("looking"))], output_tool_calls=indexed))
    assert [(c.name, c.arguments, c.id) for c in trace.tool_calls] == [("lookup", '{"q": 1}', "x")]
    assert trace.response is not None and trace.response.text == "looking"
    own = [_msg("assistant", {"type": "tool_call", "id": "y", "name": "own", "arguments": "{}"})]
    trace, _ = build_trace(LLMCall(trace_id="t", source_format="otel", output=own, output_tool_calls=indexed))
    assert [c.name for c in trace.tool_calls] == ["own"]


def test_warnings_the_whole_calls_first_then_each_tool_call() -> None:
    bad_args = [_msg("assistant", {"type": "tool_call", "id": "c9", "name": "refund", "arguments": "{oops"})]
    usage = Usage(input_tokens=10, output_tokens=5, cached_input_tokens=40)
    call = LLMCall(trace_id="t", source_format="litellm", output=bad_args, usage=usage)
    trace, warnings = build_trace(call)
    assert warnings == ["usage: cached input tokens (40) exceed input tokens (10); both kept as reported",
                        "no input messages captured: the span records its output only",
                        "tool call refund (c9): arguments are not valid JSON; kept raw as sent"]
    assert trace.attributes["ctxviewer.content"] == "not captured"
    call.check_usage, call.content_captured = False, True  # an OTel span: its figures as reported, content seen
    trace, warnings = build_trace(call)
    assert warnings == ["tool call refund (c9): arguments are not valid JSON; kept raw as sent"]
    assert "ctxviewer.content" not in trace.attributes


def test_status_attributes_in_their_order() -> None:
    ended = LLMCall(trace_id="t", source_format="otel", created=T0, ended=T0 + timedelta(milliseconds=1500),
                    status="error", status_message="429 rate limited")
    assert list(status_attributes(ended).items()) == [
        ("otel.status_code", "error"), ("otel.status_message", "429 rate limited"),
        ("ctxviewer.completeness", "ended"), ("ctxviewer.duration_ms", 1500.0)]
    open_call = LLMCall(trace_id="t", source_format="otel", created=T0, ended_recorded=False)
    assert status_attributes(open_call) == {"ctxviewer.completeness": "never ended"}
    assert status_attributes(LLMCall(trace_id="t", source_format="x")) == {"ctxviewer.completeness": "times not recorded"}
    assert status_attributes(LLMCall(trace_id="t", source_format="x", created=T0)) == {
        "ctxviewer.completeness": "end not recorded"}


def test_an_otel_chat_span_with_inherited_instructions_and_a_tool_named_system(tmp_path: Path) -> None:
    """Instructions inherited from the agent span are the ``system`` policy item, as for every
    format; a tool definition named ``system`` is ``system#2``."""
    agent = otlp_span("00000000000000a0", name="invoke_agent planner", end="1700000002000000000",
                      **{"gen_ai.operation.name": s("invoke_agent"), "gen_ai.agent.name": s("planner"),
                         "gen_ai.system_instructions": s(json.dumps([_text("Answer in French.")]))})
    chat = chat_span("00000000000000a1", end="1700000001000000000",
                     **{"gen_ai.tool.definitions": s(json.dumps([{"type": "function", "name": "system"}]))})
    chat["parentSpanId"] = "00000000000000a0"
    path = tmp_path / "agent.otlp.json"
    path.write_text(json.dumps(otlp_request(agent, chat)))
    records = list(get_importer("otel").load(path))
    (trace,) = [r for r in records if isinstance(r, RequestTrace)]
    assert [r for r in records if isinstance(r, ImportProblem)] == []
    assert [(i.id, i.kind.value, i.content) for i in trace.items] == [
        ("system", "policy", "Answer in French."), ("msg-0", "user", "hi"),
        ("system#2", "tool", '{"type":"function","name":"system"}')]
    assert list(trace.attributes) == ["gen_ai.operation.name", "otel.span.name", "otel.parent_span_id",
                                      "ctxviewer.completeness", "ctxviewer.duration_ms", "gen_ai.agent.name",
                                      "ctxviewer.agent_from", "ctxviewer.system_inherited_from"]
    assert trace.attributes["ctxviewer.system_inherited_from"] == "span invoke_agent planner (00000000000000a0)"
    assert trace.endpoint.accounting_rule == "item text only; per-item counts not recorded by the source"
