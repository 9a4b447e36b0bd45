"""Logfire's OpenAI and Anthropic spans from before it wrote the GenAI conventions, read as chat spans.

Logfire's ``instrument_openai`` / ``instrument_anthropic`` recorded a model call as one span with
``gen_ai.system`` (``openai`` / ``anthropic``), ``gen_ai.request.model``, ``logfire.msg_template``
(``Chat Completion with {request_data[model]!r}``, ``Message with {request_data[model]!r}``) and
two JSON documents: ``request_data``, the provider's request body (Chat Completions ``{model,
messages, tools, ...}``, Anthropic Messages ``{model, system, messages, tools, ...}``), and
``response_data``, ``{message, usage}`` (the response's message and its usage; a stream gives
``{combined_chunk_content, chunk_count}``). Newer Logfire writes ``gen_ai.operation.name`` and
``gen_ai.input.messages`` beside them; such a span is read by the mapping as it is.

:func:`as_chat_span` gives a legacy span the GenAI attributes the mapping reads --
``gen_ai.operation.name`` ``chat``, ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (the
provider messages normalised by :mod:`ctxviewer.importers.common.provider_messages`),
``gen_ai.system_instructions`` (Anthropic's ``system``), ``gen_ai.tool.definitions`` and, when the
span records no ``gen_ai.usage.*``, the usage of ``response_data`` -- and drops the two documents
(their content is in the items); every other attribute is kept. Logfire's embeddings and image
calls (no ``messages``) and a document that does not parse leave the span as it was (the import
then names it as a model call it does not read). No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Mapping

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.model.trace import Usage

REQUEST = "request_data"
RESPONSE = "response_data"
TEMPLATE = "logfire.msg_template"
"""Logfire's message template: every span Logfire writes has one, so ``request_data`` of another
program's span is never taken for a provider body."""

_USAGE_ATTRS = (("input_tokens", "gen_ai.usage.input_tokens"), ("output_tokens", "gen_ai.usage.output_tokens"),
                ("cached_input_tokens", "gen_ai.usage.cache_read.input_tokens"),
                ("cache_creation_input_tokens", "gen_ai.usage.cache_creation.input_tokens"),
                ("reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"))
""":class:`~ctxviewer.model.trace.Usage` fields and the OTel GenAI usage attributes they become (tokens)."""


_REQUEST_ATTRS = (("model", "gen_ai.request.model"), ("max_tokens", "gen_ai.request.max_tokens"),
                  ("max_completion_tokens", "gen_ai.request.max_tokens"), ("temperature", "gen_ai.request.temperature"),
                  ("top_p", "gen_ai.request.top_p"), ("seed", "gen_ai.request.seed"))
"""Request body fields and the OTel GenAI request attributes they become (``max_tokens``: the
reserved output tokens B_out, tokens), set only where the span records no such attribute."""


def _doc(value: Any) -> dict[str, Any] | None:
    doc = pm.json_body(value)  # a JSON string parsed; anything else as it is
    return doc if isinstance(doc, dict) else None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def as_chat_span(span: Span) -> Span:
    """``span`` with the GenAI attributes of its Logfire documents (module docstring) when it is a
    legacy Logfire chat span (``logfire.msg_template`` recorded, no ``gen_ai.operation.name`` or
    ``gen_ai.input.messages``, ``request_data`` with a ``messages`` list); else ``span`` itself."""
    a = span.attributes
    if TEMPLATE not in a or "gen_ai.operation.name" in a or "gen_ai.input.messages" in a:
        return span
    request = _doc(a.get(REQUEST))
    if request is None or not isinstance(request.get("messages"), list):
        return span
    anthropic = a.get("gen_ai.system") == "anthropic"
    read = pm.anthropic_message if anthropic else pm.openai_message
    attrs = {k: v for k, v in a.items() if k not in (REQUEST, RESPONSE)}
    attrs["gen_ai.operation.name"] = "chat"
    attrs["gen_ai.input.messages"] = _dumps([read(m) for m in request["messages"]])
    system = pm.anthropic_system(request.get("system")) if anthropic else None
    if system:
        attrs["gen_ai.system_instructions"] = _dumps(system)
    tools = pm.openai_tool_definitions(request.get("tools"))
    if tools:
        attrs["gen_ai.tool.definitions"] = _dumps(tools)
    for key, attr in _REQUEST_ATTRS:
        if request.get(key) is not None and attr not in attrs:
            attrs[attr] = request[key]
    response = _doc(a.get(RESPONSE)) or {}
    message = response.get("message")
    if isinstance(message, Mapping):
        out = read({"role": "assistant", **message})
        stop = message.get("stop_reason") if anthropic else None
        if stop:
            out["finish_reason"] = str(stop)
        attrs["gen_ai.output.messages"] = _dumps([out])
    elif isinstance(response.get("combined_chunk_content"), str):  # a stream: its text joined by Logfire
        attrs["gen_ai.output.messages"] = _dumps([{"role": "assistant", "parts": [
            {"type": "text", "content": response["combined_chunk_content"]}]}])
    usage: Usage = (pm.anthropic_usage if anthropic else pm.openai_chat_usage)(response.get("usage"))
    if not any(k.startswith("gen_ai.usage.") for k in attrs):
        for field, attr in _USAGE_ATTRS:
            value = getattr(usage, field)
            if value is not None:
                attrs[attr] = value
    return replace(span, attributes=attrs)
