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


def otlp_chat_span(trace_id: str, span_id: str, start_ns: int, messages: list[tuple[str, str]],
                   answer: str | None = None, conversation_id: str | None = None) -> dict[str, Any]:
    """A ``gpt-4o-mini`` / ``openai`` client chat span with ``messages`` as ``(role, text)`` in
    ``gen_ai.input.messages`` and ``answer`` (if given) as the output message, finish ``stop``."""
    def msg(role: str, text: str) -> dict[str, Any]:
        return {"role": role, "parts": [{"type": "text", "content": text}]}

    attrs = {"gen_ai.request.model": s("gpt-4o-mini"), "gen_ai.provider.name": s("openai")}
    if answer is not None:
        attrs["gen_ai.output.messages"] = s(json.dumps([{**msg("assistant", answer), "finish_reason": "stop"}]))
    if conversation_id is not None:
        attrs["gen_ai.conversation.id"] = s(conversation_id)
    return chat_span(span_id, trace_id, name="chat gpt-4o-mini", kind="SPAN_KIND_CLIENT", start=str(start_ns),
                     messages=[msg(r, t) for r, t in messages], **attrs)


CONVERSATION_TURNS = (
    ("user", "I want to return the boots from order 4471."),
    ("assistant", "Sure. Are they unworn and in the original box?"),
    ("user", "Yes, unworn. Can I get a size 9 instead?"),
    ("assistant", "Size 9 is in stock. Shall I create an exchange?"),
    ("user", "Yes please, and ship it to the same address."),
)
"""A five-message support conversation for the three-call agent loop of :func:`three_call_spans`."""


def three_call_spans(otel_trace_id: str = "5b8efff798038103d269b633813fc60c") -> list[dict[str, Any]]:
    """Three chat spans of one OTel trace (an agent loop). Call 2 sends call 1's input plus its
    answer plus the next user turn; call 3 dropped the first two turns (the first user message and
    the first answer) and sends the rest plus the last user turn. Wrap them with
    ``otlp_request(*three_call_spans(), resource={"service.name": "agent"})``."""
    system = ("system", "You are the Northwind support assistant.")
    t = CONVERSATION_TURNS
    base = 1_764_000_000_000_000_000
    return [
        otlp_chat_span(otel_trace_id, "00000000000000c1", base, [system, t[0]], answer=t[1][1]),
        otlp_chat_span(otel_trace_id, "00000000000000c2", base + 5 * 10**9, [system, t[0], t[1], t[2]], answer=t[3][1]),
        otlp_chat_span(otel_trace_id, "00000000000000c3", base + 9 * 10**9, [system, t[2], t[3], t[4]],
                       answer="Done: exchange EX-2201 created."),
    ]


def otlp_protobuf(doc: dict[str, Any]) -> bytes:
    """An OTLP/JSON ``ExportTraceServiceRequest`` (hex ids, as a file holds them) as binary protobuf
    bytes: ids turned to the base64 protobuf's JSON mapping takes, then serialized."""
    import base64

    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    doc = json.loads(json.dumps(doc))
    for rs in doc.get("resourceSpans") or []:
        for ss in rs.get("scopeSpans") or []:
            for sp in ss.get("spans") or []:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if sp.get(key):
                        sp[key] = base64.b64encode(bytes.fromhex(sp[key])).decode()
    return bytes(ParseDict(doc, ExportTraceServiceRequest(), ignore_unknown_fields=True).SerializeToString())
