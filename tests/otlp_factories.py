"""The one place for OpenTelemetry test inputs: OTLP/JSON values, spans and requests.

``otlp_request(*spans)`` wraps spans in an ``ExportTraceServiceRequest``; ``otlp_span(**attrs)``
is any span (attributes given as OTLP ``AnyValue`` objects); ``chat_span(**attrs)`` is a GenAI
chat span (``gen_ai.operation.name = chat``, model ``m-1``, one user message ``"hi"``) whose
defaults the keyword attributes extend or override. ``s``/``i``/``kvlist``/``array`` build
``AnyValue`` objects. Used by the importer tests and the golden-pair inputs' regeneration.
"""

from __future__ import annotations

import json
from typing import Any

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
"""Default OTLP trace id (hex, 32 digits)."""
SPAN_ID = "00000000000000a1"
"""Default OTLP span id (hex, 16 digits)."""
START = "1700000000000000000"
"""Default start time, Unix nanoseconds (2023-11-14 22:13:20 UTC)."""
USER_HI = [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]
"""The default ``gen_ai.input.messages`` of :func:`chat_span`."""


def kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    """One OTLP attribute ``{key, value: AnyValue}``."""
    return {"key": key, "value": value}


def s(text: str) -> dict[str, str]:
    """``AnyValue`` string."""
    return {"stringValue": text}


def i(n: int | str) -> dict[str, Any]:
    """``AnyValue`` integer (OTLP/JSON allows a decimal string or a number)."""
    return {"intValue": n}


def kvlist(**fields: Any) -> dict[str, Any]:
    """``AnyValue`` key/value list from already-encoded ``AnyValue`` fields."""
    return {"kvlistValue": {"values": [kv(k, v) for k, v in fields.items()]}}


def array(*values: Any) -> dict[str, Any]:
    """``AnyValue`` array of already-encoded ``AnyValue`` values."""
    return {"arrayValue": {"values": list(values)}}


def otlp_span(span_id: str = SPAN_ID, trace_id: str = TRACE_ID, *, name: str = "chat m-1", start: Any = START,
              end: Any = None, kind: Any = None, status: dict[str, Any] | None = None,
              **attrs: dict[str, Any]) -> dict[str, Any]:
    """One OTLP span; keyword arguments are its attributes as ``AnyValue`` objects, in order.
    ``end``, ``kind`` and ``status`` are left out when ``None``."""
    span: dict[str, Any] = {"traceId": trace_id, "spanId": span_id, "name": name}
    if kind is not None:
        span["kind"] = kind
    span["startTimeUnixNano"] = start
    if end is not None:
        span["endTimeUnixNano"] = end
    span["attributes"] = [kv(k, v) for k, v in attrs.items()]
    if status is not None:
        span["status"] = status
    return span


def chat_span(span_id: str = SPAN_ID, trace_id: str = TRACE_ID, *, messages: Any = USER_HI,
              **kw: Any) -> dict[str, Any]:
    """A GenAI chat span: ``gen_ai.operation.name`` ``chat``, ``gen_ai.request.model`` ``m-1`` and
    ``gen_ai.input.messages`` (JSON string of ``messages``), then the attributes in ``kw`` (which
    override a default of the same name in place). Span fields (``name``, ``start``, ``end``,
    ``kind``, ``status``) pass through to :func:`otlp_span`."""
    fields = {k: kw.pop(k) for k in ("name", "start", "end", "kind", "status") if k in kw}
    attrs = {
        "gen_ai.operation.name": s("chat"),
        "gen_ai.request.model": s("m-1"),
        "gen_ai.input.messages": s(json.dumps(messages)),
        **kw,
    }
    return otlp_span(span_id, trace_id, **fields, **attrs)


def otlp_request(*spans: dict[str, Any], resource: dict[str, str] | None = None,
                 scope: dict[str, Any] | None = None) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` holding ``spans`` in one resource and one scope;
    ``resource`` maps resource attribute names to strings (``{"service.name": "shop"}``)."""
    scope_spans: dict[str, Any] = {"spans": list(spans)}
    if scope is not None:
        scope_spans = {"scope": scope, **scope_spans}
    rs: dict[str, Any] = {"scopeSpans": [scope_spans]}
    if resource is not None:
        rs = {"resource": {"attributes": [kv(k, s(v)) for k, v in resource.items()]}, **rs}
    return {"resourceSpans": [rs]}
