"""LangChain messages and ``usage_metadata`` (as LangSmith runs and Langfuse's LangChain callback
record them) as normalised messages of :mod:`ctxviewer.importers.common.messages`. No Qt here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.provider_messages import (
    Message,
    anthropic_block,
    int_or_none,
    openai_message,
    openai_part,
)
from ctxviewer.model.trace import Usage

_LC_ROLES = {"HumanMessage": "user", "human": "user", "SystemMessage": "system", "system": "system",
             "AIMessage": "assistant", "ai": "assistant", "AIMessageChunk": "assistant",
             "ToolMessage": "tool", "tool": "tool", "FunctionMessage": "tool", "function": "tool",
             "ChatMessage": None, "chat": None}


def langchain_message(m: Any) -> Message:
    """A LangChain message in any serialised form as a normalised message: the ``lc`` constructor
    form (``{lc, type: constructor, id: [..., "HumanMessage"], kwargs: {content, tool_calls}}``), the
    ``{type: "human", data: {...}}`` / ``{type: "human", content}`` dict forms, or an OpenAI-style
    ``{role, content}`` dict."""
    if not isinstance(m, Mapping):
        return gm.normalise_message(m)
    if m.get("lc") is not None and isinstance(m.get("kwargs"), Mapping):
        cls = (m.get("id") or ["?"])[-1]
        body: Mapping[str, Any] = m["kwargs"]
        role = _LC_ROLES.get(str(cls), body.get("role"))
    elif "type" in m and m.get("type") in _LC_ROLES and "role" not in m:
        data = m.get("data")
        body = data if isinstance(data, Mapping) else m
        role = _LC_ROLES[m["type"]] or body.get("role")
    else:
        return openai_message(m)
    content = body.get("content")
    parts: list[dict[str, Any]] = []
    if role == "tool":
        parts.append({"type": "tool_call_response", "id": body.get("tool_call_id"),
                      "response": content if isinstance(content, str) else gm.compact_json(content)})
    elif isinstance(content, list):
        parts.extend(openai_part(c) if isinstance(c, Mapping) and c.get("type") != "tool_use" else anthropic_block(c)
                     for c in content)
    elif content not in (None, ""):
        parts.append({"type": "text", "content": str(content)})
    calls = body.get("tool_calls") or []
    for c in calls:
        if isinstance(c, Mapping):
            if "function" in c:
                parts.append(openai_message({"tool_calls": [c]})["parts"][0])
            else:
                parts.append({"type": "tool_call", "id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")})
    if not calls:
        extra = (body.get("additional_kwargs") or {}).get("tool_calls") or []
        parts.extend(openai_message({"tool_calls": extra})["parts"])
    return {"role": role, "parts": parts}


def langchain_usage(u: Any) -> Usage:
    """LangChain ``usage_metadata`` (``input_tokens`` include cache reads and creation;
    ``output_tokens`` include reasoning), as LangSmith and Langfuse's LangChain callback record it."""
    if not isinstance(u, Mapping):
        return Usage()
    idt = u.get("input_token_details") or {}
    odt = u.get("output_token_details") or {}
    return Usage(input_tokens=int_or_none(u.get("input_tokens")), output_tokens=int_or_none(u.get("output_tokens")),
                 cached_input_tokens=int_or_none(idt.get("cache_read")) if isinstance(idt, Mapping) else None,
                 cache_creation_input_tokens=int_or_none(idt.get("cache_creation")) if isinstance(idt, Mapping) else None,
                 reasoning_tokens=int_or_none(odt.get("reasoning")) if isinstance(odt, Mapping) else None)
