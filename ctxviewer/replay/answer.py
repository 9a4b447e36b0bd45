"""A provider's answer as the model's response, tool calls and usage.

* Chat Completions: ``choices[0].message{content, tool_calls[{id, function{name, arguments}}]}``,
  ``choices[0].finish_reason``, ``usage{prompt_tokens, completion_tokens,
  prompt_tokens_details.cached_tokens, completion_tokens_details.reasoning_tokens}``;
* Responses: ``output[]`` -- ``message`` items' ``output_text`` parts and ``function_call{call_id,
  name, arguments}`` items --, ``status``, ``usage{input_tokens, output_tokens,
  input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens}``;
* Messages: ``content[]`` -- ``text`` and ``tool_use{id, name, input}`` blocks --,
  ``stop_reason``, ``usage{input_tokens, output_tokens, cache_read_input_tokens,
  cache_creation_input_tokens}``; input is normalised as OTel GenAI does (``gen_ai.usage.input_tokens``
  includes the cached tokens: input + cache read + cache creation).

:func:`parse_answer` raises :class:`~ctxviewer.replay.send.SendFailure` (kind ``bad_answer``)
naming the field that is missing or of the wrong type. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ctxviewer.model.trace import Response, ToolCall, Usage
from ctxviewer.replay.rebuild import shape_family
from ctxviewer.replay.send import SendFailure


@dataclass(frozen=True)
class Parsed:
    """The answer as trace fields."""

    response: Response
    tool_calls: tuple[ToolCall, ...]
    usage: Usage


def _int(d: Any, *path: str) -> int | None:
    for p in path:
        d = d.get(p) if isinstance(d, dict) else None
    return d if type(d) is int else None


def _bad(what: str) -> SendFailure:
    return SendFailure("bad_answer", f"the answer is not of the expected shape: {what}")


def _chat(doc: dict[str, Any]) -> Parsed:
    choices = doc.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _bad("no choices[0]")
    msg = choices[0].get("message")
    if not isinstance(msg, dict) or not isinstance(msg.get("content"), (str, type(None))):
        raise _bad("choices[0].message.content is not text or null")
    calls = []
    for c in msg.get("tool_calls") or []:
        fn = c.get("function") if isinstance(c, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise _bad("a tool call without function.name")
        calls.append(ToolCall(fn["name"], fn.get("arguments") if isinstance(fn.get("arguments"), str) else None, c.get("id")))
    u = doc.get("usage")
    usage = Usage(_int(u, "prompt_tokens"), _int(u, "completion_tokens"), _int(u, "prompt_tokens_details", "cached_tokens"),
                  None, _int(u, "completion_tokens_details", "reasoning_tokens"))
    return Parsed(Response(msg.get("content"), choices[0].get("finish_reason"), doc.get("model"), doc.get("id")),
                  tuple(calls), usage)


def _responses(doc: dict[str, Any]) -> Parsed:
    out = doc.get("output")
    if not isinstance(out, list):
        raise _bad("no output list")
    texts, calls = [], []
    for item in out:
        if not isinstance(item, dict):
            raise _bad("an output item that is not an object")
        if item.get("type") == "message":
            texts += [p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict) and p.get("type") == "output_text"]
        elif item.get("type") == "function_call":
            if not isinstance(item.get("name"), str):
                raise _bad("a function_call without name")
            calls.append(ToolCall(item["name"], item.get("arguments"), item.get("call_id")))
    u = doc.get("usage")
    usage = Usage(_int(u, "input_tokens"), _int(u, "output_tokens"), _int(u, "input_tokens_details", "cached_tokens"),
                  None, _int(u, "output_tokens_details", "reasoning_tokens"))
    return Parsed(Response("".join(texts) if texts else None, doc.get("status"), doc.get("model"), doc.get("id")),
                  tuple(calls), usage)


def _messages(doc: dict[str, Any]) -> Parsed:
    content = doc.get("content")
    if not isinstance(content, list):
        raise _bad("no content list")
    texts, calls = [], []
    for b in content:
        if not isinstance(b, dict):
            raise _bad("a content block that is not an object")
        if b.get("type") == "text":
            texts.append(str(b.get("text", "")))
        elif b.get("type") == "tool_use":
            if not isinstance(b.get("name"), str):
                raise _bad("a tool_use block without name")
            calls.append(ToolCall(b["name"], json.dumps(b.get("input", {}), ensure_ascii=False), b.get("id")))
    u = doc.get("usage")
    base, read, made = _int(u, "input_tokens"), _int(u, "cache_read_input_tokens"), _int(u, "cache_creation_input_tokens")
    total = None if base is None else base + (read or 0) + (made or 0)
    usage = Usage(total, _int(u, "output_tokens"), read, made, None)
    return Parsed(Response("".join(texts) if texts else None, doc.get("stop_reason"), doc.get("model"), doc.get("id")),
                  tuple(calls), usage)


def parse_answer(kind: str, doc: dict[str, Any]) -> Parsed:
    """The answer ``doc`` of an endpoint of ``kind`` as :class:`Parsed` (module docstring)."""
    family = shape_family(kind)
    return _messages(doc) if family == "messages" else _responses(doc) if family == "responses" else _chat(doc)
