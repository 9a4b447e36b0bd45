"""An item's content tokens by its endpoint's rule, where the stored text renders what was sent.

The importers store a tool definition as its JSON object (``{"type":"function","function":{...}}``,
or the bare function, or Anthropic's ``input_schema`` form, or the Vercel AI SDK v5 ``inputSchema``
form) and an assistant turn's tool calls as
one JSON line per call (``{"type":"tool_call","id":...,"name":...,"arguments":...}``,
:func:`ctxviewer.importers.common.messages.part_text`). Neither JSON is what the endpoint
tokenises: by the endpoint's rule (:mod:`ctxviewer.tokens.request_accounting`, the OpenAI cookbook
rule) a definition costs the tokens of its ``name:description`` and property lines (its overhead
constants are the profile's, counted apart as tool overhead), and a call costs the tokens of its
name and of its arguments as sent.

:func:`content_tokens` gives that count for such texts and the plain token count for any other,
so ``ctxviewer tokens`` on a request body, the item counts an import stores and the accounting
breakdown (:func:`ctxviewer.assess.breakdown.breakdown`) add up to the same total (new-user
finding F13: 181, 223 and 284 tokens for one request before). No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxviewer.tokens.counting import count_text

TOOL_CALL_PREFIX = '{"type":"tool_call"'
"""How a stored tool-call line starts (the importers write it with compact separators)."""


def tool_call_of(line: str) -> dict[str, Any] | None:
    """The tool call a stored line holds (``{"type": "tool_call", "name": str, ...}``), else ``None``."""
    if not line.startswith(TOOL_CALL_PREFIX):
        return None
    try:
        d = json.loads(line)
    except ValueError:
        return None
    return d if isinstance(d, dict) and d.get("type") == "tool_call" and isinstance(d.get("name"), str) else None


SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema")
"""The keys a tool definition holds its parameters JSON Schema under: OpenAI's ``parameters``,
Anthropic's ``input_schema``, the Vercel AI SDK v5's ``inputSchema`` (``ai.prompt.tools``)."""


def parameters_schema(fn: Mapping[str, Any]) -> Any:
    """The parameters schema of one function definition ``fn`` (the first of :data:`SCHEMA_KEYS`
    it holds that is not ``None``; any JSON value, not checked), else ``None``."""
    return next((fn[k] for k in SCHEMA_KEYS if fn.get(k) is not None), None)


def function_of(obj: Any) -> tuple[str, str, Mapping[str, Any]] | None:
    """``(name, description, parameters schema)`` of one tool definition object -- OpenAI's
    ``{"type": "function", "function": {...}}``, a bare function or legacy ``functions`` entry,
    Anthropic's ``{"name", "description", "input_schema"}`` or the AI SDK's ``inputSchema`` form
    (:func:`parameters_schema`) -- else ``None`` (no string name)."""
    if not isinstance(obj, Mapping):
        return None
    fn = obj.get("function", obj) if obj.get("type", "function") == "function" else obj
    if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
        return None
    params = parameters_schema(fn) or {}
    return fn["name"], str(fn.get("description") or ""), params if isinstance(params, Mapping) else {}


def definition_of(text: str | None) -> tuple[str, str, Mapping[str, Any]] | None:
    """:func:`function_of` the JSON object ``text`` holds as a whole, else ``None``."""
    if not text or not text.lstrip().startswith("{"):
        return None
    try:
        return function_of(json.loads(text))
    except ValueError:
        return None


def strip_period(s: str) -> str:
    """``s`` without one trailing full stop (the cookbook rule drops it from descriptions)."""
    return s[:-1] if s.endswith(".") else s


def properties_of(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``properties`` object of a parameters schema; ``{}`` when it is absent or not an object
    (a list or a string there is no JSON Schema, and the rule counts no property of it)."""
    props = params.get("properties")
    return props if isinstance(props, Mapping) else {}


def enum_of(spec: Any) -> list[Any] | None:
    """A property's ``enum`` values as a list (a single value stands for itself), ``None`` when
    the property has no ``enum``."""
    if not isinstance(spec, Mapping) or "enum" not in spec:
        return None
    values = spec["enum"]
    if values is None:
        return []
    return list(values) if isinstance(values, (list, tuple)) else [values]


def definition_lines(name: str, desc: str, params: Mapping[str, Any]) -> list[str]:
    """The texts the endpoint's rule counts for one tool definition, in order: ``name:description``,
    each enum value, then ``key:type:description`` per property (a property's enum values come
    before its line). Tokens of these texts are the definition's *content*. A ``properties`` or
    ``enum`` of another shape than the schema's counts as :func:`properties_of` / :func:`enum_of` say."""
    out = [f"{name}:{strip_period(desc)}"]
    for key, spec in properties_of(params).items():
        out += [str(v) for v in enum_of(spec) or ()]
        spec = spec if isinstance(spec, Mapping) else {}
        typ = spec.get("type", "")
        typ = ",".join(map(str, typ)) if isinstance(typ, list) else str(typ)
        out.append(f"{key}:{typ}:{strip_period(str(spec.get('description') or ''))}")
    return out


def call_texts(call: Mapping[str, Any]) -> tuple[str, str]:
    """``(name, arguments)`` of one tool call as the rule counts them: the arguments as sent when
    they are a string, else their JSON with non-ASCII text as itself and ``", "`` / ``": "``
    separators. The stored call line keeps the arguments parsed, so the white space they were sent
    with is not recorded: these separators are how Python's ``json.dumps`` writes them, as the
    recorded requests of the corpus hold them (``{"city": "New York"}``); a model's own compact
    arguments count a token or two less."""
    args = call.get("arguments")
    if args is None:
        args = ""
    elif not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return str(call.get("name", "")), args


_DEFINITIONS: dict[tuple[str, str], int] = {}
"""(definition JSON, encoding) -> content tokens: the same definitions recur in every call of an agent."""
CACHE_CHARS = 20_000
"""Definitions up to this many characters are cached, at most :data:`CACHE_ENTRIES` of them."""
CACHE_ENTRIES = 4_096


def content_tokens(text: str, encoding: str, definition: bool = False) -> int:
    """Content tokens of one item's stored ``text`` under ``encoding`` (a tiktoken name).

    ``definition``: the item is a tool definition (kind ``tool``, not a tool result); a text that
    is a definition's JSON counts its :func:`definition_lines`. A text with stored tool-call lines
    counts each call's name and arguments (:func:`call_texts`) plus its other lines as text. Any
    other text counts as itself. Raises ``UnknownEncodingError`` like
    :func:`ctxviewer.tokens.counting.count_text`.
    """
    if definition:
        hit = _DEFINITIONS.get((text, encoding))
        if hit is not None:
            return hit
        if (fn := definition_of(text)) is not None:
            n = sum(count_text(line, encoding).tokens for line in definition_lines(*fn))
            if len(text) <= CACHE_CHARS:
                if len(_DEFINITIONS) >= CACHE_ENTRIES:
                    _DEFINITIONS.clear()
                _DEFINITIONS[(text, encoding)] = n
            return n
    if TOOL_CALL_PREFIX not in text:
        return count_text(text, encoding).tokens
    lines = text.split("\n")
    calls = [c for c in map(tool_call_of, lines) if c is not None]
    if not calls:
        return count_text(text, encoding).tokens
    rest = "\n".join(line for line in lines if tool_call_of(line) is None)
    n = count_text(rest, encoding).tokens if rest else 0
    for call in calls:
        name, args = call_texts(call)
        n += count_text(name, encoding).tokens + count_text(args, encoding).tokens
    return n


def is_rendered(text: str | None, definition: bool = False) -> bool:
    """True when :func:`content_tokens` counts ``text`` by the rule rather than as itself (a tool
    definition's JSON, or a text with a stored tool-call line)."""
    if not text:
        return False
    if definition and definition_of(text) is not None:
        return True
    return TOOL_CALL_PREFIX in text and any(tool_call_of(line) is not None for line in text.split("\n"))
