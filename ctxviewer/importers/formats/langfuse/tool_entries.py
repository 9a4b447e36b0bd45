"""Tool definitions listed among a Langfuse generation's input messages, and tool calls written as
a message's content (Koog: :func:`content_tool_calls`), and ``toolDefinitions`` as Langfuse
stores them, a map of name -> definition (:func:`definitions_map`); every place an observation
records its tools (:func:`tools_of`).

Langfuse's LangChain / LangGraph callback records the tools a model was offered as input entries
``{"role": "tool", "content": {"type": "function", "function": {...}}}`` (its ``toolDefinitions``
left ``{}``); read as messages they were tool results, and the proposed call's tool "not offered"
(new-user finding N5, the corpus's ``langgraph-python-2025-08-22.trace.json``). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.framework_tools import framework_tool_definitions
from ctxviewer.importers.formats.langfuse.extras import json_value as _json
from ctxviewer.importers.formats.langfuse.extras import metadata


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


def definitions_map(value: Any) -> list[dict[str, Any]] | None:
    """Langfuse's ``toolDefinitions`` as it stores them, a map of tool name -> definition
    (``{"shell": {"description": ..., "parameters": {...}}}``, the value an object or its JSON
    string), as flat ``{type: "function", name, ...}`` definitions; ``None`` when ``value`` is no
    such map (a single definition naming itself, or a list, is read as ``gen_ai.tool.definitions``)."""
    data = _json(value)
    if not isinstance(data, Mapping) or not data or "name" in data or "function" in data:
        return None
    defs = {k: _json(v) for k, v in data.items()}
    if not all(isinstance(d, Mapping) for d in defs.values()):
        return None
    return [{"type": "function", "name": str(k), **{f: v for f, v in d.items() if f != "name"}} for k, d in defs.items()]


def tools_of(obs: Mapping[str, Any], attrs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool definitions a Langfuse observation records (``attrs``: its original span
    attributes): ``toolDefinitions`` (a name map, :func:`definitions_map`, or a list), else
    ``input.tools``, ``modelParameters.tools``, ``gen_ai.tool.definitions``, ``ai.prompt.tools``,
    ``metadata.tools``, ``llm.request.functions.*``, a framework's attributes, or the input
    messages (:func:`input_definitions`); ``[]`` when none."""
    mapped = definitions_map(obs.get("toolDefinitions"))
    if mapped:
        return mapped
    for value in (obs.get("toolDefinitions"), (_json(obs.get("input")) or {}).get("tools")
                  if isinstance(_json(obs.get("input")), Mapping) else None,
                  (obs.get("modelParameters") or {}).get("tools") if isinstance(obs.get("modelParameters"), Mapping)
                  else None, attrs.get("gen_ai.tool.definitions"), attrs.get("ai.prompt.tools"),
                  metadata(obs).get("tools")):  # Langfuse's Vercel exporter: JSON strings in metadata.tools
        defs = gm.parse_tool_definitions(value) if value not in (None, {}, []) else None
        if defs:
            return defs
    return gm.indexed_functions(attrs) or framework_tool_definitions(attrs) or input_definitions(obs.get("input"))
