"""Provider-shaped content parts found inside chat messages, as OTel GenAI parts.

Messages reach the shared normaliser (:mod:`ctxviewer.importers.common.messages`) in many
wrappers -- OTel ``gen_ai.input.messages``, Langfuse ``input``, LangSmith ``inputs.messages`` --
and their parts are often the provider's own blocks, copied verbatim by the instrumentation. This
module maps those blocks, wherever they occur, to the typed OTel part (never to their JSON text):

* OpenAI Chat Completions ``{type: "image_url", image_url: {url, detail?}}`` (``url`` a ``data:``
  URL or a remote one; ``image_url`` may be the bare URL string) and Responses
  ``{type: "input_image", image_url, detail?}`` -> ``blob`` (``data:`` URL: mime type and base64
  payload) or ``uri``; ``detail`` kept (it decides OpenAI's image tokens);
* Anthropic ``{type: "image" | "document", source: {type: "base64", media_type, data} | {type:
  "url", url} | {type: "file", file_id}}`` -> ``blob`` / ``uri`` / ``file``;
* Anthropic extended thinking ``{type: "thinking", thinking, signature}`` -> ``reasoning`` whose
  content is the thinking text; the signature (an opaque, encrypted check value) is kept on the
  part but is never text; ``{type: "redacted_thinking", data}`` -> an empty ``reasoning`` part
  marked ``redacted`` (the encrypted ``data`` is never text);
* OpenAI ``input_text`` / ``output_text`` -> ``text``;
* LangChain's standard blocks (:func:`langchain_part`): langchain-core 0.3
  ``{type: "image" | "file" | "audio", source_type: "base64" | "url" | "id" | "text", data | url |
  id | text, mime_type}`` and 1.0 ``{type: "image" | "file" | "audio" | "video", base64 | url |
  file_id, mime_type}``, ``{type: "text-plain", text}`` -> ``blob`` / ``uri`` / ``file`` / ``text``;
* Anthropic ``tool_use`` / ``tool_result`` blocks and Gemini parts (``functionCall``,
  ``inlineData``...) -> ``tool_call`` / ``tool_call_response`` / ``blob`` / ``text``, by
  :func:`~ctxviewer.importers.common.foreign_parts.foreign_part`.

Shapes from openai-python ``types/chat/chat_completion_content_part_image_param.py``,
``types/responses/response_input_image_param.py`` and anthropic-sdk-python
``types/image_block_param.py``, ``types/thinking_block_param.py``,
``types/redacted_thinking_block_param.py``; LangChain's from langchain-core
``messages/content_blocks.py`` (0.3: ``Base64ContentBlock``, ``URLContentBlock``, ``IDContentBlock``,
``PlainTextContentBlock``; 1.0: ``ImageContentBlock``, ``FileContentBlock`` ...). No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common.foreign_parts import ANTHROPIC_TOOL_TYPES, foreign_part
from ctxviewer.tokens.placeholders import REDACTED_REASONING


def data_uri_part(url: str, modality: str = "image", detail: Any = None) -> dict[str, Any]:
    """An image/file URL as a part: a ``data:`` URL becomes ``blob`` (mime type + base64 payload,
    never text); any other URL stays ``uri``. ``detail`` (OpenAI's ``low`` / ``high`` / ``auto``)
    is kept on the part when given."""
    if url.startswith("data:") and "," in url:
        header, payload = url[5:].split(",", 1)
        mime = header.split(";", 1)[0] or None
        part: dict[str, Any] = {"type": "blob", "modality": modality, "mime_type": mime, "content": payload}
    else:
        part = {"type": "uri", "modality": modality, "uri": url}
    if detail is not None:
        part["detail"] = str(detail)
    return part


def source_part(source: Any, modality: str) -> dict[str, Any]:
    """An Anthropic ``image`` / ``document`` block's ``source`` as a ``blob`` (base64), ``uri``
    (url), ``text`` (a plain-text document) or ``file`` (file id) part."""
    src: Mapping[str, Any] = source if isinstance(source, Mapping) else {}
    kind = src.get("type")
    if kind == "base64":
        return {"type": "blob", "modality": modality, "mime_type": src.get("media_type"),
                "content": src.get("data") or ""}
    if kind == "url":
        return {"type": "uri", "modality": modality, "mime_type": src.get("media_type"), "uri": src.get("url")}
    if kind == "text":
        return {"type": "text", "content": src.get("data") or ""}
    return {"type": "file", "modality": modality, "mime_type": src.get("media_type"), "file_id": src.get("file_id")}


def thinking_part(block: Mapping[str, Any]) -> dict[str, Any]:
    """An Anthropic ``thinking`` / ``redacted_thinking`` block as a ``reasoning`` part: the
    thinking text is its content; a signature is kept as ``signature`` (never text); a redacted
    block has empty content and ``redacted: True``."""
    if block.get("type") == "redacted_thinking":
        return {"type": "reasoning", "content": "", "redacted": True}
    part: dict[str, Any] = {"type": "reasoning", "content": str(block.get("thinking") or "")}
    if block.get("signature") is not None:
        part["signature"] = block["signature"]
    return part


_LC_MODALITY = {"image": "image", "file": "document", "audio": "audio", "video": "video"}
"""LangChain block type -> OTel ``modality``."""


def langchain_part(p: Mapping[str, Any]) -> dict[str, Any] | None:
    """A LangChain standard content block (see the module docstring) as an OTel part, or ``None``
    when ``p`` is not one (an Anthropic block has ``source``; an OpenAI ``file`` part has ``file``).
    A ``url`` that is a ``data:`` URL becomes ``blob`` like OpenAI's."""
    t = p.get("type")
    if t == "text-plain":
        return {"type": "text", "content": str(p.get("text") or "")}
    modality = _LC_MODALITY.get(str(t))
    if modality is None or "source" in p or "file" in p:
        return None
    mime = p.get("mime_type")
    kind = p.get("source_type")
    if kind == "base64" or (kind is None and isinstance(p.get("base64"), str)):
        data = p.get("data") if kind == "base64" else p.get("base64")
        return {"type": "blob", "modality": modality, "mime_type": mime, "content": str(data or "")}
    if kind == "url" or (kind is None and isinstance(p.get("url"), str)):
        part = data_uri_part(str(p.get("url") or ""), modality)
        if mime and not part.get("mime_type"):
            part["mime_type"] = mime
        return part
    if kind == "id" or (kind is None and p.get("file_id") is not None):
        return {"type": "file", "modality": modality, "mime_type": mime, "file_id": p.get("id", p.get("file_id"))}
    if kind == "text":
        return {"type": "text", "content": str(p.get("text") or "")}
    return None


def provider_part(p: Mapping[str, Any]) -> dict[str, Any] | None:
    """The OTel part of a provider-shaped content part (see the module docstring), or ``None``
    when ``p`` is none of those shapes (the caller keeps it as it is)."""
    t = p.get("type")
    if t == "image_url":
        iu = p.get("image_url")
        url = iu.get("url") if isinstance(iu, Mapping) else iu
        detail = iu.get("detail") if isinstance(iu, Mapping) else p.get("detail")
        return data_uri_part(str(url or ""), "image", detail)
    if t == "input_image":
        if p.get("image_url"):
            return data_uri_part(str(p["image_url"]), "image", p.get("detail"))
        return {"type": "file", "modality": "image", "mime_type": None, "file_id": p.get("file_id")}
    if t in ("image", "document") and "source" in p:
        return source_part(p.get("source"), "image" if t == "image" else "document")
    if t in ("thinking", "redacted_thinking"):
        return thinking_part(p)
    if t in _LC_MODALITY or t == "text-plain":
        lc = langchain_part(p)
        if lc is not None:
            return lc
    if t in ("input_text", "output_text") and "content" not in p:
        return {"type": "text", "content": p.get("text") or ""}
    if t is None or t in ANTHROPIC_TOOL_TYPES:  # Anthropic tool blocks, Gemini parts (no type)
        return foreign_part(p)
    return None


def content_blocks(value: Any) -> list[Mapping[str, Any]] | None:
    """A legacy indexed ``content`` that is the JSON of a provider content array -- OpenLLMetry
    writes a multi-part OpenAI message as ``'[{"type": "text", ...}, {"type": "image_url",
    "image_url": {"url": "data:image/png;base64,..."}}]'`` -- as its blocks; ``None`` for any other
    content (plain text, JSON that is not a list of typed blocks). Read as text, the base64 of one
    225 KB image counted 273,000 tokens against the provider's 780."""
    if isinstance(value, list):
        blocks: Any = value
    elif isinstance(value, str) and value.lstrip().startswith("[{"):
        try:
            blocks = json.loads(value)
        except ValueError:
            return None
    else:
        return None
    if isinstance(blocks, list) and blocks and all(isinstance(b, Mapping) and isinstance(b.get("type"), str)
                                                   for b in blocks):
        return blocks
    return None


def spread_stringified(part: dict[str, Any], as_part: Any) -> list[dict[str, Any]]:
    """``part``, or the parts it stringified: a ``text`` part whose content is the JSON of a
    provider content array holding an image, audio or file block (an instrumentation that
    serialised the OpenAI content list into one text part: ``{"type": "text", "content": '[{"type":
    "text", ...}, {"type": "image_url", ...}]'}``) is those blocks, each mapped by ``as_part`` --
    read as text, one base64 image counted 2.6 million tokens. A JSON array of text blocks only
    stays the text it is (the model may have read it so)."""
    content = part.get("content") if part.get("type") == "text" else None
    blocks = content_blocks(content) if isinstance(content, str) else None
    if blocks is None or all(b.get("type") in ("text", "input_text") for b in blocks):
        return [part]
    return [as_part(b) for b in blocks]


def reasoning_text(part: Mapping[str, Any]) -> str | None:
    """The reasoning a ``reasoning`` part gives the response: its content, or
    :data:`~ctxviewer.tokens.placeholders.REDACTED_REASONING` for a redacted part without any
    (the output is recorded, encrypted); ``None`` for an empty part or another type."""
    if part.get("type") != "reasoning":
        return None
    if part.get("content"):
        return str(part["content"])
    return REDACTED_REASONING if part.get("redacted") else None
