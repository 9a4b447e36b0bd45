"""LangChain messages and ``usage_metadata`` (as LangSmith runs and Langfuse's LangChain callback
record them) as normalised messages of :mod:`ctxviewer.importers.common.messages`. No Qt here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.field_account import is_empty
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
    call_parts: list[dict[str, Any]] = []
    for c in calls:
        if isinstance(c, Mapping):
            if "function" in c:
                call_parts.append(openai_message({"tool_calls": [c]})["parts"][0])
            else:
                call_parts.append({"type": "tool_call", "id": c.get("id"), "name": c.get("name"),
                                   "arguments": c.get("args")})
    if not calls:
        extra = (body.get("additional_kwargs") or {}).get("tool_calls") or []
        call_parts.extend(openai_message({"tool_calls": extra})["parts"])
    parts.extend(_new_calls(parts, call_parts))
    return {"role": role, "parts": parts}


def _new_calls(parts: list[dict[str, Any]], call_parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``tool_call`` parts of ``call_parts`` whose id no ``tool_call`` part of ``parts`` holds.

    An AIMessage of ChatAnthropic holds each proposed call twice: as a ``tool_use`` block of
    ``content`` and again in ``tool_calls``, with the same id. One id is one call, so the second
    copy is dropped (the content block, which keeps its position among the text blocks, stays).
    Calls without an id are all kept: nothing says two of them are the same call."""
    seen = {p.get("id") for p in parts if p.get("type") == "tool_call" and p.get("id")}
    return [p for p in call_parts if not (p.get("type") == "tool_call" and p.get("id") and p.get("id") in seen)]


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


RESPONSE_METADATA_READ = ("id", "model", "model_name", "stop_reason", "finish_reason")
"""The keys of a LangChain ``AIMessage.response_metadata`` :func:`langchain_response_metadata` maps."""


def langchain_response_metadata(m: Any, prefix: str) -> tuple[dict[str, str | None], list[str]]:
    """The provider's response facts in a LangChain ``AIMessage``'s ``response_metadata`` (the ``lc``
    constructor form's ``kwargs`` or the ``data`` / plain dict form): ``({"id", "model",
    "finish_reason"}, unmapped)``. ChatAnthropic writes ``id`` / ``model`` / ``stop_reason``,
    ChatOpenAI and ChatGoogleGenerativeAI ``model_name`` / ``finish_reason`` (and ChatOpenAI an
    ``id``); each value is a string or ``None``. ``unmapped`` names the other non-empty keys as
    dotted paths under ``prefix`` (the message's path in the record) plus the body key, so the
    field account lists them (``usage``, ``token_usage``, ``system_fingerprint``...)."""
    facts: dict[str, str | None] = {"id": None, "model": None, "finish_reason": None}
    if not isinstance(m, Mapping):
        return facts, []
    if isinstance(m.get("kwargs"), Mapping):
        body, where = m["kwargs"], f"{prefix}kwargs."
    elif isinstance(m.get("data"), Mapping):
        body, where = m["data"], f"{prefix}data."
    else:
        body, where = m, prefix
    meta = body.get("response_metadata")
    if not isinstance(meta, Mapping):
        return facts, []

    def text(*keys: str) -> str | None:
        for k in keys:
            v = meta.get(k)
            if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v):
                return str(v)
        return None

    facts = {"id": text("id"), "model": text("model", "model_name"),
             "finish_reason": text("stop_reason", "finish_reason")}
    unmapped = [f"{where}response_metadata.{k}" for k, v in meta.items()
                if k not in RESPONSE_METADATA_READ and not is_empty(v)]
    return facts, unmapped
