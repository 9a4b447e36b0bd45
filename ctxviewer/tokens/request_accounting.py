"""Count a raw chat request the way its endpoint counts it (chapter 3.3 ``count_tokens``).

Accepts OpenAI-shaped requests (``messages`` with ``role``/``content``/``name``/``tool_calls``,
``tools`` or legacy ``functions``) and Anthropic-shaped ones (top-level ``system``, content blocks
``text``/``image``/``tool_use``/``tool_result``, ``tools`` with ``input_schema``).

The rule (OpenAI cookbook "How to count tokens with tiktoken", constants from the endpoint
profile): each message costs ``tokens_per_message`` plus its role's tokens plus ``tokens_per_name``
and the name's tokens when named (all *framing*), plus its content's tokens (*content*); the request
adds ``reply_priming`` once (framing). Tool definitions cost, per function, ``func_init`` plus the
tokens of ``name:description`` (a trailing period dropped), ``prop_init`` when it has properties,
and per property ``prop_key`` plus the tokens of ``key:type:description`` (and ``enum_init`` plus
``enum_item`` and the tokens of each enum value); ``func_end`` once. The text parts are the tools'
*content*, the constants their *overhead*. ``total = content + framing + tools`` always.

Assistant messages with ``tool_calls`` and ``content: null`` count each call's function name and
arguments; image parts count by :mod:`.images`; special-token text counts as plain text; texts over
:data:`ctxviewer.tokens.counting.CHUNK_CHARS` are counted in chunks and marked. No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Sequence

from ctxviewer.tokens.counting import count_text
from ctxviewer.tokens.images import count_image, image_from_url, size_of_base64
from ctxviewer.tokens.item_rule import call_texts, definition_lines, enum_of, function_of, properties_of
from ctxviewer.tokens.profiles import Profile, Resolution, resolve


class RequestShapeError(ValueError):
    """The request is not a chat request this counter understands; the message names the field."""


@dataclass(frozen=True)
class ItemCount:
    """One message (or the Anthropic top-level system prompt) of a request. Tokens."""

    index: int
    """0-based position in the counted request (the Anthropic ``system`` is item 0)."""
    role: str
    category: str
    """eq. 3.1 category: ``sys`` (system/developer), ``user`` (the last user message), ``hist``
    (earlier turns, assistant messages, tool results)."""
    content: int
    """Tokens of the message's content (text, tool-call names and arguments, images)."""
    framing: int
    """Tokens the template adds for this message (per-message tokens, role, name)."""
    notes: tuple[str, ...] = ()
    """What was special, e.g. ``"counted in chunks"``, an image's rule."""


@dataclass(frozen=True)
class ToolCount:
    """One tool definition's tokens: ``content`` (its text lines) and ``overhead`` (the constants)."""

    name: str
    content: int
    overhead: int


@dataclass(frozen=True)
class RequestCount:
    """The counted request. ``total == sum(content) + framing + tools`` (tokens)."""

    items: tuple[ItemCount, ...]
    tool_defs: tuple[ToolCount, ...]
    reply_priming: int
    resolution: Resolution
    notes: tuple[str, ...] = field(default=())

    @property
    def content(self) -> int:
        """Content tokens of all messages."""
        return sum(i.content for i in self.items)

    @property
    def framing(self) -> int:
        """Framing overhead: every message's framing plus the reply priming."""
        return sum(i.framing for i in self.items) + self.reply_priming

    @property
    def tools(self) -> int:
        """Tool-definition tokens: text plus overhead, including ``func_end`` once."""
        if not self.tool_defs:
            return 0
        return sum(t.content + t.overhead for t in self.tool_defs) + self.resolution.profile.tools.func_end

    @property
    def total(self) -> int:
        """The counted input tokens of the request."""
        return self.content + self.framing + self.tools

    def by_category(self) -> dict[str, int]:
        """Content tokens per eq. 3.1 category (``sys``, ``hist``, ``user``, ``tools``)."""
        out: dict[str, int] = {}
        for it in self.items:
            out[it.category] = out.get(it.category, 0) + it.content
        if self.tool_defs:
            out["tools"] = sum(t.content for t in self.tool_defs)
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``ctxviewer tokens --json`` object: ``total, framing, tools, encoding, assumed, items``."""
        return {
            "total": self.total,
            "framing": self.framing,
            "tools": self.tools,
            "encoding": self.resolution.encoding,
            "assumed": self.resolution.assumed,
            "estimate": self.resolution.profile.estimate,
            "profile": self.resolution.profile.name,
            "items": [
                {"index": i.index, "role": i.role, "category": i.category, "content": i.content,
                 "framing": i.framing, "notes": list(i.notes)}
                for i in self.items
            ],
            "tool_definitions": [{"name": t.name, "content": t.content, "overhead": t.overhead}
                                 for t in self.tool_defs],
            "notes": list(self.notes),
        }


class Counter:
    """Counts texts under one profile and encoding, noting images and chunked texts (one request)."""

    def __init__(self, profile: Profile, encoding: str) -> None:
        self.profile, self.encoding = profile, encoding
        self.notes: list[str] = []
        self.chunked = False

    def text(self, s: str) -> int:
        c = count_text(s, self.encoding)
        self.chunked = self.chunked or c.chunked
        return c.tokens

    def part(self, part: Any, where: str) -> int:
        if isinstance(part, str):
            return self.text(part)
        if not isinstance(part, Mapping):
            raise RequestShapeError(f"{where}: a content part must be an object or a string")
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            return self.text(str(part.get("text") or ""))
        if kind == "image_url":
            img = part.get("image_url") or {}
            url = img if isinstance(img, str) else str(img.get("url", ""))
            detail = None if isinstance(img, str) else img.get("detail")
            ic = count_image(self.profile.image, image_from_url(url), detail)
            self.notes.append(ic.note)
            return ic.tokens
        if kind == "image":  # Anthropic
            src = part.get("source") or {}
            size = size_of_base64(str(src.get("data", ""))) if src.get("type") == "base64" else None
            ic = count_image(self.profile.image, size, None)
            self.notes.append(ic.note)
            return ic.tokens
        if kind == "tool_use":  # Anthropic assistant tool call: name + arguments
            return sum(map(self.text, call_texts({"name": part.get("name", ""), "arguments": part.get("input", {})})))
        if kind == "tool_result":
            return self.content(part.get("content"), where)
        self.notes.append(f"{where}: part type {kind!r} counted as its JSON text")
        return self.text(json.dumps(part))

    def content(self, content: Any, where: str) -> int:
        if content is None:
            return 0
        if isinstance(content, str):
            return self.text(content)
        if isinstance(content, list):
            return sum(self.part(p, f"{where}[{k}]") for k, p in enumerate(content))
        raise RequestShapeError(f"{where}: content must be a string, a list of parts or null")

    def message(self, index: int, msg: Any, category: str) -> ItemCount:
        where = f"messages[{index}]"
        if not isinstance(msg, Mapping) or "role" not in msg:
            raise RequestShapeError(f"{where}: a message must be an object with a 'role'")
        fr = self.profile.framing
        self.notes, self.chunked = [], False
        role = str(msg["role"])
        framing = fr.tokens_per_message + self.text(role)
        if msg.get("name"):
            framing += fr.tokens_per_name + self.text(str(msg["name"]))
        content = self.content(msg.get("content"), f"{where}.content")
        for call in msg.get("tool_calls") or ():
            fn = call.get("function", {}) if isinstance(call, Mapping) else {}
            content += sum(map(self.text, call_texts(fn if isinstance(fn, Mapping) else {})))
        if isinstance(msg.get("function_call"), Mapping):
            content += sum(map(self.text, call_texts(msg["function_call"])))
        notes = list(self.notes) + (["counted in chunks"] if self.chunked else [])
        return ItemCount(index, role, category, content, framing, tuple(notes))


def _tool_defs(request: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any], str]]:
    """``(name, description, parameters, JSON text)`` of each tool definition of ``request``."""
    out = []
    for k, t in enumerate(list(request.get("tools") or ()) + list(request.get("functions") or ())):
        if not isinstance(t, Mapping):
            raise RequestShapeError(f"tools[{k}]: a tool must be an object")
        fn = function_of(t) or (str(t.get("name", "")), str(t.get("description") or ""), {})
        out.append((*fn, json.dumps(t, separators=(",", ":"), ensure_ascii=False)))
    return out


def count_tool(c: Counter, name: str, desc: str, params: Mapping[str, Any], text: str | None = None) -> ToolCount:
    """One tool definition by the profile's tool rule: ``content`` the tokens of its
    :func:`ctxviewer.tokens.item_rule.definition_lines` (of its JSON ``text`` instead when the rule's
    ``definition`` is ``"json"`` and ``text`` is given), ``overhead`` ``func_init``, plus
    ``prop_init`` when it has properties, ``prop_key`` per property and ``enum_init`` +
    ``enum_item`` per enum value (``func_end`` is the request's, once). Tokens."""
    rule = c.profile.tools
    if rule.definition == "json" and text is not None:
        content = c.text(text)
    else:
        content = sum(c.text(line) for line in definition_lines(name, desc, params))
    overhead = rule.func_init
    props = properties_of(params)
    if props:
        overhead += rule.prop_init
        for spec in props.values():
            overhead += rule.prop_key
            if (values := enum_of(spec)) is not None:
                overhead += rule.enum_init + rule.enum_item * len(values)
    return ToolCount(name, content, overhead)


def count_request(
    request: Mapping[str, Any], model: str | None = None, encoding: str | None = None
) -> RequestCount:
    """Count ``request`` by its endpoint's rule (see the module docstring).

    ``model`` defaults to the request's ``model`` field; ``encoding`` overrides the profile's.
    Raises :class:`RequestShapeError` naming the field when the request is not a chat request, and
    :class:`~ctxviewer.tokens.counting.UnknownEncodingError` for an encoding not available offline.
    """
    if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
        raise RequestShapeError("the request has no 'messages' list")
    res = resolve(model or request.get("model"), encoding)
    c = Counter(res.profile, res.encoding)
    messages: list[Any] = list(request["messages"])
    system = request.get("system")
    if system is not None:  # Anthropic: the system prompt is a top-level field
        messages.insert(0, {"role": "system", "content": system})
    last_user = max((k for k, m in enumerate(messages) if isinstance(m, Mapping) and m.get("role") == "user"),
                    default=-1)
    items = []
    for k, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, Mapping) else None
        cat = "sys" if role in ("system", "developer") else "user" if k == last_user else "hist"
        items.append(c.message(k, msg, cat))
    tools = tuple(count_tool(c, *t) for t in _tool_defs(request))
    notes = []
    if res.assumed:
        notes.append(res.reason)
    if res.profile.estimate:
        notes.append(f"{res.encoding} is not {res.profile.provider}'s tokenizer: a cross-vendor estimate; "
                     "prefer the provider-reported usage")
    return RequestCount(tuple(items), tools, res.profile.framing.reply_priming, res, tuple(notes))


def count_messages(messages: Sequence[Mapping[str, Any]], model: str | None = None,
                   encoding: str | None = None) -> int:
    """Total input tokens of ``messages`` on ``model`` (no tools); see :func:`count_request`."""
    return count_request({"messages": list(messages)}, model, encoding).total
