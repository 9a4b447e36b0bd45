"""Counting raw chat requests by the endpoint's rule (ctxviewer.tokens.request_accounting)."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import pytest

from ctxviewer.tokens.counting import count_tokens
from ctxviewer.tokens.request_accounting import RequestShapeError, count_messages, count_request

DATA = Path(__file__).resolve().parents[1] / "data" / "requests"
WEATHER = json.loads((DATA / "weather_tool.json").read_text())


def _png(width: int, height: int) -> str:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    body = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return base64.b64encode(body).decode()


def test_hello_on_gpt4o_counts_8() -> None:
    rc = count_request({"messages": [{"role": "user", "content": "hello"}]}, "gpt-4o")
    assert (rc.total, rc.content, rc.framing, rc.tools) == (8, 1, 7, 0)


@pytest.mark.parametrize("model, total, messages, tools", [("gpt-4o", 101, 33, 68), ("gpt-4", 105, 34, 71)])
def test_cookbook_weather_tool_example(model: str, total: int, messages: int, tools: int) -> None:
    rc = count_request(WEATHER, model)
    assert rc.total == total
    assert rc.content + rc.framing == messages
    assert rc.tools == tools
    assert rc.total == sum(rc.by_category().values()) + rc.framing + sum(t.overhead for t in rc.tool_defs) + 12


def test_tool_call_with_null_content_counts_name_and_arguments() -> None:
    args = '{"location": "Paris"}'
    msg = {"role": "assistant", "content": None,
           "tool_calls": [{"id": "c1", "type": "function",
                           "function": {"name": "get_current_weather", "arguments": args}}]}
    rc = count_request({"messages": [msg]}, "gpt-4o")
    assert rc.items[0].content == count_tokens("get_current_weather", "o200k_base") + count_tokens(args, "o200k_base")
    assert rc.items[0].content == 9  # 4 + 5 under o200k_base


def test_image_part_counts_by_tiles_not_base64() -> None:
    url = "data:image/png;base64," + _png(1024, 1024)
    msg = {"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                       {"type": "image_url", "image_url": {"url": url}}]}
    rc = count_request({"messages": [msg]}, "gpt-4o")
    # 1024x1024 -> short side 768 -> 768x768 -> 2x2 tiles: 85 + 4 * 170 = 765
    assert rc.items[0].content == count_tokens("what is this?", "o200k_base") + 765
    low = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url, "detail": "low"}}]}
    assert count_request({"messages": [low]}, "gpt-4o").items[0].content == 85


def test_anthropic_image_counts_pixels_over_750() -> None:
    req = {"model": "claude-3-5-sonnet-20241022", "system": "Be brief.", "messages": [
        {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                   "data": _png(750, 100)}}]}]}
    rc = count_request(req)
    assert rc.items[0].role == "system" and rc.items[0].category == "sys"
    assert rc.items[1].content == 100
    assert rc.resolution.profile.estimate
    assert any("cross-vendor estimate" in n for n in rc.notes)


def test_special_token_text_is_plain_text() -> None:
    rc = count_request({"messages": [{"role": "user", "content": "a <|endoftext|> b"}]}, "gpt-4o")
    assert rc.items[0].content == count_tokens("a <|endoftext|> b", "o200k_base") == 9


def test_a_million_space_tool_output_is_counted_and_marked() -> None:
    req = {"messages": [{"role": "user", "content": "run it"},
                        {"role": "tool", "tool_call_id": "c1", "content": " " * 1_000_000}]}
    rc = count_request(req, "gpt-4o")
    assert rc.items[1].notes == ("counted in chunks",)
    assert 7_800 <= rc.items[1].content <= 7_830


def test_unknown_and_deployment_names_are_assumed_not_fatal() -> None:
    rc = count_request({"messages": [{"role": "user", "content": "hello"}]}, "prod-chat-deployment-7")
    assert rc.resolution.assumed and rc.resolution.encoding == "o200k_base"
    assert rc.total == 8
    assert "no profile for 'prod-chat-deployment-7'; o200k_base assumed" in rc.notes


def test_last_user_message_is_the_user_category() -> None:
    msgs = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"},
            {"role": "user", "content": "three"}]
    rc = count_request({"messages": msgs}, "gpt-4o")
    assert [i.category for i in rc.items] == ["hist", "hist", "user"]
    assert count_messages(msgs, "gpt-4o") == 3 * 3 + 3 + 3 + 3


def test_not_a_chat_request_names_the_field() -> None:
    with pytest.raises(RequestShapeError, match="no 'messages' list"):
        count_request({"prompt": "x"})
    with pytest.raises(RequestShapeError, match=r"messages\[0\].content"):
        count_request({"messages": [{"role": "user", "content": 5}]})
