"""Logfire's OpenAI and Anthropic spans from before it wrote the GenAI conventions
(``request_data`` / ``response_data`` documents, ``logfire.msg_template``) are model calls
(ctxviewer.importers.formats.otel.logfire_legacy). New user nu3 #11: such an export was refused
whole ("1 span(s) record a model call ... in a shape ctxviewer does not read")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from otlp_factories import i, otlp_request, otlp_span, s

from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.model.trace import RequestTrace


def _load(tmp_path: Path, *spans: dict[str, Any]) -> tuple[list[RequestTrace], list[str]]:
    path = tmp_path / "logfire.otlp.json"
    path.write_text(json.dumps(otlp_request(*spans, resource={"service.name": "logfire-app"})))
    records = list(get_importer("otel").load(path))
    return ([r for r in records if isinstance(r, RequestTrace)],
            [r.message for r in records if isinstance(r, ImportProblem)])


def _span(span_id: str, system: str, template: str, request: dict[str, Any], response: dict[str, Any],
          **extra: dict[str, Any]) -> dict[str, Any]:
    return otlp_span(span_id, name=template, end="1700000000700000000", **{
        "request_data": s(json.dumps(request)), "response_data": s(json.dumps(response)),
        "gen_ai.system": s(system), "gen_ai.request.model": s(request["model"]),
        "logfire.msg_template": s(template), "logfire.span_type": s("span"), **extra})


OPENAI_REQUEST = {"model": "gpt-4o", "max_tokens": 300, "temperature": 0.2, "messages": [
    {"role": "system", "content": "You answer questions about orders."},
    {"role": "user", "content": "Where is order 4471?"}],
    "tools": [{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]}
OPENAI_RESPONSE = {"message": {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_7", "type": "function", "function": {"name": "lookup_order", "arguments": "{\"id\": \"4471\"}"}}]},
    "usage": {"prompt_tokens": 61, "completion_tokens": 17, "total_tokens": 78}}


def test_an_openai_chat_completion_span_is_a_model_call(tmp_path: Path) -> None:
    (t,), problems = _load(tmp_path, _span("00000000000000a1", "openai", "Chat Completion with {request_data[model]!r}",
                                           OPENAI_REQUEST, OPENAI_RESPONSE))
    assert problems == []
    assert (t.endpoint.model, t.reserved_output_tokens, t.usage.input_tokens, t.usage.output_tokens) == ("gpt-4o", 300, 61, 17)
    assert [(it.kind.value, it.role) for it in t.items] == [("policy", "system"), ("user", "user"), ("tool", None)]
    assert t.user_request == "Where is order 4471?"
    assert [(c.name, c.id, c.arguments) for c in t.tool_calls] == [("lookup_order", "call_7", '{"id": "4471"}')]
    assert "request_data" not in t.attributes and "response_data" not in t.attributes  # their content is in the items


def test_an_anthropic_message_span_keeps_its_system_and_usage(tmp_path: Path) -> None:
    request = {"model": "claude-3-5-sonnet-20241022", "max_tokens": 1024, "system": "Be brief.",
               "messages": [{"role": "user", "content": [{"type": "text", "text": "Capital of Japan?"}]}]}
    response = {"message": {"id": "msg_1", "role": "assistant", "stop_reason": "end_turn",
                            "content": [{"type": "text", "text": "Tokyo."}]},
                "usage": {"input_tokens": 12, "output_tokens": 4, "cache_read_input_tokens": 0}}
    (t,), problems = _load(tmp_path, _span("00000000000000a2", "anthropic", "Message with {request_data[model]!r}",
                                           request, response))
    assert problems == []
    assert [(it.kind.value, it.content) for it in t.items] == [("policy", "Be brief."), ("user", "Capital of Japan?")]
    assert t.response is not None and (t.response.text, t.response.finish_reason) == ("Tokyo.", "end_turn")
    assert (t.usage.input_tokens, t.usage.output_tokens, t.reserved_output_tokens) == (12, 4, 1024)


def test_a_stream_gives_its_joined_text_and_newer_spans_are_read_as_they_are(tmp_path: Path) -> None:
    stream = _span("00000000000000a3", "openai", "Chat Completion with {request_data[model]!r}",
                   {"model": "gpt-4o-mini", "stream": True, "messages": [{"role": "user", "content": "Hi"}]},
                   {"combined_chunk_content": "Hello there.", "chunk_count": 4})
    newer = _span("00000000000000a4", "openai", "Chat Completion with {request_data[model]!r}",
                  {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "ignored body"}]}, {},
                  **{"gen_ai.operation.name": s("chat"), "gen_ai.usage.input_tokens": i(9),
                     "gen_ai.input.messages": s(json.dumps([{"role": "user", "parts": [
                         {"type": "text", "content": "from the GenAI attribute"}]}]))})
    traces, problems = _load(tmp_path, stream, newer)
    assert problems == []
    first, second = traces
    assert first.response is not None and first.response.text == "Hello there."
    assert first.usage.input_tokens is None  # a stream's usage was not recorded: never 0
    assert second.user_request == "from the GenAI attribute"  # the newer span's own attributes win
    assert second.usage.input_tokens == 9


def test_another_programs_request_data_is_not_taken_for_a_provider_body(tmp_path: Path) -> None:
    span = otlp_span("00000000000000a5", name="POST /orders", end="1700000000700000000",
                     **{"request_data": s(json.dumps({"messages": [{"role": "user", "content": "x"}]}))})
    traces, _problems = _load(tmp_path, span)
    assert traces == []
