"""Amazon Bedrock Converse content blocks found inside another format's messages, as OTel GenAI parts.

A Bedrock Converse ``ContentBlock`` is a union with no ``type`` key: exactly one member is set
(Bedrock API reference ``API_runtime_ContentBlock``). Strands Agents copies these blocks verbatim
into its telemetry (``strands/telemetry/tracer.py``: a message event's ``content`` and a
``gen_ai.choice`` event's ``message`` are the JSON of the message's blocks), and so does any
instrumentation that records a Converse request. :func:`bedrock_part` maps one block:

* ``{text}`` -> ``text``;
* ``{toolUse: {toolUseId, name, input}}`` -> ``tool_call`` (``arguments`` the ``input`` object);
* ``{toolResult: {toolUseId, status?, content: [ToolResultContentBlock]}}`` ->
  ``tool_call_response`` whose response is the result's text (:func:`tool_result_text`:
  ``{text}`` blocks joined by newlines, ``{json}`` as compact JSON, any other block as compact
  JSON); ``status: "error"`` -> ``is_error: True``;
* ``{reasoningContent: {reasoningText: {text, signature?}}}`` -> ``reasoning`` (the signature is
  kept, never text); ``{reasoningContent: {redactedContent}}`` -> an empty ``reasoning`` marked
  ``redacted``;
* ``{image: {format, source: {bytes} | {s3Location: {uri}}}}`` -> ``blob`` (``image/<format>``;
  the base64 payload; Strands' JSON encoder writes bytes as ``"<replaced>"``, which is no
  payload: empty content) or ``uri``; ``{document: {format, name, source: {bytes} | {text} |
  {s3Location}}}`` likewise (a ``text`` source -> ``text``).

Any other block (``cachePoint``, ``guardContent``, ``video``...) is not converted (``None``: the
caller keeps it as it is). No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

BEDROCK_KEYS = frozenset({"toolUse", "toolResult", "reasoningContent", "image", "document"})
"""The single keys of the Bedrock blocks (besides ``text``) :func:`bedrock_part` converts."""

REPLACED = "<replaced>"
"""What Strands' telemetry JSON encoder (``tracer.py`` ``JSONEncoder``) writes for a value it
cannot serialise -- an image's or document's ``bytes``."""

_DOCUMENT_MIME = {"pdf": "application/pdf", "csv": "text/csv", "txt": "text/plain", "md": "text/markdown",
                  "html": "text/html", "doc": "application/msword", "xls": "application/vnd.ms-excel",
                  "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                  "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
"""Bedrock ``DocumentBlock.format`` -> its mime type."""


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def tool_result_text(content: Any) -> str | None:
    """The text of a Bedrock ``toolResult``'s ``content`` (a list of ``ToolResultContentBlock``):
    each ``{text}`` block's text, each ``{json}`` block's value as compact JSON, any other block as
    compact JSON, joined by newlines; a string as it is; ``None`` for ``None``."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return _compact(content)
    out = []
    for block in content:
        if isinstance(block, Mapping) and set(block) == {"text"}:
            out.append(str(block["text"]))
        elif isinstance(block, Mapping) and set(block) == {"json"}:
            j = block["json"]
            out.append(j if isinstance(j, str) else _compact(j))
        else:
            out.append(_compact(block))
    return "\n".join(out)


def is_tool_result_content(content: Any) -> bool:
    """Whether ``content`` is a non-empty list of Bedrock ``ToolResultContentBlock`` objects, each
    a one-key ``{text}`` or ``{json}`` (the ``response`` Strands writes on a ``tool_call_response``
    part with the latest GenAI conventions)."""
    return (isinstance(content, list) and bool(content)
            and all(isinstance(b, Mapping) and len(b) == 1 and ("text" in b or "json" in b) for b in content))


def _media(kind: str, block: Mapping[str, Any]) -> dict[str, Any]:
    fmt = str(block.get("format") or "").lower()
    modality = "image" if kind == "image" else "document"
    mime = (f"image/{'jpeg' if fmt == 'jpg' else fmt}" if kind == "image" else _DOCUMENT_MIME.get(fmt)) if fmt else None
    raw = block.get("source")
    source: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    if isinstance(source.get("text"), str):
        return {"type": "text", "content": source["text"]}
    s3 = source.get("s3Location")
    if isinstance(s3, Mapping) and s3.get("uri"):
        return {"type": "uri", "modality": modality, "mime_type": mime, "uri": str(s3["uri"])}
    data = source.get("bytes")
    part: dict[str, Any] = {"type": "blob", "modality": modality, "mime_type": mime,
                            "content": data if isinstance(data, str) and data != REPLACED else ""}
    if block.get("name"):
        part["name"] = str(block["name"])
    return part


def bedrock_part(p: Mapping[str, Any]) -> dict[str, Any] | None:
    """The OTel part of one Bedrock Converse content block (see the module docstring), or ``None``
    when ``p`` is not a one-key block of a converted kind."""
    if len(p) != 1:
        return None
    (key, value), = p.items()
    if key == "text" and isinstance(value, str):
        return {"type": "text", "content": value}
    if key not in BEDROCK_KEYS or not isinstance(value, Mapping):
        return None
    if key == "toolUse":
        return {"type": "tool_call", "id": value.get("toolUseId"), "name": value.get("name"),
                "arguments": value.get("input")}
    if key == "toolResult":
        part: dict[str, Any] = {"type": "tool_call_response", "id": value.get("toolUseId"),
                                "response": tool_result_text(value.get("content"))}
        if str(value.get("status") or "").lower() == "error":
            part["is_error"] = True
        return part
    if key == "reasoningContent":
        text = value.get("reasoningText")
        if isinstance(text, Mapping):
            out: dict[str, Any] = {"type": "reasoning", "content": str(text.get("text") or "")}
            if text.get("signature"):
                out["signature"] = text["signature"]
            return out
        if "redactedContent" in value:
            return {"type": "reasoning", "content": "", "redacted": True}
        return None
    return _media(key, value)
