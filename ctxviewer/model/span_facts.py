"""What the span of a model call recorded about the call itself: its status and who made it.

Three values the trace list shows as columns and filters on (stored on each ``traces`` row,
schema 5, :mod:`ctxviewer.store.migrations`), read from ``RequestTrace.attributes`` as the importers
record them:

* **span status** (:func:`span_status`) -- one word from the OTel span status and end time:
  ``error`` (``otel.status_code`` = ``error``, or the GenAI convention's ``error.type``),
  ``unfinished`` (the span never ended: ``otel.span.ended`` = False or ``ctxviewer.completeness``
  = ``never ended``), else the recorded status code ``ok`` / ``unset``; ``None`` when the trace
  records neither (native traces). An error wins over "never ended"; the message
  (``otel.status_message``) is kept beside it (:func:`status_message`).
* **agent** (:func:`agent_name`) -- ``gen_ai.agent.name`` (OTel GenAI agent spans; the importers
  also write it for an agent recorded on an ancestor span, and map OpenInference ``agent.name`` and
  Pydantic AI / Logfire ``agent_name`` to it); the other two keys are read too, for traces imported
  before.
* **operation** (:func:`operation_name`) -- ``gen_ai.operation.name`` (``chat``,
  ``execute_tool``, ``generate_content`` ...).

No Qt here.
"""

from __future__ import annotations

from typing import Any, Mapping

ERROR = "error"
"""Span status word: the span ended in error."""
UNFINISHED = "unfinished"
"""Span status word (and the display filter's value) for a span that never ended: it has a start
time and no end time (still running when exported, a crash, a missing ``end()``). Cells say
:data:`NEVER_ENDED`."""
NEVER_ENDED = "never ended"
"""How the trace list's cell says :data:`UNFINISHED` (the filter accepts both words)."""

STATUS_WORDS: tuple[str, ...] = ("ok", ERROR, "unset", UNFINISHED)
"""The stored span status words (OTel span status codes plus :data:`UNFINISHED`)."""

AGENT_KEYS: tuple[str, ...] = ("gen_ai.agent.name", "agent.name", "agent_name")
"""Attribute keys naming the agent, first found wins: OTel GenAI ``gen_ai.agent.name``,
OpenInference ``agent.name``, Pydantic AI / Logfire ``agent_name``."""

MAX_MESSAGE_CHARS = 500
"""The stored status message is cut to this many code points (an ellipsis marks the cut): the
``traces`` row stays narrow; the whole message stays in the trace's attributes."""


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list, tuple)):
        return None
    text = str(value).strip()
    return text or None


def span_status(attributes: Mapping[str, Any]) -> str | None:
    """The span status word of a trace's ``attributes`` (module docstring): ``"error"``,
    ``"unfinished"``, ``"ok"``, ``"unset"`` (or another recorded code, lower-cased), or ``None``
    when nothing is recorded."""
    code = _text(attributes.get("otel.status_code"))
    code = code.lower() if code else None
    if code == ERROR or _text(attributes.get("error.type")):
        return ERROR
    if attributes.get("otel.span.ended") is False or attributes.get("ctxviewer.completeness") == NEVER_ENDED:
        return UNFINISHED
    return code


def status_message(attributes: Mapping[str, Any]) -> str | None:
    """The status message (``otel.status_message``, else ``error.type``), at most
    :data:`MAX_MESSAGE_CHARS` code points; ``None`` when none is recorded."""
    text = _text(attributes.get("otel.status_message")) or _text(attributes.get("error.type"))
    if text and len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return text


def agent_name(attributes: Mapping[str, Any]) -> str | None:
    """The agent that made the call (the first of :data:`AGENT_KEYS` recorded), or ``None``."""
    for key in AGENT_KEYS:
        name = _text(attributes.get(key))
        if name:
            return name
    return None


def operation_name(attributes: Mapping[str, Any]) -> str | None:
    """``gen_ai.operation.name`` (``chat``, ``execute_tool`` ...), or ``None``."""
    return _text(attributes.get("gen_ai.operation.name"))


def row_values(attributes: Mapping[str, Any]) -> tuple[str | None, str | None, str | None, str | None]:
    """``(span_status, status_message, agent, operation)``: the schema-5 ``traces`` columns
    (:data:`SPAN_COLUMNS`) of a trace with these ``attributes``."""
    return span_status(attributes), status_message(attributes), agent_name(attributes), operation_name(attributes)


SPAN_COLUMNS: tuple[str, ...] = ("span_status", "status_message", "agent", "operation")
"""``traces`` columns written from :func:`row_values` (schema 5), in that order."""
