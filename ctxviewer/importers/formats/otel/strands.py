"""Strands Agents' spans: their Bedrock content blocks and event shapes read as the GenAI events :mod:`.events` folds.

Strands (``strands-agents``, ``src/strands/telemetry/tracer.py``; instrumentation scope
``strands.telemetry.tracer``; ``gen_ai.system`` -- with the latest conventions
``gen_ai.provider.name`` -- ``strands-agents``) writes each message of a model call
(``Model invoke`` / ``chat`` span, ``gen_ai.operation.name`` ``chat``) as a span event whose
``content`` attribute is the JSON of the message's Bedrock Converse content blocks
(``[{"text": ...}]``, ``[{"toolUse": {...}}]``, ``[{"toolResult": {...}}]``), and the answer as
a ``gen_ai.choice`` event ``{finish_reason, message}`` whose ``message`` is the JSON of the
answer's blocks (an ``invoke_agent`` span's: the answer's text). The blocks themselves become
parts by :func:`~ctxviewer.importers.common.bedrock_parts.bedrock_part` wherever they occur;
:func:`as_standard_events` makes the shapes around them the semconv 1.28 - 1.36 ones:

* ``gen_ai.choice``'s ``message`` (blocks or text) -> ``{role: "assistant", content}``, so the
  response text and the proposed tool calls (``toolUse``) are read;
* a ``gen_ai.tool.message`` holding only ``toolResult`` blocks (Strands names a message of tool
  results so, whatever its role; the Converse message is a ``user`` one) -> read as the user
  message it is, whose tool results make it a tool result (history, role ``tool``), never the
  user request (:mod:`ctxviewer.importers.common.llm_call`);
* with ``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`` Strands writes
  ``gen_ai.client.inference.operation.details`` events with ``gen_ai.input.messages`` /
  ``gen_ai.output.messages`` in OTel parts, except that a ``tool_call_response``'s ``response``
  is the result's blocks (``[{"text": ...}]``: -> their text) and a block of another kind is
  ``{type: KEY, content: VALUE}`` (``image``, ``document``, ``reasoningContent``: -> the part
  its block gives);
* an ``execute_tool`` span's ``gen_ai.tool.message`` (``content`` the tool's input) and
  ``gen_ai.choice`` (``message`` the result's blocks) -> ``gen_ai.tool.call.arguments`` /
  ``gen_ai.tool.call.result`` (the latest conventions' ``tool_call`` / ``tool_call_response``
  parts likewise), when the span records neither;
* tool definitions (``gen_ai.tool.definitions``, written with the ``gen_ai_tool_definitions``
  opt-in: ``[{name, description, inputSchema, outputSchema}]``) keep Bedrock's ``ToolInputSchema``
  wrapper, ``inputSchema: {"json": SCHEMA}``: -> ``inputSchema: SCHEMA``, so the arguments are
  checked against the schema, not against the wrapper (which any arguments match);
* the agent's tool names on the ``invoke_agent`` span (``gen_ai.agent.tools``, a JSON list of
  names) -> ``gen_ai.tool.definitions`` when it records none, so its model calls offer those tools
  by name only (the schema not recorded: :mod:`.group`) and a proposed call's "offered" check
  is decided;
* the agent's system prompt on the ``invoke_agent`` span (``gen_ai.agent.system_prompt``;
  earlier versions passed it through as ``system_prompt``) -> ``gen_ai.system_instructions``, so
  its model calls inherit it (:mod:`.group`); newer Strands also sends it as a
  ``gen_ai.system.message`` event on each model call, which is read as it is.

Strands' event-loop cycle spans (``execute_event_loop_cycle``, ``event_loop.cycle_id``) repeat
the messages of the model call under them; :mod:`.wrappers` makes them run steps. Any span not
Strands' is returned as it is. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.bedrock_parts import (
    BEDROCK_KEYS,
    bedrock_part,
    is_tool_result_content,
    tool_result_text,
)
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.formats.otel.mapping import by_name_only

SYSTEM = "strands-agents"
"""Strands' ``gen_ai.system`` / ``gen_ai.provider.name`` (``Tracer._get_common_attributes``)."""
SCOPE = "strands.telemetry.tracer"
"""Strands' instrumentation scope (its tracer is named after the module); its cycle spans carry
no ``gen_ai.system``."""
DETAILS = "gen_ai.client.inference.operation.details"
MESSAGE_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages")
PROMPT_KEYS = ("gen_ai.agent.system_prompt", "system_prompt")
"""Where a Strands ``invoke_agent`` span records the agent's system prompt (newer, older)."""


AGENT_TOOLS = "gen_ai.agent.tools"
"""The ``invoke_agent`` span's JSON list of the agent's tool names (``["get_weather", "get_time"]``)."""


def is_strands(span: Span) -> bool:
    """Whether ``span`` was written by Strands Agents: :data:`SYSTEM` as its ``gen_ai.system`` or
    ``gen_ai.provider.name``, or :data:`SCOPE` as its instrumentation scope."""
    a = span.attributes
    return SYSTEM in (a.get("gen_ai.system"), a.get("gen_ai.provider.name")) or span.scope.get("name") == SCOPE


def _blocks(value: Any) -> Any:
    return gm.parse_structured(value)


def _tool_results_only(content: Any) -> bool:
    blocks = _blocks(content)
    return isinstance(blocks, list) and bool(blocks) and all(
        isinstance(b, Mapping) and set(b) == {"toolResult"} for b in blocks)


def _answer(message: Any) -> Any:
    """A ``gen_ai.choice`` ``message`` (blocks, or the agent's text) as an assistant message."""
    value = _blocks(message)
    if isinstance(value, Mapping) and ("role" in value or "content" in value or "parts" in value):
        return value
    return {"role": "assistant", "content": value}


def _mend_part(part: Any) -> Any:
    if not isinstance(part, Mapping):
        return part
    t = part.get("type")
    if t == "tool_call_response" and is_tool_result_content(part.get("response")):
        return {**part, "response": tool_result_text(part["response"])}
    if t in BEDROCK_KEYS and isinstance(part.get("content"), Mapping):
        mapped = bedrock_part({str(t): part["content"]})
        return mapped if mapped is not None else part
    return part


def _mend_messages(value: Any) -> Any:
    """Latest-conventions messages with each part mended (module docstring); else ``value``."""
    data = gm.parse_structured(value)
    if not isinstance(data, list):
        return value
    out = []
    for m in data:
        if isinstance(m, Mapping) and isinstance(m.get("parts"), list):
            m = {**m, "parts": [_mend_part(p) for p in m["parts"]]}
        out.append(m)
    return out


def _tool_io(events: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """``gen_ai.tool.call.arguments`` / ``.result`` from an ``execute_tool`` span's events."""
    out: dict[str, Any] = {}
    for ev in events:
        name, a = ev.get("name"), ev.get("attributes") or {}
        if name == "gen_ai.tool.message" and a.get("content") is not None:
            out.setdefault("gen_ai.tool.call.arguments", a["content"])
        elif name == "gen_ai.choice" and a.get("message") is not None:
            out.setdefault("gen_ai.tool.call.result", tool_result_text(_blocks(a["message"])))
        elif name == DETAILS:
            for key in MESSAGE_KEYS:
                for m in gm.parse_structured(a.get(key)) or []:
                    for p in (m.get("parts") or []) if isinstance(m, Mapping) else []:
                        if isinstance(p, Mapping) and p.get("type") == "tool_call" and p.get("arguments") is not None:
                            out.setdefault("gen_ai.tool.call.arguments", p["arguments"])
                        elif isinstance(p, Mapping) and p.get("type") == "tool_call_response":
                            out.setdefault("gen_ai.tool.call.result", tool_result_text(p.get("response")))
    return out


def _unwrap(schema: Any) -> Any:
    return schema["json"] if isinstance(schema, Mapping) and set(schema) == {"json"} else schema


def tool_definitions(value: Any) -> Any:
    """Strands' ``gen_ai.tool.definitions`` with each ``inputSchema`` / ``outputSchema`` of the
    Bedrock form ``{"json": SCHEMA}`` unwrapped to ``SCHEMA`` (a ``null`` one left out); a value
    that is no list of definitions as it is."""
    data = gm.parse_structured(value)
    if not isinstance(data, list) or not all(isinstance(d, Mapping) for d in data):
        return value
    return [{k: _unwrap(v) for k, v in d.items() if not (k == "outputSchema" and v is None)} for d in data]


def as_standard_events(span: Span) -> Span:
    """``span`` with Strands' event shapes made the standard ones (module docstring), before
    :func:`.events.fold_events` reads them; a span not Strands' (:func:`is_strands`) as it is."""
    if not is_strands(span):
        return span
    attrs = dict(span.attributes)
    if "gen_ai.tool.definitions" in attrs:
        attrs["gen_ai.tool.definitions"] = tool_definitions(attrs["gen_ai.tool.definitions"])
    op = attrs.get("gen_ai.operation.name")
    if op == "execute_tool":
        for k, v in _tool_io(span.events).items():
            attrs.setdefault(k, v)
        return replace(span, attributes=attrs)
    if op == "invoke_agent" and "gen_ai.tool.definitions" not in attrs and by_name_only(attrs.get(AGENT_TOOLS)):
        attrs["gen_ai.tool.definitions"] = attrs[AGENT_TOOLS]  # the tools offered, by name only (:mod:`.group`)
    if op == "invoke_agent" and "gen_ai.system_instructions" not in attrs:
        prompt = next((attrs[k] for k in PROMPT_KEYS if isinstance(attrs.get(k), str) and attrs[k].strip()), None)
        if prompt is not None:
            attrs["gen_ai.system_instructions"] = [{"type": "text", "content": prompt}]
    events = []
    for ev in span.events:
        name, a = ev.get("name"), ev.get("attributes") or {}
        if name == "gen_ai.choice" and a.get("message") is not None:
            ev = {**ev, "attributes": {**a, "message": _answer(a["message"])}}
        elif name == "gen_ai.tool.message" and _tool_results_only(a.get("content")):
            ev = {**ev, "name": "gen_ai.user.message"}
        elif name == DETAILS and any(k in a for k in MESSAGE_KEYS):
            ev = {**ev, "attributes": {k: _mend_messages(v) if k in MESSAGE_KEYS else v for k, v in a.items()}}
        events.append(ev)
    return replace(span, attributes=attrs, events=tuple(events))
