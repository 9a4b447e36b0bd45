"""GenAI content carried by span events or log records instead of span attributes, folded into the
span's attributes so :mod:`.mapping` reads every form the same way.

Forms (semconv ``model/gen-ai/events.yaml`` and ``deprecated/events-deprecated.yaml``):

* ``gen_ai.client.inference.operation.details`` (semconv >= 1.37): its attributes (or log body)
  are the content attributes themselves (``gen_ai.input.messages``, ``gen_ai.output.messages``,
  ``gen_ai.system_instructions``, ``gen_ai.tool.definitions``...);
* per-message events (semconv 1.28 - 1.36): ``gen_ai.system.message``, ``gen_ai.user.message``,
  ``gen_ai.assistant.message`` (``{content, tool_calls}``), ``gen_ai.tool.message``
  (``{content, id}``) -> ``gen_ai.input.messages`` in event order; ``gen_ai.choice``
  (``{index, finish_reason, message}``) -> ``gen_ai.output.messages``. The body is the log
  record body; when there is none (or it is ``{}``), the event's ``gen_ai.event.content`` (Azure AI
  Inference, Semantic Kernel .NET: :data:`BODY_ATTRIBUTES`), ``body`` or ``event.body`` attribute;
  else its own attributes. A body key not read is named (:data:`UNREAD_EVENTS`). A ``content``
  that is google-genai's ``Content``, the Google GenAI SDK instrumentation's ``"<elided>"`` (content
  not captured) and an object of no message shape (compact JSON, never a repr): :mod:`.gemini_events`;
* ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` (<= 1.27) with attributes
  ``gen_ai.prompt`` / ``gen_ai.completion``.

An attribute already on the span wins over the events. No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.containers import loads_bounded, nested_too_deep
from ctxviewer.importers.common.field_account import is_empty
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.formats.otel import gemini_events as ge

MESSAGE_EVENTS = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                  "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
"""Per-message event names -> the role they carry (semconv 1.28 - 1.36)."""

DETAILS_EVENT = "gen_ai.client.inference.operation.details"

BODY_ATTRIBUTES = ("gen_ai.event.content", "body", "event.body")
"""Event attributes holding the event's body when the event (or log record) has none, JSON or
structured: ``gen_ai.event.content`` is where the Azure AI Inference tracer (``azure.ai.inference.tracing``:
``add_event(f"gen_ai.{role}.message", {"gen_ai.system": ..., "gen_ai.event.content": json.dumps(message)})``,
``gen_ai.choice`` with ``{message, finish_reason, index}``) and Semantic Kernel .NET put the message."""

_NOT_BODY = ("gen_ai.system", "gen_ai.provider.name", "event.", "code.")
"""Attributes of an event that are no part of its message (the provider; the event name; Python
logging's ``code.*`` source location on a log record)."""

MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "id", "tool_call_id"})
"""The keys of a per-message event body :func:`fold_events` reads."""
CHOICE_KEYS = frozenset({"index", "finish_reason", "message"})
"""The keys of a ``gen_ai.choice`` body :func:`fold_events` reads (``message`` as :data:`MESSAGE_KEYS`;
``index`` orders the choices, which are kept in event order)."""

UNREAD_EVENTS = "ctxviewer.event_keys_unmapped"
"""Span attribute :func:`fold_events` sets: the keys of GenAI events it did not read (``"event
gen_ai.user.message: name"``; ``"event gen_ai.foo"`` for a GenAI event of a name it does not
know), which :mod:`.mapping` names in ``ctxviewer.unmapped`` (docs/unmapped-fields.md)."""


def _body(ev: Mapping[str, Any]) -> dict[str, Any]:
    body = ev.get("body")
    attrs = ev.get("attributes") or {}
    if body is None or body == {}:  # an empty log body ({}): the content is in an attribute
        body = next((attrs[k] for k in BODY_ATTRIBUTES if attrs.get(k) not in (None, "")), body)
    body = gm.parse_structured(body)
    if isinstance(body, Mapping) and (body or not attrs):
        return dict(body)
    if body is not None and not isinstance(body, Mapping):
        return {"content": body}
    return {k: gm.parse_structured(v) for k, v in attrs.items() if not k.startswith(_NOT_BODY)}


def _unread(name: str, body: Mapping[str, Any], read: frozenset[str]) -> list[str]:
    """``"event NAME: key"`` for each key of an event's ``body`` with a value that is not read."""
    return [f"event {name}: {k}" for k, v in body.items() if k not in read and not is_empty(v)]


def _message(role: str, body: Mapping[str, Any]) -> gm.Message:
    parts: list[dict[str, Any]] = []
    content = body.get("content")
    if role == "tool":
        parts.append({"type": "tool_call_response", "id": body.get("id") or body.get("tool_call_id"),
                      "response": content if isinstance(content, str) or content is None else gm.compact_json(content)})
    elif ge.is_gemini_content(content):  # google-genai's Content dict (:mod:`.gemini_events`)
        return ge.gemini_message(content, str(body.get("role") or role))
    elif isinstance(content, list):
        parts.extend(gm.normalise_message({"role": role, "content": content})["parts"])
    elif content not in (None, ""):
        parts.append({"type": "text", "content": ge.content_text(content)})
    for c in body.get("tool_calls") or []:
        if isinstance(c, Mapping):
            f = c.get("function")
            fn: Mapping[str, Any] = f if isinstance(f, Mapping) else c
            parts.append({"type": "tool_call", "id": c.get("id"), "name": fn.get("name"), "arguments": fn.get("arguments")})
    return {"role": str(body.get("role") or role), "parts": parts}


def fold_events(span: Span) -> Span:
    """``span`` with the GenAI content of its events added to its attributes (see module docstring)."""
    if not span.events:
        return span
    attrs = dict(span.attributes)
    inputs: list[gm.Message] = []
    outputs: list[gm.Message] = []
    unread: list[str] = []
    elided: list[str] = []  # google-genai's "<elided>" bodies: content not captured (:mod:`.gemini_events`)
    notes: list[str | None] = []
    system = attrs.get("gen_ai.system") or attrs.get("gen_ai.provider.name")
    for ev in span.events:
        name = str(ev.get("name") or "")
        ev_attrs = ev.get("attributes") or {}
        if name in MESSAGE_EVENTS or name == "gen_ai.choice":
            body = _body(ev)
            if ge.is_elided(body, ev_attrs.get("gen_ai.system") or ev_attrs.get("gen_ai.provider.name") or system):
                elided.append(name)
                if name == "gen_ai.choice" and body.get("finish_reason"):
                    attrs.setdefault("gen_ai.response.finish_reasons", [str(body["finish_reason"])])
                continue
        if name == DETAILS_EVENT:
            details = ev.get("body")
            for source in (ev_attrs, details if isinstance(details, Mapping) else {}):
                for k, v in source.items():
                    attrs.setdefault(k, v)
        elif name in MESSAGE_EVENTS:
            unread += _unread(name, body, MESSAGE_KEYS)
            inputs.append(_message(MESSAGE_EVENTS[name], body))
            notes.append(ge.object_note(name, body.get("content"), inputs[-1]))
        elif name == "gen_ai.choice":
            inner = body.get("message")
            msg: Mapping[str, Any] = inner if isinstance(inner, Mapping) else body
            unread += _unread(name, body, CHOICE_KEYS if msg is not body else CHOICE_KEYS | MESSAGE_KEYS)
            if msg is not body:
                unread += [k.replace(": ", ": message.", 1) for k in _unread(name, msg, MESSAGE_KEYS)]
            out = _message("assistant", msg)
            out["finish_reason"] = body.get("finish_reason")
            outputs.append(out)
            notes.append(ge.object_note(name, msg.get("content"), out))
        elif name == "gen_ai.content.prompt" and "gen_ai.prompt" in ev_attrs:
            attrs.setdefault("gen_ai.prompt", ev_attrs["gen_ai.prompt"])
        elif name == "gen_ai.content.completion" and "gen_ai.completion" in ev_attrs:
            attrs.setdefault("gen_ai.completion", ev_attrs["gen_ai.completion"])
        elif name.startswith("gen_ai."):  # a GenAI event of a form not read: named, not dropped in silence
            unread.append(f"event {name}")
    if inputs:
        attrs.setdefault("gen_ai.input.messages", inputs)
    if outputs:
        attrs.setdefault("gen_ai.output.messages", ge.stream_chunks(outputs, attrs))
    if unread:
        attrs[UNREAD_EVENTS] = list(dict.fromkeys(unread))
    if elided:
        attrs[ge.ELIDED_KEY] = elided
    if any(notes):
        attrs[ge.NOTES_KEY] = [n for n in notes if n]
    return replace(span, attributes=attrs)


STRUCTURED_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")
"""Content attributes whose value is JSON; a value cut mid-JSON is kept as raw text."""


CONTENT_KEYS = (*STRUCTURED_KEYS, "gen_ai.prompt", "gen_ai.completion", "ai.prompt.messages", "ai.prompt",
                "input.value", "output.value")
"""Content attributes looked at for a cut that still parses (:mod:`ctxviewer.importers.common.exporter_cut`)."""


def trailing_text(value: str) -> int | None:
    """Where a complete JSON value at the start of ``value`` ends, when other text follows it
    (``'[{"role": "user"}] and more'`` -> 18): such a value was captured whole and then joined to
    something else, not cut; ``None`` when ``value`` does not start with a whole JSON value."""
    s = value.lstrip()
    try:
        _, end = json.JSONDecoder().raw_decode(s)
    except (ValueError, RecursionError):
        return None
    return len(value) - len(s) + end if s[end:].strip() else None


def truncated_keys(span: Span) -> tuple[Span, dict[str, str]]:
    """``span`` with each content attribute that does not parse (a string starting like JSON that
    parses neither as JSON nor as a Python literal) replaced by one message holding the raw text,
    and ``{name: how}`` of those attributes: ``"mid_json"`` for a value cut mid-JSON (what was
    captured; the trace marks it ``ctxviewer.truncated``), ``"trailing"`` for a whole JSON value
    followed by other text (:func:`trailing_text`: nothing was cut, only joined)."""
    attrs = dict(span.attributes)
    cut: dict[str, str] = {}
    for key in STRUCTURED_KEYS:
        v = attrs.get(key)
        if isinstance(v, str) and v.strip()[:1] in ("[", "{") and gm.parse_structured(v) is v:
            role = "assistant" if key == "gen_ai.output.messages" else ("system" if "system" in key else "user")
            raw = [{"type": "text", "content": v}]
            attrs[key] = raw if key == "gen_ai.system_instructions" else [{"role": role, "parts": raw}]
            cut[key] = "trailing" if trailing_text(v) is not None else "mid_json"
    return (replace(span, attributes=attrs), cut) if cut else (span, {})


def deep_keys(span: Span) -> tuple[Span, list[str]]:
    """``span`` with each string attribute holding JSON nested too deep to parse replaced by its
    value parsed with the part below :data:`~ctxviewer.importers.common.containers.MAX_DEPTH` left out, and one message per
    such attribute naming it (``"gen_ai.input.messages: [0].parts[0]...: JSON nested deeper than
    100 levels; 1 deeper value(s) left out"``)."""
    attrs = dict(span.attributes)
    out = []
    for key, v in span.attributes.items():
        if isinstance(v, str) and v.lstrip()[:1] in ("[", "{") and nested_too_deep(v):
            attrs[key], message = loads_bounded(v)
            out.append(f"{key}: {message}")
    return (replace(span, attributes=attrs), out) if out else (span, [])
