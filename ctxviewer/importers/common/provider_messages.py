"""Provider API payloads (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages) as the
normalised messages of :mod:`ctxviewer.importers.common.messages` (OTel GenAI parts), plus each
provider's usage semantics.

Message shapes (types from openai-python ``types/chat``, ``types/responses``
and anthropic-sdk-python ``types``):

* Chat Completions ``messages[]``: ``{role, content: str | [{type:text|image_url|input_audio|file}],
  tool_calls[{id, function{name, arguments}}], tool_call_id}`` -> parts ``text`` / ``uri`` / ``blob``
  / ``file`` / ``tool_call`` (arguments kept exactly as sent) / ``tool_call_response``.
* Anthropic ``messages[]`` and ``system``: blocks ``text``, ``image``/``document`` (``source``
  base64 -> ``blob``, url -> ``uri``), ``tool_use`` -> ``tool_call``, ``tool_result`` ->
  ``tool_call_response``, ``thinking`` -> ``reasoning`` (the signature is kept, not shown),
  ``redacted_thinking`` -> an empty ``reasoning`` part marked redacted.
* Responses ``instructions`` + ``input`` items: ``message``, ``function_call``,
  ``function_call_output``, ``reasoning``; ``output`` items likewise.

Usage (the issue's per-provider rules; OTel GenAI ``gen_ai.usage.*`` normal form):

* OpenAI: ``prompt_tokens`` / ``input_tokens`` already include ``cached_tokens``;
  ``completion_tokens`` / ``output_tokens`` include ``reasoning_tokens``.
* Anthropic: ``input_tokens`` excludes ``cache_read_input_tokens`` and
  ``cache_creation_input_tokens``; normalised input = the sum of the three.
* Reasoning greater than output is kept as reported with a warning (never a negative number);
  a usage object that is absent stays ``None`` ("not reported"), never 0.

No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.part_shapes import data_uri_part, provider_part, source_part, thinking_part
from ctxviewer.model.trace import Usage

Message = gm.Message


# ---------------------------------------------------------------- shared helpers


def _str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def int_or_none(value: Any) -> int | None:
    """A reported token count as ``int``; absent, non-numeric or negative -> ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    return n if n >= 0 else None


def usage_at(values: Mapping[str, Any], inp: str, out: str, cache_read: str, cache_write: str,
             reasoning: str) -> Usage:
    """The :class:`Usage` of the five keys of ``values`` that hold input, output, cache-read,
    cache-write and reasoning tokens (each :func:`int_or_none`): one attribute family's names,
    e.g. the OTel GenAI ``gen_ai.usage.*`` or OpenInference's ``llm.token_count.*``."""
    g = values.get
    return Usage(input_tokens=int_or_none(g(inp)), output_tokens=int_or_none(g(out)),
                 cached_input_tokens=int_or_none(g(cache_read)), cache_creation_input_tokens=int_or_none(g(cache_write)),
                 reasoning_tokens=int_or_none(g(reasoning)))


def bad_counts(usage: Any, where: str, *, every_key: bool = False) -> list[str]:
    """Warnings for the token counts of a raw usage object that :func:`int_or_none` drops: a
    value present that is no count (``"many"``, ``-4``) becomes not recorded, and says so --
    ``"usage.cache_read_input_tokens: -2 is not a token count; shown as not recorded"``. Nested
    objects are walked (``prompt_tokens_details``). The keys looked at are those naming tokens
    (``*tokens*``), or every key with ``every_key`` (Langfuse's ``usageDetails``: ``input``,
    ``output``, ...; its ``unit: "TOKENS"`` names no count); ``null`` is not recorded and says nothing."""
    out: list[str] = []
    if not isinstance(usage, Mapping):
        return out
    for key, value in usage.items():
        name = f"{where}.{key}"
        if isinstance(value, Mapping):
            out += bad_counts(value, name, every_key=every_key)
        elif value is not None and key != "unit" and (every_key or "tokens" in str(key)) and int_or_none(value) is None:
            out.append(f"{name}: {value!r} is not a token count; shown as not recorded")
    return out


def usage_warnings(usage: Usage) -> list[str]:
    """Warnings on a normalised usage: reasoning tokens above output tokens, cache above input."""
    out = []
    if usage.reasoning_tokens is not None and usage.output_tokens is not None \
            and usage.reasoning_tokens > usage.output_tokens:
        out.append(f"usage: reasoning tokens ({usage.reasoning_tokens}) exceed output tokens "
                   f"({usage.output_tokens}); both kept as reported")
    if usage.cached_input_tokens is not None and usage.input_tokens is not None \
            and usage.cached_input_tokens > usage.input_tokens:
        out.append(f"usage: cached input tokens ({usage.cached_input_tokens}) exceed input tokens "
                   f"({usage.input_tokens}); both kept as reported")
    return out


# ---------------------------------------------------------------- OpenAI Chat Completions


def openai_part(p: Any) -> dict[str, Any]:
    """One Chat Completions content part as an OTel part (``image_url`` and other providers'
    blocks by :func:`~ctxviewer.importers.common.part_shapes.provider_part`)."""
    if not isinstance(p, Mapping):
        return {"type": "text", "content": "" if p is None else str(p)}
    t = p.get("type")
    if t in ("text", "input_text", "output_text"):
        return {"type": "text", "content": p.get("text", p.get("content")) or ""}
    if t == "input_audio":
        a = p.get("input_audio") or {}
        return {"type": "blob", "modality": "audio", "mime_type": f"audio/{a.get('format') or 'unknown'}",
                "content": a.get("data") or ""}
    if t == "file" and "file" not in p:  # a LangChain file block, not OpenAI's {type: file, file: {...}}
        return provider_part(p) or dict(p)
    if t == "file":
        f = p.get("file") or {}
        if f.get("file_data"):
            part = data_uri_part(str(f["file_data"]), "document")
            if part["type"] == "uri":  # bare base64 without a data: prefix
                part = {"type": "blob", "modality": "document", "mime_type": None, "content": f["file_data"]}
            return part
        return {"type": "file", "modality": "document", "mime_type": None, "file_id": f.get("file_id") or f.get("filename")}
    if t == "refusal":
        return {"type": "text", "content": p.get("refusal") or ""}
    return provider_part(p) or dict(p)  # image_url, and blocks of other providers (thinking)


def openai_message(m: Any) -> Message:
    """A Chat Completions message (request ``messages[]`` or response ``choices[].message``)."""
    if not isinstance(m, Mapping):
        return gm.normalise_message(m)
    role = _str(m.get("role"))
    parts: list[dict[str, Any]] = []
    content = m.get("content")
    if role in ("tool", "function"):
        if isinstance(content, list):
            content = gm.message_text({"parts": [openai_part(c) for c in content]})
        elif content is not None and not isinstance(content, str):
            content = gm.compact_json(content)
        parts.append({"type": "tool_call_response", "id": m.get("tool_call_id") or m.get("name"), "response": content})
    elif isinstance(content, list):
        parts.extend(openai_part(c) for c in content)
    elif content is not None and content != "":
        parts.append({"type": "text", "content": str(content)})
    if m.get("refusal"):
        parts.append({"type": "text", "content": str(m["refusal"])})
    for c in m.get("tool_calls") or []:
        if isinstance(c, Mapping):
            f = c.get("function")
            fn: Mapping[str, Any] = f if isinstance(f, Mapping) else c  # ChatML: {id, name, arguments}
            parts.append({"type": "tool_call", "id": c.get("id"), "name": fn.get("name"),
                          "arguments": fn.get("arguments")})
    fc = m.get("function_call")
    if isinstance(fc, Mapping):
        parts.append({"type": "tool_call", "id": None, "name": fc.get("name"), "arguments": fc.get("arguments")})
    msg: Message = {"role": role, "parts": parts}
    if m.get("name"):
        msg["name"] = m["name"]
    return msg


def openai_chat_usage(u: Any) -> Usage:
    """Chat Completions ``usage`` (``prompt_tokens`` include cached, ``completion_tokens`` include
    reasoning); ``None`` or a non-object -> all not reported. Also accepts the Responses names."""
    if not isinstance(u, Mapping):
        return Usage()
    pd = u.get("prompt_tokens_details") or u.get("input_tokens_details") or {}
    cd = u.get("completion_tokens_details") or u.get("output_tokens_details") or {}
    return Usage(
        input_tokens=int_or_none(u.get("prompt_tokens", u.get("input_tokens"))),
        output_tokens=int_or_none(u.get("completion_tokens", u.get("output_tokens"))),
        cached_input_tokens=int_or_none(pd.get("cached_tokens")) if isinstance(pd, Mapping) else None,
        reasoning_tokens=int_or_none(cd.get("reasoning_tokens")) if isinstance(cd, Mapping) else None,
    )


def openai_tool_definitions(tools: Any) -> list[dict[str, Any]]:
    """``tools[]`` of a Chat Completions or Responses request as definition objects (verbatim)."""
    return [dict(t) for t in tools or [] if isinstance(t, Mapping)]


def assemble_chat_stream(chunks: list[Any]) -> dict[str, Any]:
    """Chat Completions stream chunks (``chat.completion.chunk`` objects, in order) as one
    ChatCompletion-shaped dict: content and tool-call deltas joined per choice, ``usage`` from the
    final chunk with empty ``choices`` (absent -> no ``usage`` key: not reported, never 0)."""
    out: dict[str, Any] = {"choices": []}
    choices: dict[int, dict[str, Any]] = {}
    for ch in chunks:
        if not isinstance(ch, Mapping):
            continue
        for k in ("id", "model", "created", "system_fingerprint"):
            if ch.get(k) is not None:
                out.setdefault(k, ch[k])
        if ch.get("usage"):
            out["usage"] = ch["usage"]
        for c in ch.get("choices") or []:
            i = int(c.get("index") or 0)
            acc = choices.setdefault(i, {"index": i, "message": {"role": "assistant", "content": None},
                                         "finish_reason": None, "_calls": {}})
            d = c.get("delta") or {}
            if d.get("role"):
                acc["message"]["role"] = d["role"]
            if d.get("content"):
                acc["message"]["content"] = (acc["message"]["content"] or "") + d["content"]
            for tc in d.get("tool_calls") or []:
                slot = acc["_calls"].setdefault(int(tc.get("index") or 0),
                                                {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
                if tc.get("id"):
                    slot["id"] = tc["id"]
                fn = tc.get("function") or {}
                slot["function"]["name"] += fn.get("name") or ""
                slot["function"]["arguments"] += fn.get("arguments") or ""
            if c.get("finish_reason"):
                acc["finish_reason"] = c["finish_reason"]
    for i in sorted(choices):
        acc = choices[i]
        calls = acc.pop("_calls")
        if calls:
            acc["message"]["tool_calls"] = [calls[k] for k in sorted(calls)]
        out["choices"].append(acc)
    return out


# ---------------------------------------------------------------- Anthropic Messages


def anthropic_block(b: Any) -> dict[str, Any]:
    """One Anthropic content block as an OTel part."""
    if not isinstance(b, Mapping):
        return {"type": "text", "content": "" if b is None else str(b)}
    t = b.get("type")
    if t == "text":
        return {"type": "text", "content": b.get("text") or ""}
    if t in ("image", "document"):
        return source_part(b.get("source"), "image" if t == "image" else "document")
    if t in ("tool_use", "server_tool_use"):
        return {"type": "tool_call", "id": b.get("id"), "name": b.get("name"), "arguments": b.get("input")}
    if t == "tool_result":
        c = b.get("content")
        resp = c if isinstance(c, str) or c is None else gm.message_text({"parts": [anthropic_block(x) for x in c]})
        part = {"type": "tool_call_response", "id": b.get("tool_use_id"), "response": resp}
        if b.get("is_error"):
            part["is_error"] = True
        return part
    if t in ("thinking", "redacted_thinking"):
        return thinking_part(b)
    return dict(b)


def anthropic_message(m: Any) -> Message:
    """An Anthropic ``messages[]`` entry (or a response) as a normalised message. A user message
    holding only ``tool_result`` blocks keeps role ``user`` (as sent)."""
    if not isinstance(m, Mapping):
        return gm.normalise_message(m)
    c = m.get("content")
    if isinstance(c, list):
        blocks = c
    elif isinstance(c, Mapping):  # one block not in a list: read as that block (never its Python repr)
        blocks = [c]
    else:
        blocks = [] if c in (None, "") else [{"type": "text", "text": c if isinstance(c, str) else gm.compact_json(c)}]
    return {"role": _str(m.get("role")), "parts": [anthropic_block(b) for b in blocks]}


def anthropic_system(system: Any) -> list[dict[str, Any]] | None:
    """Anthropic ``system`` (a string or text blocks) as system-instruction parts; ``None`` if absent."""
    if system is None or system == "":
        return None
    if isinstance(system, str):
        return [{"type": "text", "content": system}]
    if isinstance(system, list):
        return [anthropic_block(b) for b in system]
    return [{"type": "text", "content": str(system)}]


def anthropic_usage(u: Any) -> Usage:
    """Anthropic ``usage``: normalised input = ``input_tokens`` + ``cache_read_input_tokens`` +
    ``cache_creation_input_tokens`` (the raw ``input_tokens`` excludes both)."""
    if not isinstance(u, Mapping):
        return Usage()
    raw_in = int_or_none(u.get("input_tokens"))
    read = int_or_none(u.get("cache_read_input_tokens"))
    create = int_or_none(u.get("cache_creation_input_tokens"))
    total_in = None if raw_in is None else raw_in + (read or 0) + (create or 0)
    return Usage(input_tokens=total_in, output_tokens=int_or_none(u.get("output_tokens")),
                 cached_input_tokens=read, cache_creation_input_tokens=create)


# ---------------------------------------------------------------- OpenAI Responses


def _responses_content(c: Any) -> list[dict[str, Any]]:
    if isinstance(c, str):
        return [{"type": "text", "content": c}]
    parts = []
    for p in c or []:
        t = p.get("type") if isinstance(p, Mapping) else None
        if t == "input_image":
            parts.append(provider_part(p) or {})
        elif t == "input_file":
            if p.get("file_data"):
                parts.append(data_uri_part(str(p["file_data"]), "document"))
            else:
                parts.append({"type": "file", "modality": "document", "mime_type": None,
                              "file_id": p.get("file_id") or p.get("filename")})
        else:
            parts.append(openai_part(p))
    return parts


def _reasoning_text(item: Mapping[str, Any]) -> str:
    texts = [s.get("text") or "" for s in item.get("summary") or [] if isinstance(s, Mapping)]
    texts += [s.get("text") or "" for s in item.get("content") or [] if isinstance(s, Mapping)]
    return "\n".join(t for t in texts if t)


def responses_item(item: Any) -> Message:
    """One Responses API input or output item as a normalised message."""
    if not isinstance(item, Mapping):
        return gm.normalise_message(item)
    t = item.get("type")
    if t == "function_call" or t == "custom_tool_call":
        return {"role": "assistant", "parts": [{"type": "tool_call", "id": item.get("call_id") or item.get("id"),
                                                "name": item.get("name"),
                                                "arguments": item.get("arguments", item.get("input"))}]}
    if t in ("function_call_output", "custom_tool_call_output"):
        out = item.get("output")
        return {"role": "tool", "parts": [{"type": "tool_call_response", "id": item.get("call_id"),
                                           "response": out if isinstance(out, str) else gm.compact_json(out)}]}
    if t == "reasoning":
        return {"role": "assistant", "parts": [{"type": "reasoning", "content": _reasoning_text(item),
                                                "encrypted": bool(item.get("encrypted_content"))}]}
    if t == "message" or (t is None and "role" in item):
        return {"role": _str(item.get("role")), "parts": _responses_content(item.get("content"))}
    return {"role": "assistant", "parts": [dict(item)]}


def responses_input(instructions: Any, value: Any) -> tuple[list[dict[str, Any]] | None, list[Message]]:
    """Responses request ``instructions`` (system-instruction parts or ``None``) and ``input``
    (a string = one user message, or items) as messages in order."""
    system = [{"type": "text", "content": str(instructions)}] if instructions not in (None, "") else None
    if isinstance(value, str):
        return system, [{"role": "user", "parts": [{"type": "text", "content": value}]}]
    return system, [responses_item(i) for i in value or []]


def responses_output(output: Any) -> Message:
    """Responses ``output[]`` as one assistant message: reasoning, text and tool-call parts in order."""
    parts: list[dict[str, Any]] = []
    for item in output or []:
        parts.extend(responses_item(item)["parts"])
    return {"role": "assistant", "parts": parts}


def json_body(value: Any) -> Any:
    """An HTTP body as JSON: a JSON string parsed, bytes decoded first; other values unchanged;
    a string that is not JSON is returned unchanged."""
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
