"""Escaped unicode in a JSON string in a string (issue 27 item 8.3): text an exporter JSON-encoded
with ASCII escapes is stored and shown as its characters (``\\u4f60\\u597d`` -> 你好), decoded once;
literal backslashes in plain text are never changed."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_factories import chat_span, otlp_request, s

from ctxviewer.importers import detect
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.trace_attributes import attribute_rows
from ctxviewer.util.json_escapes import decode_escapes


def _load(tmp_path: Path, doc: dict) -> list[RequestTrace]:
    path = tmp_path / "spans.otlp.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return [r for r in detect(path).load(path) if isinstance(r, RequestTrace)]


def test_a_json_string_in_a_string_attribute_is_shown_as_its_characters(tmp_path: Path) -> None:
    # the instrumentation json.dumps-ed the user's text before putting it in the message: "\"\\u4f60\\u597d\""
    msgs = [{"role": "user", "parts": [{"type": "text", "content": json.dumps("你好")}]}]
    result = json.dumps({"type": "function_result", "result": "晴れ, 23°C"})  # {"...": "\u6674\u308c, 23\u00b0C"}
    assert "\\u4f60" in msgs[0]["parts"][0]["content"] and "\\u00b0" in result
    out = [{"role": "assistant", "parts": [{"type": "text", "content": json.dumps("再见")}]}]
    span = chat_span(messages=[{"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": result}]},
                               *msgs],
                     **{"gen_ai.output.messages": s(json.dumps(out)), "gen_ai.request.metadata": s(json.dumps({"q": "你好"}))})
    [t] = _load(tmp_path, otlp_request(span))
    assert t.items[1].content == "你好" and t.user_request == "你好"
    assert t.items[0].content == '{"type": "function_result", "result": "晴れ, 23°C"}'  # spacing and order kept
    assert t.response is not None and t.response.text == "再见"
    assert dict(attribute_rows(t))["gen_ai.request.metadata"] == '{"q": "你好"}'


def test_literal_backslashes_and_ascii_escapes_are_never_changed() -> None:
    for text in ("C:\\new\\u0041", "plain \\u4f60 text", '"C:\\\\temp"', '{"a": "\\u0022"}',
                 '{"a": "\\u4f60"} and more', '{"a": "\\ud800"}', '"\\u0041"', "\\u4f60"):
        assert decode_escapes(text) == text, text
    assert decode_escapes('["\\ud83d\\ude00 \\\\u4f60 \\"q\\""]') == '["😀 \\\\u4f60 \\"q\\""]'
    assert decode_escapes('"\\u4f60\\n\\u597d"') == "你\n好"


def test_corpus_tool_result_degree_sign_is_shown(shared: Path) -> None:
    """Microsoft Agent Framework's function_result, json.dumps-ed inside the Langfuse export."""
    path = shared / "corpus/langfuse/microsoft-agent-2025-12-17.trace.json"
    t = next(r for r in detect(path).load(path) if isinstance(r, RequestTrace) and r.trace_id == "b0913e7cd82d72b8")
    assert t.items[1].content == ('{"type": "function_result", "call_id": "call_CwaJHuXTm9dmHFQPlVbqyzJ0", '
                                  '"result": "The weather in Tokyo, Japan is stormy with a high of 23°C."}')
