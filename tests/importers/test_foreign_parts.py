"""Provider blocks inside another format (common.foreign_parts): Anthropic tool blocks and Gemini
parts become OTel parts wherever a chat reader meets them; Langfuse outputs holding them give the
tool calls and the text (golden pair langfuse/anthropic-blocks.json holds the Langfuse case whole)."""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.importers import ImportProblem, detect, load_records
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.foreign_parts import foreign_part
from ctxviewer.model.trace import RequestTrace


def test_anthropic_tool_blocks_in_an_openai_message() -> None:
    msg = pm.openai_message({"role": "assistant", "content": [
        {"type": "text", "text": "Looking."}, {"type": "tool_use", "id": "t1", "name": "find", "input": {"q": "x"}}]})
    assert msg["parts"] == [{"type": "text", "content": "Looking."},
                            {"type": "tool_call", "id": "t1", "name": "find", "arguments": {"q": "x"}}]
    res = pm.openai_message({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": [{"type": "text", "text": "boom"}]}]})
    assert res["parts"] == [{"type": "tool_call_response", "id": "t1", "response": "boom", "is_error": True}]


def test_gemini_parts_camel_and_snake_case() -> None:
    assert foreign_part({"functionCall": {"name": "f", "args": {"a": 1}}}) == \
        {"type": "tool_call", "id": None, "name": "f", "arguments": {"a": 1}}
    assert foreign_part({"function_response": {"name": "f", "response": {"ok": True}}}) == \
        {"type": "tool_call_response", "id": "f", "response": '{"ok":true}'}
    assert foreign_part({"inlineData": {"mimeType": "image/png", "data": "iVBO"}}) == \
        {"type": "blob", "modality": "image", "mime_type": "image/png", "content": "iVBO"}
    assert foreign_part({"text": "hmm", "thought": True}) == {"type": "reasoning", "content": "hmm"}
    assert foreign_part({"text": "hi"}) == {"type": "text", "content": "hi"}
    assert foreign_part({"text": "hi", "extra": 1}) is None  # not a Gemini part: kept as it is
    assert foreign_part({"type": "image_url"}) is None


def test_langfuse_gemini_response_output(tmp_path: Path) -> None:
    doc = {"trace": {"id": "t"}, "observations": [{
        "id": "g", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "endTime": "2025-01-01T00:00:01Z",
        "model": "gemini-2.5-flash", "input": [{"role": "user", "content": "Weather in Oslo?"}],
        "output": {"responseId": "r-1", "candidates": [{"finishReason": "STOP", "content": {"role": "model", "parts": [
            {"text": "thinking it over", "thought": True}, {"text": "Let me check."},
            {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}}]}}]}}]}
    p = tmp_path / "gemini.json"
    p.write_text(json.dumps(doc))
    records = list(load_records(detect(p), p))
    [t] = [r for r in records if isinstance(r, RequestTrace)]
    assert [r for r in records if isinstance(r, ImportProblem)] == []
    assert t.response is not None and (t.response.text, t.response.finish_reason, t.response.id) == \
        ("Let me check.", "STOP", "r-1")
    assert [(c.name, c.arguments) for c in t.tool_calls] == [("weather", '{"city":"Oslo"}')]
