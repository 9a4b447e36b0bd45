"""The shared chat-message normaliser: any chat-message encoding -> OTel GenAI messages -> item text.

Every importer whose records carry chat messages uses this module, so a message reads the same
whichever tool wrote it: :func:`normalise_message` accepts the OTel ``{role, parts}`` shape, the
``{role, content}`` chat shape (content a string or a list of parts, OpenAI / Vercel part types)
and bare strings; :func:`message_text` renders the parts as the text an item shows.

The GenAI semantic conventions (semconv >= 1.37, JSON schemas ``gen-ai-input-messages.json``,
``gen-ai-output-messages.json``, ``gen-ai-system-instructions.json``, ``gen-ai-tool-definitions.json``)
carry structured values in span attributes:

* ``gen_ai.input.messages`` / ``gen_ai.output.messages`` -- ``[{role, parts[], name?, finish_reason?}]``;
* ``gen_ai.system_instructions`` -- ``[part]`` (no role);
* ``gen_ai.tool.definitions`` -- ``[{type, name, description, parameters}]`` (or the OpenAI wrapper
  ``{type, function: {name, ...}}`` that real emitters write).

Each may arrive as a JSON string, as structured ``arrayValue``/``kvlistValue`` (already decoded to
lists and dicts by :mod:`.values`), or as a Python ``repr`` string (LiteLLM) --
:func:`parse_structured` accepts all three. Older forms are normalised to the same message shape:
deprecated ``gen_ai.prompt``/``gen_ai.completion`` values, OpenLLMetry's indexed
``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*`` attributes, and Vercel AI SDK
``ai.prompt.messages``.

:func:`part_text` renders a part as the text an item shows; binary payloads become a placeholder
(``[image/png blob, 12,345 bytes base64]``) so megabytes of base64 are never stored as text.
No Qt here.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common.containers import loads
from ctxviewer.importers.common.exporter_cut import middle_cut
from ctxviewer.importers.common.part_shapes import content_blocks, data_uri_part, provider_part, spread_stringified
from ctxviewer.tokens.images import size_of_base64
from ctxviewer.tokens.placeholders import REASONING, REDACTED_REASONING, placeholder
from ctxviewer.util.json_escapes import decode_escapes

Message = dict[str, Any]
"""A normalised message: ``{"role": str | None, "parts": list[dict], "finish_reason"?: str}``."""

_INDEXED = re.compile(r"^(\d+)\.(.+)$")


def compact_json(value: Any) -> str:
    """``value`` as compact JSON (no spaces after separators, non-ASCII kept as is; a set or bytes: its ``str``)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def parse_structured(value: Any) -> Any:
    """Decode a structured attribute value: JSON string, Python-repr string, or already structured.

    Lists and dicts are returned unchanged. A string is tried as JSON, then (when it looks like a
    literal) with :func:`ast.literal_eval` (``"[{'role': 'user', 'content': None}]"``). A string
    that is neither is returned unchanged (plain text). Never raises.
    """
    if not isinstance(value, str):
        return value
    s = value.strip()
    if not s:
        return value
    try:
        return loads(s, None)
    except ValueError:
        pass
    if s[0] in "[{(\"'":
        try:
            return ast.literal_eval(s)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            pass
    return value


# ---------------------------------------------------------------- messages


def _as_part(p: Any) -> dict[str, Any]:
    if isinstance(p, Mapping):
        mapped = provider_part(p)  # an OpenAI / Anthropic block copied verbatim (image_url, thinking, ...)
        if mapped is not None:
            return mapped
        part = dict(p)
        if part.get("type") == "text" and "content" not in part and "text" in part:
            part["content"] = part.pop("text")  # OpenAI / Vercel {type: text, text}
        return part
    return {"type": "text", "content": "" if p is None else p if isinstance(p, str) else compact_json(p)}


def normalise_message(m: Any) -> Message:
    """One message of any accepted shape as ``{"role", "parts", ...}``.

    Accepts the OTel shape ``{role, parts}``, a ``{role, content}`` chat message whose content is a
    string or a list of parts, and a bare string (a user text message); ``parts`` that is no list is one part.
    """
    if not isinstance(m, Mapping):
        return {"role": "user", "parts": [_as_part(m)]}
    msg: Message = {k: v for k, v in m.items() if k not in ("parts", "content")}
    msg["role"] = m.get("role")
    if isinstance(m.get("parts"), list):
        msg["parts"] = [q for p in m["parts"] for q in spread_stringified(_as_part(p), _as_part)]
    elif isinstance(m.get("content"), list):
        msg["parts"] = [_vercel_part(p) for p in m["content"]]
    elif m.get("content") is not None or m.get("parts") is not None:  # parts that is no list: one part
        msg["parts"] = [_as_part(m["content"] if m.get("content") is not None else m["parts"])]
    else:
        msg["parts"] = []
    return msg


def parse_messages(value: Any) -> list[Message] | None:
    """``gen_ai.input.messages`` / ``gen_ai.output.messages`` (any encoding) as normalised messages.

    A single message object (the deprecated ``gen_ai.completion`` fixture writes
    ``{"text": ..., "finish_reason": ...}``) becomes a one-element list. A plain string becomes one
    user text message. ``None`` -> ``None``.
    """
    if value is None:
        return None
    data = parse_structured(value)
    if isinstance(data, Mapping):
        if "role" not in data and "parts" not in data and "text" in data:
            data = {"role": "assistant", "parts": [{"type": "text", "content": data["text"]}],
                    **({"finish_reason": data["finish_reason"]} if "finish_reason" in data else {})}
        data = [data]
    if not isinstance(data, list):
        data = [data]
    return [normalise_message(m) for m in data]


def parse_message_list(value: Any) -> list[Message] | None:
    """``gen_ai.input.messages`` / ``gen_ai.output.messages`` under the semconv rule: a list of
    messages (structured, or a JSON / Python-repr string of a list), normalised. ``None`` -> ``None``.

    Raises ``ValueError("expected a list of messages, got int")`` for any other value (a number, a
    boolean, a single object, plain text), which :func:`parse_messages` would have turned into a
    made-up user message.
    """
    if value is None:
        return None
    data = parse_structured(value)
    if not isinstance(data, list):
        raise ValueError(f"expected a list of messages, got {type(data).__name__}")
    return [normalise_message(m) for m in data]


def parse_parts(value: Any) -> list[dict[str, Any]] | None:
    """``gen_ai.system_instructions`` (a list of parts, or a plain string) as a list of parts.

    Some emitters write whole messages (``[{"role": "system", "parts": [...]}]`` or ``{role,
    content}``) instead of parts: their parts are taken, so the policy text is the instruction
    itself, not the JSON around it (a 12-token instruction counts 12, not 27)."""
    if value is None:
        return None
    data = parse_structured(value)
    items = data if isinstance(data, list) else [data]
    out: list[dict[str, Any]] = []
    for p in items:
        if isinstance(p, Mapping) and "role" in p and ("parts" in p or "content" in p):
            out.extend(normalise_message(p)["parts"])
        else:
            out.append(_as_part(p))
    return out


def indexed_messages(attrs: Mapping[str, Any], prefix: str) -> list[Message] | None:
    """OpenLLMetry's legacy indexed attributes (``gen_ai.prompt.{i}.role/content``,
    ``gen_ai.completion.{i}.finish_reason``, ``.tool_calls.{j}.{id,name,arguments}``,
    ``.function_call.{name,arguments}``) as normalised messages; ``None`` if there are none."""
    groups: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix + "."):
            continue
        m = _INDEXED.match(key[len(prefix) + 1:])
        if m:
            groups.setdefault(int(m.group(1)), {})[m.group(2)] = value
    if not groups:
        return None
    out: list[Message] = []
    for _i, fields in sorted(groups.items()):
        parts: list[dict[str, Any]] = []
        role = fields.get("role")
        keyed = [k for k in ROLE_KEYS if k in fields] if "role" not in fields and "content" not in fields else []
        if keyed:  # gen_ai.prompt.0.user = "...": the key is the role (see role_keyed_prompts)
            role = keyed[0]
            parts.append({"type": "text", "content": str(fields[role])})
        if fields.get("content") not in (None, ""):
            blocks = content_blocks(fields["content"])
            if blocks is not None:  # a multi-part message: text, images (base64), audio -- each its own part
                parts.extend(_as_part(b) for b in blocks)
            else:
                parts.append({"type": "text", "content": str(fields["content"])})
        calls: dict[int, dict[str, Any]] = {}
        for k, v in fields.items():
            m = re.match(r"^tool_calls\.(\d+)\.(\w+)$", k)
            if m:
                calls.setdefault(int(m.group(1)), {})[m.group(2)] = v
        if "function_call.name" in fields:
            calls.setdefault(len(calls), {}).update(
                name=fields["function_call.name"], arguments=fields.get("function_call.arguments"))
        for _j, c in sorted(calls.items()):
            parts.append({"type": "tool_call", "id": c.get("id"), "name": c.get("name"),
                          "arguments": c.get("arguments")})
        msg: Message = {"role": role, "parts": parts}
        if fields.get("finish_reason") is not None:
            msg["finish_reason"] = fields["finish_reason"]
        out.append(msg)
    return out


ROLE_KEYS = ("system", "developer", "user", "assistant", "tool")
"""Roles some emitters use as the key of an indexed prompt (``gen_ai.prompt.0.user``)."""


def role_keyed_prompts(attrs: Mapping[str, Any], prefix: str = "gen_ai.prompt") -> list[str]:
    """The attributes of an indexed prompt keyed by role (``gen_ai.prompt.0.user``) instead of
    ``.role`` + ``.content``: their text is kept as that role's message, with a warning."""
    pat = re.compile(rf"^{re.escape(prefix)}\.(\d+)\.({'|'.join(ROLE_KEYS)})$")
    return sorted(k for k in attrs if pat.match(k))


def _vercel_part(p: Any) -> dict[str, Any]:
    """A Vercel AI SDK content part (``tool-call``, ``tool-result``, ``text``...) as an OTel part."""
    if not isinstance(p, Mapping):
        return _as_part(p)
    t = p.get("type")
    if t == "tool-call":
        return {"type": "tool_call", "id": p.get("toolCallId"), "name": p.get("toolName"),
                "arguments": p.get("input", p.get("args"))}
    if t == "tool-result":
        return {"type": "tool_call_response", "id": p.get("toolCallId"),
                "response": p.get("output", p.get("result"))}
    if t in ("image", "file") and isinstance(p.get("image", p.get("data")), str):
        data = str(p.get("image", p.get("data")))
        modality = "image" if t == "image" else "document"
        if data.startswith(("data:", "http://", "https://")):  # Vercel allows a URL or a data URL
            return data_uri_part(data, modality)
        return {"type": "blob", "modality": modality,
                "mime_type": p.get("mediaType", p.get("mimeType")), "content": data}
    return _as_part(p)


# ---------------------------------------------------------------- rendering


def part_desc(part: Mapping[str, Any]) -> str:
    """What a binary part's placeholder names it by: its ``mime_type``, else ``modality``, else ``binary``."""
    return str(part.get("mime_type") or part.get("modality") or "binary")


def _is_image(part: Mapping[str, Any]) -> bool:
    return part.get("modality") == "image" or str(part.get("mime_type") or "").startswith("image/")


def _detail(part: Mapping[str, Any]) -> str | None:
    d = part.get("detail")
    return str(d) if d not in (None, "") else None


def part_text(part: Mapping[str, Any]) -> str:
    """The text an item shows for one message part (OTel GenAI part types).

    ``text`` -> its content (JSON an exporter encoded once too often decoded once:
    :func:`ctxviewer.util.json_escapes.decode_escapes`, ``"\\u4f60\\u597d"`` -> ``你好``); ``reasoning`` -> :data:`~ctxviewer.tokens.placeholders.REASONING` +
    content (a redacted one: :data:`~ctxviewer.tokens.placeholders.REDACTED_REASONING`; a
    signature is never shown); ``tool_call`` -> the call as compact JSON
    (``{"type":"tool_call","id":...,"name":...,"arguments":...}``); ``tool_call_response`` ->
    ``response`` (or the spec example's ``result``) as text (decoded likewise), or compact JSON when
    structured;
    ``blob`` -> ``[image/png blob, 1024×768, 12,345 bytes base64]`` (the pixel size read from an
    image's header when readable, OpenAI's ``detail`` when recorded); ``uri`` -> ``[image/png uri:
    https://...]`` (a ``data:`` URI only by its size); ``file`` -> ``[application/pdf file:
    file-abc]``; any other part -> compact JSON of the part, base64 payloads and ``data:`` URLs
    at any depth replaced by placeholders (:mod:`ctxviewer.tokens.placeholders`).
    """
    t = part.get("type")
    if t == "text":
        c = part.get("content")
        return "" if c is None else decode_escapes(c if isinstance(c, str) else compact_json(c))  # never a repr
    if t == "reasoning":
        if part.get("redacted") and not part.get("content"):
            return REDACTED_REASONING
        return f"{REASONING}{part.get('content') or ''}".rstrip()
    if t == "tool_call":
        call = {k: part.get(k) for k in ("type", "id", "name", "arguments")}
        call["arguments"] = parse_structured(call["arguments"])
        return compact_json({k: v for k, v in call.items() if v is not None})
    if t == "tool_call_response":
        r = part.get("response", part.get("result"))
        return decode_escapes(r) if isinstance(r, str) else compact_json(strip_payloads(r))
    if t == "blob":
        c = part.get("content")
        if not isinstance(c, str):
            return placeholder(part_desc(part), "blob", detail=_detail(part))
        size = size_of_base64(c) if _is_image(part) else None
        return placeholder(part_desc(part), "blob", size=size, detail=_detail(part), base64_chars=len(c), cut=middle_cut(c))
    if t == "uri":
        uri = str(part.get("uri") or "")
        if uri.startswith("data:"):
            size = size_of_base64(uri.split(",", 1)[1]) if _is_image(part) and "," in uri else None
            return placeholder(part_desc(part), "data URI", size=size, detail=_detail(part), base64_chars=len(uri),
                               cut=middle_cut(uri))
        return placeholder(part_desc(part), "uri", detail=_detail(part), ref=uri)
    if t == "file":
        return placeholder(part_desc(part), "file", detail=_detail(part), ref=str(part.get("file_id")))
    return compact_json(strip_payloads(dict(part)))


_BASE64 = re.compile(r"[A-Za-z0-9+/=\r\n]+")  # line breaks as in MIME base64; a space means text


def strip_payloads(value: Any) -> Any:
    """``value`` with every ``data:`` URL and every base64 run over 4,096 characters, at any depth
    of lists and objects, replaced by a placeholder (``[image/png data URI, 64×32, 1,234 bytes
    base64]``, ``[812,345 bytes base64]``)."""
    if isinstance(value, str):
        if value.startswith("data:") and ";base64," in value[:200]:
            mime = value[5:].split(";", 1)[0] or "binary"
            payload = value.split(",", 1)[1]
            size = size_of_base64(payload) if mime.startswith("image/") else None
            return placeholder(mime, "data URI", size=size, base64_chars=len(value), cut=middle_cut(payload))
        if len(value) > 4096 and _BASE64.fullmatch(value[:4096]):
            return f"[{len(value):,} bytes base64]"
        return value
    if isinstance(value, Mapping):
        return {k: strip_payloads(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strip_payloads(v) for v in value]
    return value


def message_text(msg: Mapping[str, Any]) -> str:
    """All parts of a message rendered with :func:`part_text`, joined by newlines."""
    return "\n".join(t for t in (part_text(p) for p in msg.get("parts") or []) if t != "")


def tool_call_parts(msg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``tool_call`` parts of a message, in order."""
    return [p for p in msg.get("parts") or [] if p.get("type") == "tool_call"]


def arguments_string(arguments: Any) -> str | None:
    """Tool-call arguments as sent: a string stays exactly as it is; an object (the OTel part
    shape) becomes compact JSON; ``None`` -> ``None``."""
    if arguments is None or isinstance(arguments, str):
        return arguments
    return compact_json(arguments)


# ---------------------------------------------------------------- tool definitions


def parse_tool_definitions(value: Any) -> list[dict[str, Any]] | None:
    """``gen_ai.tool.definitions`` (any encoding) as a list of definition objects; ``None`` if absent.

    Vercel's ``ai.prompt.tools`` (a list of JSON strings) is accepted too: each string is decoded.
    """
    if value is None:
        return None
    data = parse_structured(value)
    if isinstance(data, Mapping):
        data = [data]
    if not isinstance(data, list):
        return None
    defs = [parse_structured(d) for d in data]
    return [dict(d) for d in defs if isinstance(d, Mapping)]


def tool_name(definition: Mapping[str, Any]) -> str | None:
    """The tool's name in the flat ``{type, name, ...}`` or wrapper ``{type, function: {name}}`` shape."""
    fn = definition.get("function")
    if isinstance(fn, Mapping) and fn.get("name"):
        return str(fn["name"])
    name = definition.get("name")
    return str(name) if name is not None else None


def indexed_functions(attrs: Mapping[str, Any], prefix: str = "llm.request.functions") -> list[dict[str, Any]] | None:
    """OpenLLMetry / LiteLLM ``llm.request.functions.{i}.{name,description,parameters}`` as flat
    function definitions ``{type: "function", name, description, parameters}``; ``None`` if absent."""
    groups: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if key.startswith(prefix + "."):
            m = _INDEXED.match(key[len(prefix) + 1:])
            if m:
                groups.setdefault(int(m.group(1)), {})[m.group(2)] = value
    if not groups:
        return None
    out = []
    for _i, f in sorted(groups.items()):
        d: dict[str, Any] = {"type": "function"}
        for k in ("name", "description", "parameters"):
            if k in f:
                d[k] = parse_structured(f[k]) if k == "parameters" else f[k]
        out.append(d)
    return out
