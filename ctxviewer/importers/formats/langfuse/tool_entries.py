"""Tool definitions listed among a Langfuse generation's input messages, and tool calls written as
a message's content (Koog: :func:`content_tool_calls`).

Langfuse's LangChain / LangGraph callback records the tools a model was offered as input entries
``{"role": "tool", "content": {"type": "function", "function": {...}}}`` (its ``toolDefinitions``
left ``{}``); read as messages they were tool results, and the proposed call's tool "not offered"
(new-user finding N5, the corpus's ``langgraph-python-2025-08-22.trace.json``). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.formats.langfuse.extras import json_value as _json


def definition_in(m: Any) -> dict[str, Any] | None:
    """The tool definition an input entry carries instead of a message, else ``None``: Langfuse's
    LangChain callback lists the tools offered as ``{"role": "tool", "content": {"type":
    "function", "function": {"name": ...}}}`` entries (no ``tool_call_id``: no call's result)."""
    if not isinstance(m, Mapping) or m.get("role") != "tool" or m.get("tool_call_id") is not None:
        return None
    c = m.get("content")
    if not isinstance(c, Mapping) or c.get("type") != "function":
        return None
    fn = c.get("function")
    return dict(c) if isinstance(fn, Mapping) and isinstance(fn.get("name"), str) else None


def input_definitions(value: Any) -> list[dict[str, Any]]:
    """The tool definitions listed among an observation's ``input`` messages (:func:`definition_in`)."""
    data = _json(value)
    if isinstance(data, Mapping) and isinstance(data.get("messages"), list):
        data = data["messages"]
    return [d for d in map(definition_in, data) if d is not None] if isinstance(data, list) else []


def content_tool_calls(text: Any) -> list[dict[str, Any]] | None:
    """Koog writes assistant tool calls as message *content*: a JSON list of
    ``{function: {name, arguments}, id, type: "function"}``. Those calls, or ``None``."""
    data = gm.parse_structured(text) if isinstance(text, str) and text.startswith("[{") else None
    if isinstance(data, list) and data and all(isinstance(c, Mapping) and isinstance(c.get("function"), Mapping)
                                               for c in data):
        return [dict(c) for c in data]
    return None
