"""Spans that only wrap a model call below them and repeat its messages: run steps, not model calls.

A span with GenAI message events but no ``gen_ai.operation.name`` reads as a chat span
(:func:`~ctxviewer.importers.common.spans.conventions.is_chat_span`: messages without an
operation). Some frameworks write such a span around each model call: Strands Agents' event-loop
cycle span (``execute_event_loop_cycle``; before Strands named its operation, only
``event_loop.cycle_id``; ``strands/telemetry/tracer.py`` ``start_event_loop_cycle_span``) records
the messages of the cycle -- the same messages its ``chat`` span below sends -- and the cycle's
answer, but no model, no usage and no operation. Read as a call it was a second request that was
never sent: twice the calls, half of them with the model "not recorded" and no cost.

:func:`wrapped_calls` finds them: a span that records no call of its own (no
``gen_ai.operation.name``, no ``gen_ai.request.model``, no ``gen_ai.usage.*``), with input
messages, above a chat span that does, whose input messages start with the wrapper's (system
messages aside: the call may add the agent's system prompt). :func:`as_step` leaves such a span's
messages out (they are the call's, in its trace) and names the call it wraps as
``ctxviewer.wraps_call`` (``"span ID"``), so it is a step of the run tree. No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.spans.conventions import is_chat_span
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.formats.otel.events import UNREAD_EVENTS
from ctxviewer.importers.formats.otel.group import ancestors

WRAPS = "ctxviewer.wraps_call"
"""Run-step attribute :func:`as_step` sets: ``"span ID"`` of the model call the step wraps."""

MESSAGE_PREFIXES = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions", "gen_ai.prompt",
                    "gen_ai.completion")
"""Attribute names (prefixes) of the messages a wrapper repeats: left out of its step."""


def _own_call(attrs: Mapping[str, Any]) -> bool:
    return ("gen_ai.operation.name" in attrs or "gen_ai.request.model" in attrs
            or any(k.startswith("gen_ai.usage.") for k in attrs))


def _messages(span: Span) -> tuple[tuple[Any, tuple[str, ...]], ...]:
    """The span's input messages as ``(role, part texts)``, system messages left out."""
    try:
        msgs = gm.parse_messages(span.attributes.get("gen_ai.input.messages")) or []
    except (ValueError, TypeError, AttributeError):
        return ()
    return tuple((m.get("role"), tuple(gm.part_text(p) for p in m.get("parts") or [] if isinstance(p, Mapping)))
                 for m in msgs if m.get("role") != "system")


def wrapped_calls(spans: Iterable[Span]) -> dict[str, str]:
    """``{wrapper span id: the span id of the chat span it wraps}`` for the spans of one group
    whose events are folded (:func:`.events.fold_events`); see the module docstring. Of several
    chat spans below one wrapper, the first in the group's order is the one it names."""
    spans = list(spans)
    by_id = {s.span_id: s for s in spans if s.span_id}
    candidates = {s.span_id for s in spans
                  if s.span_id and is_chat_span(s.attributes) and not _own_call(s.attributes)
                  and "gen_ai.input.messages" in s.attributes}
    out: dict[str, str] = {}
    for call in spans:
        if not call.span_id or call.span_id in candidates or not is_chat_span(call.attributes):
            continue
        sent = _messages(call)
        for above in ancestors(call, by_id):
            if above.span_id in candidates and above.span_id not in out:
                repeated = _messages(above)
                if repeated and sent[:len(repeated)] == repeated:
                    out[str(above.span_id)] = call.span_id
    return out


def as_step(span: Span, call_id: str) -> Span:
    """``span`` without its messages (:data:`MESSAGE_PREFIXES`) and its unread event keys, with
    :data:`WRAPS` naming ``call_id``: no chat span, a step of the run."""
    attrs = {k: v for k, v in span.attributes.items() if not k.startswith(MESSAGE_PREFIXES) and k != UNREAD_EVENTS}
    attrs[WRAPS] = f"span {call_id}"
    return replace(span, attributes=attrs)


def note(wrappers: list[Span]) -> str:
    """The import's note for the ``wrappers`` of one group: ``"2 span(s) only wrap the model call
    below them and repeat its messages (Cycle c-1, Cycle c-2): steps of the run, not model
    calls"``."""
    names = ", ".join(dict.fromkeys(str(s.name or s.span_id) for s in wrappers))
    return (f"{len(wrappers)} span(s) only wrap the model call below them and repeat its messages ({names}): "
            "steps of the run, not model calls")
