"""What a request leaves to the provider or is not a model request at all: server-held
conversation state and standalone tool spans.

A request is not self-contained when the provider keeps the earlier turns:

* the OpenAI Responses API's ``previous_response_id`` (server-side history: the
  earlier turns are not in the request), recorded by the provider importers as the attribute
  ``openai.previous_response_id`` (any attribute whose key ends in ``previous_response_id``
  counts), or present in the recorded request body;
* the Responses API's ``conversation`` parameter in the recorded request body;
* a conversation id recorded on the trace (``session_id``, or the attribute
  ``gen_ai.conversation.id``) that names provider-held state: an OpenAI response id (``resp_``,
  as the Microsoft Agent Framework records it), a Conversations API id (``conv_``) or an
  Assistants thread (``thread_``). An id the application made up (``session-42``) names
  nothing the provider holds, so it does not count.

A standalone tool span (an OTel ``execute_tool`` span imported on its own: operation
``execute_tool``, or ``ctxviewer.span_kind = "execute_tool"``) records a tool's execution, its call
and result; it was never sent to a provider.

No Qt here.
"""

from __future__ import annotations

import json
from typing import Any

from ctxviewer.model.span_facts import operation_name
from ctxviewer.model.trace import RequestTrace

PROVIDER_CONVERSATION_PREFIXES: tuple[str, ...] = ("resp_", "conv_", "thread_")
"""Prefixes of conversation ids that name state the provider keeps: OpenAI Responses response ids,
Conversations API ids and Assistants thread ids."""

TOOL_SPAN_OPERATION = "execute_tool"
"""``gen_ai.operation.name`` (and ``ctxviewer.span_kind``) of a tool execution span."""

_BODY_KEYS = ("previous_response_id", "conversation")


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _body_state(body: str | None) -> str | None:
    if not body or not any(f'"{k}"' in body for k in _BODY_KEYS):
        return None
    try:
        obj = json.loads(body)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    prev = _text(obj.get("previous_response_id"))
    if prev:
        return f"previous_response_id {prev}"
    conv = obj.get("conversation")
    conv_id = _text(conv.get("id")) if isinstance(conv, dict) else _text(conv)
    return f"conversation {conv_id}" if conv_id else None


def server_held_state(trace: RequestTrace) -> str | None:
    """Where the provider holds this request's earlier turns, in words
    (``"previous_response_id resp_…"``, ``"conversation conv_…"``), or ``None`` when the request
    is self-contained as far as the trace records (module docstring for the signals read)."""
    for key, value in trace.attributes.items():
        if key.endswith("previous_response_id") and _text(value):
            return f"previous_response_id {_text(value)}"
    body = _body_state(trace.request.content)
    if body:
        return body
    for conv in (trace.session_id, trace.attributes.get("gen_ai.conversation.id")):
        conv_id = _text(conv)
        if conv_id and conv_id.startswith(PROVIDER_CONVERSATION_PREFIXES):
            return f"conversation {conv_id}"
    return None


def is_tool_span(trace: RequestTrace) -> bool:
    """True when ``trace`` is a tool execution span imported on its own, not a model request
    (operation ``execute_tool`` or ``ctxviewer.span_kind`` ``execute_tool``)."""
    return (operation_name(trace.attributes) == TOOL_SPAN_OPERATION
            or trace.attributes.get("ctxviewer.span_kind") == TOOL_SPAN_OPERATION)
