"""The normalised span: one shape for a span from any container (OTLP request, span list, flat
attribute map), so the GenAI mapping (:mod:`ctxviewer.importers.formats.otel.mapping`) never sees the container.

Invariants of :class:`Span`: ids are lower-case hex (or the source's string when it is neither
hex nor base64), ``None`` when absent; times are timezone-aware UTC; attribute values are plain
JSON types (``str``, ``int``, ``float``, ``bool``, ``list``, ``dict``, ``None``). No Qt here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ctxviewer.importers.common.notes import warn
from ctxviewer.importers.common.values import decode_key_values, parse_time
from ctxviewer.importers.contract import ImportProblem


@dataclass(frozen=True)
class Span:
    """One span, normalised from any container (see module docstring)."""

    trace_id: str | None
    """Trace id as lower-case hex (32 digits for OTLP), ``None`` if the container has none."""
    span_id: str | None
    """Span id as lower-case hex (16 digits for OTLP), ``None`` if the container has none."""
    parent_id: str | None
    """Parent span id; ``None`` for a root span (OTLP: missing or ``""``) or when not recorded."""
    name: str | None
    """Span name, e.g. ``"chat gpt-4o-mini"``."""
    start: datetime | None
    """Start time, aware UTC (microsecond precision); ``None`` if not recorded."""
    end: datetime | None
    """End time, aware UTC; ``None`` if not recorded (console dumps of open spans)."""
    attributes: dict[str, Any]
    """Span attributes by name, values decoded to plain JSON types."""
    resource: dict[str, Any]
    """Resource attributes (e.g. ``service.name``), decoded like ``attributes``."""
    record: str
    """Where the span is in the file: ``"line 2 resourceSpans[0].scopeSpans[0].spans[1]"``,
    ``"[1]"`` for a span list, ``"attributes"`` for a flat attribute map."""
    kind: str | None = None
    """``internal``, ``server``, ``client``, ``producer``, ``consumer`` or ``unspecified``."""
    status: str | None = None
    """``unset``, ``ok`` or ``error``; ``None`` if the container has no status."""
    status_message: str | None = None
    """Status description, if any."""
    scope: dict[str, Any] = field(default_factory=dict)
    """Instrumentation scope (``name``, ``version``) for OTLP spans."""
    end_unreadable: bool = False
    """True when the file gave an end time that could not be read (the span did end; its end is
    not recorded), so a missing ``end`` does not mean the span never ended."""
    events: tuple[dict[str, Any], ...] = ()
    """Span events (and correlated log records) in order, each ``{name, time, attributes, body}``:
    ``name`` the event name (``gen_ai.user.message``...), ``time`` aware UTC or ``None``,
    ``attributes`` decoded like span attributes, ``body`` the log body (``None`` for span events)."""


SpanRecord = Span | ImportProblem
"""What a container module yields: a span, or a problem naming the bad span."""


def span_time(value: Any, path: str, record: str | None = None) -> datetime | None:
    """:func:`~ctxviewer.importers.common.values.parse_time` with ``path`` named in its ``ValueError``.

    With ``record`` (the span's place in the file) an unreadable time never costs the span: it is
    a warning on that record (:func:`~ctxviewer.importers.common.notes.warn`) and ``None`` (not
    recorded)."""
    try:
        return parse_time(value)
    except ValueError as exc:
        if record is None:
            raise ValueError(f"{path}: {exc}") from None
        warn(record, f"{path}: {exc}; the time is imported as not recorded, the span is kept")
        return None


def unreadable_end(value: Any, parsed: datetime | None) -> bool:
    """True when an end time was given (``value``) but could not be read (``parsed`` is ``None``):
    such a span's end is "not recorded", never "never ended"."""
    return parsed is None and not (value is None or value == "" or value == "0" or value == 0)


def flat_attributes(value: Any, path: str) -> dict[str, Any]:
    """An attribute object ``{name: value}`` (or an OTLP key/value list) as a dict; ``None`` -> ``{}``.
    Raises ``ValueError`` naming ``path`` for anything else."""
    if value is None:
        return {}
    if isinstance(value, list):  # a bare OTLP span inside a list
        return decode_key_values(value, path)
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: expected an object")
    return dict(value)


def has_genai_key(keys: list[str]) -> bool:
    """True if any attribute name is in the GenAI namespace (``gen_ai.*``), for sniffers."""
    return any(k.startswith("gen_ai.") for k in keys)


def event_records(raw: Any, path: str) -> tuple[dict[str, Any], ...]:
    """Span ``events`` of any container as ``{name, time, attributes, body}`` dicts: OTLP
    (``timeUnixNano``, key/value ``attributes``), console / ReadableSpan (``timestamp`` or ``time``,
    flat ``attributes``). A bad event raises ``ValueError`` naming it."""
    if not isinstance(raw, list):
        return ()
    out = []
    for i, ev in enumerate(raw):
        if not isinstance(ev, Mapping):
            raise ValueError(f"{path}[{i}]: expected an event object")
        attrs = ev.get("attributes")
        attrs = flat_attributes(attrs, f"{path}[{i}].attributes")
        when = ev.get("timeUnixNano", ev.get("timestamp", ev.get("time")))
        out.append({"name": ev.get("name") or ev.get("eventName"), "time": span_time(when, f"{path}[{i}].time"),
                    "attributes": attrs, "body": ev.get("body")})
    return tuple(out)


def trace_id_for(span: Span) -> str:
    """``"{trace id}:{span id}"``; without ids, ``"attrs-"`` + 16 hex of the attributes' sha256."""
    if span.trace_id or span.span_id:
        return f"{span.trace_id or '-'}:{span.span_id or '-'}"
    canon = json.dumps(span.attributes, sort_keys=True, ensure_ascii=False, default=str)
    return "attrs-" + hashlib.sha256(canon.encode("utf-8")).hexdigest()[:16]


def missing_parents(spans: Iterable[Span], file: str) -> list[ImportProblem]:
    """One warning per span whose parent span id is given but names no span of ``spans`` (the same
    trace id): ``"span 00000000000000b2 (chat gpt-4o): parent span 00000000000000ff is not in this
    file; imported without it (what its ancestors record -- session, agent, system instructions
    -- is not known)"``, recorded at the span; a span whose parent id is its own id gets ``"span X: names
    itself as its parent span (a cycle); imported as a root of its trace"``. In the spans' order;
    spans without ids are skipped."""
    spans = list(spans)
    known = {(s.trace_id, s.span_id) for s in spans if s.span_id}
    out = []
    for s in spans:
        if s.parent_id and s.span_id and s.parent_id == s.span_id:  # F12: a cycle, not a missing parent
            name = f" ({s.name})" if s.name else ""
            out.append(ImportProblem(file, s.record, f"span {s.span_id}{name}: names itself as its parent span "
                                     "(a cycle); imported as a root of its trace"))
        elif s.parent_id and s.span_id and (s.trace_id, s.parent_id) not in known:
            name = f" ({s.name})" if s.name else ""
            out.append(ImportProblem(file, s.record, f"span {s.span_id}{name}: parent span {s.parent_id} is not in "
                                     "this file; imported without it (what its ancestors record -- session, "
                                     "agent, system instructions -- is not known)"))
    return out
