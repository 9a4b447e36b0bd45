"""Content blocks of one provider found inside another format's messages, as OTel GenAI parts.

Instrumentations copy the provider's blocks verbatim into whatever they record (a Langfuse
generation's ``output``, an OpenAI-shaped message list, OTel ``gen_ai.*.messages``), so a block
may arrive under a reader that expects another vocabulary. The chat-message readers fall back to
:func:`foreign_part` for a block they do not know, so a tool call is a tool call wherever it sits:

* Anthropic Messages (anthropic-sdk ``types/tool_use_block.py``, ``tool_result_block_param.py``):
  ``{type: "tool_use" | "server_tool_use", id, name, input}`` -> ``tool_call`` (arguments the
  ``input`` object); ``{type: "tool_result", tool_use_id, content, is_error}`` ->
  ``tool_call_response`` (content blocks rendered as text);
* Gemini ``Part`` (google-genai ``types.Part``, camelCase as the REST API writes it and snake_case
  as the Python SDK does): ``{text}`` (``thought: true`` -> ``reasoning``), ``{functionCall: {id?,
  name, args}}`` -> ``tool_call``, ``{functionResponse: {id?, name, response}}`` ->
  ``tool_call_response``, ``{inlineData: {mimeType, data}}`` -> ``blob``, ``{fileData: {mimeType,
  fileUri}}`` -> ``uri``, ``{executableCode}`` / ``{codeExecutionResult}`` -> ``text``;
* Amazon Bedrock Converse blocks (``{toolUse}``, ``{toolResult}``, ``{reasoningContent}``,
  ``{image}``, ``{document}``; Strands Agents' telemetry writes them) -> ``tool_call`` /
  ``tool_call_response`` / ``reasoning`` / ``blob``, by
  :func:`~ctxviewer.importers.common.bedrock_parts.bedrock_part`.

No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common.bedrock_parts import bedrock_part

ANTHROPIC_TOOL_TYPES = frozenset({"tool_use", "server_tool_use", "tool_result"})
"""Anthropic block types this module converts."""


def _get(p: Mapping[str, Any], camel: str, snake: str) -> Any:
    return p.get(camel, p.get(snake))


def _text_of(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [str(b.get("text") or "") if isinstance(b, Mapping) and b.get("type") == "text"
                 else json.dumps(b, separators=(",", ":"), ensure_ascii=False) for b in content]
        return "\n".join(texts)
    return json.dumps(content, separators=(",", ":"), ensure_ascii=False)


def anthropic_tool_part(p: Mapping[str, Any]) -> dict[str, Any] | None:
    """An Anthropic ``tool_use`` / ``server_tool_use`` / ``tool_result`` block as an OTel part, else ``None``."""
    t = p.get("type")
    if t in ("tool_use", "server_tool_use"):
        return {"type": "tool_call", "id": p.get("id"), "name": p.get("name"), "arguments": p.get("input")}
    if t == "tool_result":
        part: dict[str, Any] = {"type": "tool_call_response", "id": p.get("tool_use_id"),
                                "response": _text_of(p.get("content"))}
        if p.get("is_error"):
            part["is_error"] = True
        return part
    return None


def gemini_part(p: Mapping[str, Any]) -> dict[str, Any] | None:
    """A Gemini ``Part`` (no ``type`` key; see the module docstring) as an OTel part, else ``None``."""
    if "type" in p:
        return None
    call = _get(p, "functionCall", "function_call")
    if isinstance(call, Mapping):
        return {"type": "tool_call", "id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}
    resp = _get(p, "functionResponse", "function_response")
    if isinstance(resp, Mapping):
        r = resp.get("response")
        return {"type": "tool_call_response", "id": resp.get("id") or resp.get("name"),
                "response": r if isinstance(r, str) else json.dumps(r, separators=(",", ":"), ensure_ascii=False)}
    inline = _get(p, "inlineData", "inline_data")
    if isinstance(inline, Mapping):
        mime = _get(inline, "mimeType", "mime_type")
        modality = str(mime or "").split("/", 1)[0] if str(mime or "").split("/", 1)[0] in ("image", "audio", "video") \
            else "document"
        return {"type": "blob", "modality": modality, "mime_type": mime, "content": inline.get("data") or ""}
    file = _get(p, "fileData", "file_data")
    if isinstance(file, Mapping):
        return {"type": "uri", "modality": "document", "mime_type": _get(file, "mimeType", "mime_type"),
                "uri": _get(file, "fileUri", "file_uri")}
    code = _get(p, "executableCode", "executable_code")
    if isinstance(code, Mapping):
        return {"type": "text", "content": str(code.get("code") or "")}
    result = _get(p, "codeExecutionResult", "code_execution_result")
    if isinstance(result, Mapping):
        return {"type": "text", "content": str(result.get("output") or "")}
    if isinstance(p.get("text"), str) and set(p) <= {"text", "thought", "thought_signature", "thoughtSignature"}:
        return {"type": "reasoning" if p.get("thought") else "text", "content": p["text"]}
    return None


def foreign_part(p: Mapping[str, Any]) -> dict[str, Any] | None:
    """The OTel part of a block from another provider's vocabulary (Anthropic tool blocks, Gemini
    parts, Bedrock Converse blocks), or ``None`` when ``p`` is none of those (the caller keeps it
    as it is)."""
    if p.get("type") in ANTHROPIC_TOOL_TYPES:
        return anthropic_tool_part(p)
    return gemini_part(p) or bedrock_part(p)
