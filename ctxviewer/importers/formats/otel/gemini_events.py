"""The ``content`` of a per-message GenAI event body that is not plain text, as the Google GenAI
SDK instrumentation writes it in its default mode (semconv 1.28 - 1.36 events, not
``gen_ai_latest_experimental``).

opentelemetry-instrumentation-google-genai (``generate_content.py``) logs ``gen_ai.system.message``
``{content: str}``, one ``gen_ai.user.message`` ``{content}`` per entry of the request's
``contents`` and one ``gen_ai.choice`` ``{index, finish_reason, content}`` per candidate, where
``content`` is a string or google-genai's ``Content`` as a dict (pydantic ``model_dump()``:
``{role: "user" | "model" | null, parts: [Part]}``, every unset ``Part`` field ``null``). So:

* a ``Content`` (:func:`gemini_message`) is a message of its parts -- Gemini ``Part`` shapes
  converted by :func:`~ctxviewer.importers.common.foreign_parts.foreign_part` (``text``,
  ``function_call`` -> ``tool_call``, ``function_response`` -> ``tool_call_response``...), null
  fields dropped first; role ``model`` is ``assistant``, and the ``Content``'s own role wins over
  the event's (a ``gen_ai.user.message`` event also carries the history's model turns);
* with content capture off (``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` not true) every
  body's ``content`` is the placeholder :data:`ELIDED` (its tests
  ``test_does_not_record_*_if_disabled_by_env``). Such a body (:func:`is_elided`: that exact
  string, on an event of that instrumentation's ``gen_ai.system``) is no message: the span is
  marked :data:`ELIDED_KEY` and its call is "content not captured", with a note naming the switch
  (:func:`mark_not_captured`). The same text anywhere else is kept as the text it is;
* any other object ``content`` is compact JSON text, never Python's ``repr``; it and parts of no
  known type have a note (:func:`object_note`, kept under :data:`NOTES_KEY`);
* a streamed call logs one ``gen_ai.choice`` per chunk: they are one answer (:func:`stream_chunks`).

No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.foreign_parts import foreign_part
from ctxviewer.importers.common.llm_call import LLMCall
from ctxviewer.model.capture import uncaptured_what

ELIDED = "<elided>"
"""The instrumentation's ``_CONTENT_ELIDED``: the whole ``content`` of a body when capture is off."""

SWITCH = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The environment variable that turns the instrumentation's content capture on."""

SYSTEMS = frozenset({"gemini", "vertex_ai", "gcp.gemini", "gcp.vertex_ai", "gcp.gen_ai"})
"""The ``gen_ai.system`` (or ``gen_ai.provider.name``) values of that instrumentation's events."""

ELIDED_KEY = "ctxviewer.event_content_elided"
"""Span attribute :func:`~.events.fold_events` sets: the names of the events whose body held
:data:`ELIDED` (``["gen_ai.system.message", "gen_ai.user.message", "gen_ai.choice"]``)."""

NOTES_KEY = "ctxviewer.event_content_notes"
"""Span attribute :func:`~.events.fold_events` sets: one note per event ``content`` kept as JSON
text (:func:`object_note`), which the mapping adds to the import's problems."""

CONTENT_KEYS = frozenset({"role", "parts"})
"""The fields of a google-genai ``Content``."""


def _no_nulls(value: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if v is not None}


def is_gemini_content(content: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``content`` is a google-genai ``Content`` dict: a ``parts`` list and no field but
    ``role`` and ``parts`` (null ones aside)."""
    return (isinstance(content, Mapping) and isinstance(content.get("parts"), list)
            and set(_no_nulls(content)) <= CONTENT_KEYS)


def gemini_message(content: Mapping[str, Any], role: str) -> gm.Message:
    """A google-genai ``Content`` (:func:`is_gemini_content`) as a normalised message
    ``{"role", "parts"}``; ``role`` (the event's) when the ``Content`` names none. A part of no
    known shape is compact JSON text."""
    parts: list[dict[str, Any]] = []
    for p in content.get("parts") or []:
        if isinstance(p, Mapping):
            clean = _no_nulls(p)
            part = foreign_part(clean)
            parts.append(part if part is not None else {"type": "text", "content": gm.compact_json(clean)})
        elif p is not None:
            parts.append({"type": "text", "content": content_text(p)})
    who = str(content.get("role") or role)
    return {"role": "assistant" if who == "model" else who, "parts": parts}


def content_text(content: Any) -> str:
    """A body's ``content`` as item text: a string as it is; an object or list as compact JSON
    (never ``repr``); a number or boolean as JSON writes it."""
    if isinstance(content, str):
        return content
    return gm.compact_json(content)


PART_TYPES = frozenset({"text", "reasoning", "tool_call", "tool_call_response", "blob", "uri", "file"})
"""The OTel GenAI part types an item renders as what they are (any other part is shown as its JSON)."""


def object_note(name: str, content: Any, message: Mapping[str, Any]) -> str | None:
    """The note for an event's ``content`` that its ``message`` (as read) keeps as JSON text: an
    object read as its compact JSON (``"event gen_ai.user.message: content is an object of no
    message shape; kept as JSON text"``), or parts of no known type (``"...: content holds 2
    part(s) of no known shape; kept as JSON text"``); ``None`` when every part was read."""
    parts = [p for p in message.get("parts") or [] if isinstance(p, Mapping)]
    if isinstance(content, Mapping) and [p.get("content") for p in parts] == [content_text(content)]:
        return f"event {name}: content is an object of no message shape; kept as JSON text"
    odd = sum(1 for p in parts if p.get("type") not in PART_TYPES)
    return f"event {name}: content holds {odd} part(s) of no known shape; kept as JSON text" if odd else None


def stream_chunks(outputs: list[gm.Message], attributes: Mapping[str, Any]) -> list[gm.Message]:
    """The ``gen_ai.choice`` messages of a span with ``attributes`` as one message when they are the
    chunks of one streamed answer: the instrumentation logs one ``gen_ai.choice`` per candidate of
    every streamed response (``generate_content_stream``; ``index`` counts on across chunks, the
    last chunk has the ``finish_reason``), so the chunks of "Hello world" arrive as "Hel" and "lo
    world". They are one answer when the span is that instrumentation's (:data:`SYSTEMS`), asked for
    one candidate (``gen_ai.request.choice.count`` not over 1) and -- when ``code.function.name`` is
    recorded -- streamed: their parts in order, adjacent text joined, the last finish reason. Else
    ``outputs`` unchanged."""
    system = attributes.get("gen_ai.system") or attributes.get("gen_ai.provider.name")
    count = attributes.get("gen_ai.request.choice.count")
    function = str(attributes.get("code.function.name") or "")
    if (len(outputs) < 2 or str(system or "") not in SYSTEMS or (isinstance(count, int) and count > 1)
            or (function and not function.endswith("generate_content_stream"))
            or any(m.get("role") not in (None, "assistant") for m in outputs)):
        return outputs
    parts: list[dict[str, Any]] = []
    for p in (p for m in outputs for p in m.get("parts") or []):
        if parts and p.get("type") == "text" and parts[-1].get("type") == "text":
            parts[-1] = {**parts[-1], "content": f"{parts[-1].get('content') or ''}{p.get('content') or ''}"}
        else:
            parts.append(dict(p))
    reason = next((m["finish_reason"] for m in reversed(outputs) if m.get("finish_reason")), None)
    return [{"role": "assistant", "parts": parts, "finish_reason": reason}]


def is_elided(body: Mapping[str, Any], system: Any) -> bool:
    """Whether an event body is the instrumentation's "content not captured" form: its
    ``content`` is exactly :data:`ELIDED` and the event's ``system`` (``gen_ai.system`` or
    ``gen_ai.provider.name``, the event's or else its span's) is one of :data:`SYSTEMS`."""
    return body.get("content") == ELIDED and str(system or "") in SYSTEMS


def mark_not_captured(call: LLMCall, attributes: Mapping[str, Any], problems: list[str] | None) -> None:
    """Mark ``call`` (mapped from a span with ``attributes``) as content not captured when its
    events held only :data:`ELIDED` (no message, no system instruction left): ``content_captured``
    false, ``ctxviewer.content_note`` for the ``Content`` row of ``show``, naming :data:`SWITCH`,
    and the same words as a warning in ``problems``. Adds each :data:`NOTES_KEY` note to
    ``problems``. Changes ``call`` in place."""
    notes = attributes.get(NOTES_KEY)
    if problems is not None and isinstance(notes, list):
        problems.extend(str(n) for n in notes)
    elided = attributes.get(ELIDED_KEY)
    if not isinstance(elided, list) or not elided or call.messages or call.system:
        return
    names = ", ".join(dict.fromkeys(str(n) for n in elided))
    note = (f"the google-genai instrumentation wrote '{ELIDED}' for {len(elided)} event bodies ({names}): "
            f"message content capture is off ({SWITCH}); {uncaptured_what(call.usage)}")
    call.content_captured = False
    call.attributes["ctxviewer.content_note"] = note
    if problems is not None:
        problems.append(f"no message content captured: {note}")
