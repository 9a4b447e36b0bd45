"""Google ADK's own model-call spans read as OTel GenAI chat spans.

ADK (adk-python ``telemetry.py``, ``trace_call_llm``) records each model call as a ``call_llm``
span with ``gen_ai.system = "gcp.vertex.agent"`` and ``gen_ai.request.model``, but no
``gen_ai.operation.name`` and no GenAI messages: the request and the response are whole JSON
documents, ``gcp.vertex.agent.llm_request`` (``{model, config: {system_instruction, tools:
[{function_declarations}]}, contents: [Content]}``) and ``gcp.vertex.agent.llm_response``
(``{content: Content, usage_metadata, finish_reason}``), in google-genai's snake_case. Its
``execute_tool`` spans already follow the GenAI convention. :func:`as_chat_span` gives such a
span the GenAI attributes the mapping reads -- ``gen_ai.operation.name`` ``chat``,
``gen_ai.system_instructions``, ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (Gemini
parts converted by :func:`~ctxviewer.importers.common.foreign_parts.gemini_part`; role ``model``
is ``assistant``), ``gen_ai.tool.definitions`` and, when the span records no ``gen_ai.usage.*``,
the usage from ``usage_metadata`` -- and drops the two documents (their content is in the items);
everything else is kept. A document that does not parse leaves the span as it was (the import
then names it as a model call it does not read).

Content capture: ADK writes the two documents unless its own switch
``ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS`` is ``false`` or ``0`` (on by default; adk-python
``telemetry/tracing.py``, ``_should_add_request_response_to_spans``); then it sets them to an
empty map, which the OTel SDK drops (an attribute value cannot be a map) or an exporter writes as
``{}``. Such a span (``gen_ai.system = "gcp.vertex.agent"`` with a ``gen_ai.request.model``) is
still a model call, with its content not captured: :data:`NOT_CAPTURED` names ADK's switch, not
OpenTelemetry's ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (which, with
``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``, governs only the GenAI log events newer
ADK emits beside the span, ``telemetry/_experimental_semconv.py``; joined from a logs file they
give the call its content). No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Mapping

from ctxviewer.importers.common.foreign_parts import gemini_part
from ctxviewer.importers.common.spans.span import Span

REQUEST = "gcp.vertex.agent.llm_request"
RESPONSE = "gcp.vertex.agent.llm_response"
SYSTEM = "gcp.vertex.agent"
"""ADK's ``gen_ai.system`` on its ``call_llm`` spans (``trace_call_llm``)."""

NOT_CAPTURED = ("no message content captured on this span (Google ADK leaves it out when "
                "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS is false or 0; it is on by default)")
"""The warning for an ADK ``call_llm`` span that records no request content (module docstring)."""


def is_adk_call(attributes: Mapping[str, Any]) -> bool:
    """Whether ``attributes`` are those of an ADK ``call_llm`` span: ``gen_ai.system`` is
    :data:`SYSTEM` and ``gen_ai.request.model`` is recorded (``trace_call_llm`` sets both)."""
    return attributes.get("gen_ai.system") == SYSTEM and bool(attributes.get("gen_ai.request.model"))


def _doc(value: Any) -> dict[str, Any] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _message(content: Any, role: str | None = None) -> dict[str, Any] | None:
    if not isinstance(content, Mapping):
        return None
    parts = []
    for p in content.get("parts") or []:
        if isinstance(p, Mapping):
            part = gemini_part(p)
            parts.append(part if part is not None else {"type": "text", "content": json.dumps(p, ensure_ascii=False)})
    who = str(role or content.get("role") or "user")
    return {"role": "assistant" if who == "model" else who, "parts": parts}


def _system(config: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    si = config.get("system_instruction", config.get("systemInstruction"))
    if isinstance(si, str):
        return [{"type": "text", "content": si}]
    msg = _message(si)
    return msg["parts"] if msg else None


def _tools(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for tool in config.get("tools") or []:
        decls = tool.get("function_declarations", tool.get("functionDeclarations")) if isinstance(tool, Mapping) else None
        for d in decls or []:
            if isinstance(d, Mapping) and d.get("name"):
                out.append({"type": "function", "name": d["name"], "description": d.get("description"),
                            "parameters": d.get("parameters", d.get("parameters_json_schema"))})
    return out


def as_chat_span(span: Span) -> Span:
    """``span`` with the GenAI attributes of its ADK documents (module docstring) when it is an ADK
    ``call_llm`` span whose request parses; else ``span`` itself."""
    a = span.attributes
    if "gen_ai.operation.name" in a or "gen_ai.input.messages" in a:
        return span
    request = _doc(a.get(REQUEST))
    if request is None and REQUEST not in a and is_adk_call(a):  # capture off: the SDK dropped the empty map
        request = {}
    if request is None or not isinstance(request.get("contents", []), list):
        return span
    raw = request.get("config")
    config: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    attrs = {k: v for k, v in a.items() if k not in (REQUEST, RESPONSE)}
    attrs["gen_ai.operation.name"] = "chat"
    messages = [m for m in (_message(c) for c in request.get("contents") or []) if m is not None]
    if messages:  # ADK with content capture off writes llm_request '{}': no input, said as not captured
        attrs["gen_ai.input.messages"] = json.dumps(messages, ensure_ascii=False)
    system = _system(config)
    if system:
        attrs["gen_ai.system_instructions"] = json.dumps(system, ensure_ascii=False)
    tools = _tools(config)
    if tools:
        attrs["gen_ai.tool.definitions"] = json.dumps(tools, ensure_ascii=False)
    response = _doc(a.get(RESPONSE))
    if response is not None:
        out = _message(response.get("content"), "assistant")
        if out is not None:
            if response.get("finish_reason"):
                out["finish_reason"] = str(response["finish_reason"]).lower()
            attrs["gen_ai.output.messages"] = json.dumps([out], ensure_ascii=False)
        meta = response.get("usage_metadata")
        usage: Mapping[str, Any] = meta if isinstance(meta, Mapping) else {}
        for key, attr in (("prompt_token_count", "gen_ai.usage.input_tokens"),
                          ("candidates_token_count", "gen_ai.usage.output_tokens")):
            if isinstance(usage.get(key), int) and attr not in attrs:
                attrs[attr] = usage[key]
    return replace(span, attributes=attrs)
