"""GenAI message decoding (ctxviewer.importers.common.messages, the shared chat-message normaliser): encodings and part rendering."""

from __future__ import annotations

import pytest

from ctxviewer.importers.common.messages import (
    arguments_string,
    parse_message_list,
    parse_messages,
    parse_structured,
    parse_tool_definitions,
    part_text,
    tool_name,
)


def test_three_encodings_of_the_same_messages() -> None:
    want = [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]
    assert parse_messages('[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]') == want
    assert parse_messages("[{'role': 'user', 'parts': [{'type': 'text', 'content': 'hi'}]}]") == want
    assert parse_messages([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]) == want
    assert parse_messages([{"role": "user", "content": "hi"}]) == want
    assert parse_structured("plain words") == "plain words"
    assert parse_structured("{'a': None, 'b': True}") == {"a": None, "b": True}


def test_part_rendering() -> None:
    assert part_text({"type": "text", "content": "x"}) == "x"
    assert part_text({"type": "reasoning", "content": "think"}) == "[reasoning] think"
    assert part_text({"type": "blob", "modality": "image", "mime_type": "image/png", "content": "QUJD" * 1000}) == (
        "[image/png blob, 4,000 bytes base64]")
    assert part_text({"type": "uri", "modality": "image", "uri": "https://x/y.png"}) == "[image uri: https://x/y.png]"
    assert part_text({"type": "uri", "mime_type": "image/png", "uri": "data:image/png;base64,AAAA"}) == (
        "[image/png data URI, 26 bytes base64]")
    assert part_text({"type": "file", "mime_type": "application/pdf", "file_id": "file-1"}) == (
        "[application/pdf file: file-1]")
    assert part_text({"type": "tool_call_response", "id": "1", "result": {"ok": True}}) == '{"ok":true}'
    assert part_text({"type": "tool_call_response", "id": "1", "response": "done"}) == "done"
    assert part_text({"type": "tool_call", "id": "1", "name": "f", "arguments": '{"a": 1}'}) == (
        '{"type":"tool_call","id":"1","name":"f","arguments":{"a":1}}')


def test_arguments_and_tool_definitions() -> None:
    assert arguments_string('{"a": 1}') == '{"a": 1}'  # a string is kept exactly as sent
    assert arguments_string({"a": "é"}) == '{"a":"é"}'
    assert arguments_string(None) is None
    defs = parse_tool_definitions('[{"type": "function", "function": {"name": "f"}}, {"type": "function", "name": "g"}]')
    assert defs is not None and [tool_name(d) for d in defs] == ["f", "g"]
    assert parse_tool_definitions(['{"name": "h"}']) == [{"name": "h"}]  # Vercel ai.prompt.tools


def test_parse_message_list_requires_a_list() -> None:
    want = [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]
    assert parse_message_list('[{"role": "user", "content": "hi"}]') == want
    assert parse_message_list("[{'role': 'user', 'content': 'hi'}]") == want
    assert parse_message_list([{"role": "user", "content": "hi"}]) == want
    assert parse_message_list("[]") == [] and parse_message_list(None) is None
    for value, got in ((5, "int"), ("5", "int"), (2.5, "float"), (True, "bool"), ("hello", "str"),
                       ({"role": "user", "content": "hi"}, "dict")):
        with pytest.raises(ValueError) as exc:
            parse_message_list(value)
        assert str(exc.value) == f"expected a list of messages, got {got}"
    assert parse_messages(5) == [{"role": "user", "parts": [{"type": "text", "content": "5"}]}]  # lenient legacy form
