"""Request traces -> OTLP/JSON (``ExportTraceServiceRequest``) with the current OpenTelemetry GenAI
conventions, so a trace database can be sent to any OpenTelemetry backend.

One span per trace (kind CLIENT, name ``"chat {model}"``), grouped into one ``resourceSpans`` per
service (resource ``service.name``), scope ``ctxviewer``. Attributes (semconv >= 1.37 names, JSON
strings for structured values as the spec allows):

* ``gen_ai.operation.name = chat``, ``gen_ai.provider.name``, ``gen_ai.request.model``,
  ``gen_ai.request.max_tokens`` (B_out), ``gen_ai.conversation.id``, ``user.id``;
* ``gen_ai.input.messages`` -- the *retained* non-tool items in final order, each
  ``{role, parts: [{type: text, content}]}`` (role: the item's, else ``system`` for policy and
  ``user`` otherwise); ``gen_ai.tool.definitions`` -- the retained ``tool`` items' JSON;
* ``gen_ai.output.messages`` / ``gen_ai.response.{model,id,finish_reasons}`` from the response
  and its tool calls; ``gen_ai.usage.{input_tokens, output_tokens, cache_read.input_tokens,
  cache_creation.input_tokens, reasoning.output_tokens}`` where reported;
* what GenAI lacks, as ``ctxviewer.*``: ``ctxviewer.items`` (per item id, kind, status, position,
  priority, trust, omission_reason, tokens), ``ctxviewer.budget.{category}``,
  ``ctxviewer.endpoint.capacity``, ``ctxviewer.safety_margin``, ``ctxviewer.policy.id`` and ``ctxviewer.policy.version``,
  ``ctxviewer.trace_id``, and ``ctxviewer.trace`` -- the whole trace in the native JSON shape
  (:func:`ctxviewer.model.serialize.trace_to_dict`), so :mod:`ctxviewer.importers.formats.ctxviewer_otlp` gives
  exactly the same trace back.

Span ids: a trace id of the OTel importer's ``"{32 hex}:{16 hex}"`` form keeps its ids; any other
id is hashed (sha256) to a trace and span id. ``created`` -> ``startTimeUnixNano``; the end is
``created`` + ``ctxviewer.duration_ms`` when recorded (else absent: "not recorded"). Status from
``otel.status_code`` / ``otel.status_message`` (``ok`` -> 1, ``error`` -> 2). No Qt here.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from typing import Any, Iterable

from ctxviewer import __version__
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.model.trace import Kind, RequestTrace, Status

_OTEL_ID = re.compile(r"^([0-9a-f]{32}):([0-9a-f]{16})$")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def any_value(v: Any) -> dict[str, Any]:
    """A Python value as an OTLP/JSON ``AnyValue`` (ints as decimal strings, per the JSON mapping)."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, (list, tuple)):
        return {"arrayValue": {"values": [any_value(x) for x in v]}}
    return {"stringValue": "" if v is None else str(v)}


def span_ids(trace_id: str) -> tuple[str, str]:
    """OTel (trace id, span id) hex for a ctxviewer trace id (see module docstring)."""
    m = _OTEL_ID.match(trace_id)
    if m:
        return m.group(1), m.group(2)
    h = hashlib.sha256(trace_id.encode("utf-8")).hexdigest()
    return h[:32], h[32:48]


def _nanos(dt: datetime) -> str:
    delta = dt - _EPOCH
    return str((delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000)


def _compact(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def genai_attributes(t: RequestTrace) -> dict[str, Any]:
    """The OTel GenAI and ``ctxviewer.*`` attributes of one trace's span (module docstring)."""
    a: dict[str, Any] = {"ctxviewer.trace_id": t.trace_id, "gen_ai.operation.name": "chat"}  # marker first: sniffers see it
    put = a.__setitem__
    for key, value in (("gen_ai.provider.name", t.endpoint.provider), ("gen_ai.request.model", t.endpoint.model),
                       ("gen_ai.request.max_tokens", t.reserved_output_tokens),
                       ("gen_ai.conversation.id", t.session_id), ("user.id", t.user_id)):
        if value is not None:
            put(key, value)
    msgs, tools = [], []
    for it in t.items:
        if it.status is not Status.RETAINED:
            continue
        if it.kind is Kind.TOOL:
            try:
                tools.append(json.loads(it.content or ""))
            except ValueError:
                tools.append({"type": "function", "name": it.id, "description": it.content})
            continue
        role = it.role or ("system" if it.kind is Kind.POLICY else "user")
        msgs.append({"role": role, "parts": [{"type": "text", "content": it.content or ""}]})
    if msgs:
        put("gen_ai.input.messages", _compact(msgs))
    if tools:
        put("gen_ai.tool.definitions", _compact(tools))
    r = t.response
    if r is not None or t.tool_calls:
        parts: list[dict[str, Any]] = []
        if r is not None and r.text is not None:
            parts.append({"type": "text", "content": r.text})
        for c in t.tool_calls:
            parts.append({"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments})
        out: dict[str, Any] = {"role": "assistant", "parts": parts}
        if r is not None and r.finish_reason:
            out["finish_reason"] = r.finish_reason
            put("gen_ai.response.finish_reasons", [r.finish_reason])
        put("gen_ai.output.messages", _compact([out]))
        if r is not None and r.model:
            put("gen_ai.response.model", r.model)
        if r is not None and r.id:
            put("gen_ai.response.id", r.id)
    u = t.usage
    for key, value in (("gen_ai.usage.input_tokens", u.input_tokens), ("gen_ai.usage.output_tokens", u.output_tokens),
                       ("gen_ai.usage.cache_read.input_tokens", u.cached_input_tokens),
                       ("gen_ai.usage.cache_creation.input_tokens", u.cache_creation_input_tokens),
                       ("gen_ai.usage.reasoning.output_tokens", u.reasoning_tokens)):
        if value is not None:
            put(key, value)
    put("ctxviewer.items", _compact([{"id": i.id, "kind": i.kind.value, "status": i.status.value,
                                      "position": i.position, "priority": i.priority, "trust": i.trust.value,
                                      "omission_reason": i.omission_reason, "tokens": i.tokens} for i in t.items]))
    for cat, value in t.budget.items():
        put(f"ctxviewer.budget.{cat.value}", value)
    for key, value in (("ctxviewer.endpoint.capacity", t.endpoint.capacity), ("ctxviewer.safety_margin", t.safety_margin),
                       ("ctxviewer.policy.id", t.policy.id), ("ctxviewer.policy.version", t.policy.version)):
        if value is not None:
            put(key, value)
    put("ctxviewer.trace", _compact(trace_to_dict(t)))
    return a


def span_of(t: RequestTrace) -> dict[str, Any]:
    """One trace as an OTLP/JSON span object."""
    tid, sid = span_ids(t.trace_id)
    span: dict[str, Any] = {"traceId": tid, "spanId": sid, "name": f"chat {t.endpoint.model or 'unknown'}", "kind": 3,
                            "attributes": [{"key": k, "value": any_value(v)} for k, v in genai_attributes(t).items()]}
    parent = t.attributes.get("otel.parent_span_id")
    if isinstance(parent, str) and re.fullmatch(r"[0-9a-f]{16}", parent):
        span["parentSpanId"] = parent
    if t.created is not None:
        span["startTimeUnixNano"] = _nanos(t.created)
        ms = t.attributes.get("ctxviewer.duration_ms")
        if isinstance(ms, (int, float)):
            from datetime import timedelta

            span["endTimeUnixNano"] = _nanos(t.created + timedelta(milliseconds=float(ms)))
    code = t.attributes.get("otel.status_code")
    if code in ("ok", "error"):
        status: dict[str, Any] = {"code": 1 if code == "ok" else 2}
        if t.attributes.get("otel.status_message"):
            status["message"] = str(t.attributes["otel.status_message"])
        span["status"] = status
    return span


def export_request(traces: Iterable[RequestTrace], *, guardrails: bool = False) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` for ``traces``: one ``resourceSpans`` per service, in
    first-seen order (``service.name`` absent for traces without a service). ``guardrails``: each
    trace's span is followed by the offline scanner's verdicts as ``apply_guardrail`` child spans
    (:mod:`ctxviewer.report.guardrail_spans`)."""
    groups: dict[str | None, list[dict[str, Any]]] = {}
    for t in traces:
        span = span_of(t)
        groups.setdefault(t.service, []).append(span)
        if guardrails:
            from ctxviewer.report.guardrail_spans import guardrail_spans, scanner_verdicts

            groups[t.service] += guardrail_spans(scanner_verdicts(t), span["traceId"], span["spanId"],
                                                 span.get("startTimeUnixNano"))
    return {"resourceSpans": [
        {"resource": {"attributes": [] if svc is None else [{"key": "service.name", "value": {"stringValue": svc}}]},
         "scopeSpans": [{"scope": {"name": "ctxviewer", "version": __version__}, "spans": spans}]}
        for svc, spans in groups.items()]}
