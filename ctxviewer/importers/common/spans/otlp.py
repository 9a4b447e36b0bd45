"""OTLP/JSON container: an ``ExportTraceServiceRequest`` (top-level ``resourceSpans``), one per
file or one per line (the collector ``file`` exporter writes JSON Lines).

Rules from opentelemetry-proto ``trace/v1/trace.proto`` (JSON Protobuf Encoding), relaxed as
:mod:`ctxviewer.importers.common.values` describes: attributes are ``[{key, value: AnyValue}]``, ``kind`` and ``status.code``
integers or enum names, ids hex or base64. A bad resource or span yields a problem naming its path
(``resourceSpans[0].scopeSpans[1].spans[2]``); the other spans still load. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator

from ctxviewer.importers.common.peek import JsonPeek
from ctxviewer.importers.common.spans.span import (
    Span,
    SpanRecord,
    event_records,
    has_genai_key,
    span_time,
    trace_id_for,
    unreadable_end,
)
from ctxviewer.importers.common.values import decode_key_values, normalise_id, span_kind, span_status
from ctxviewer.importers.contract import ImportProblem

_KEY_SUFFIXES = (".spans.item.attributes.item.key",)


def is_otlp(obj: Any) -> bool:
    """True for an object with top-level ``resourceSpans``."""
    return isinstance(obj, Mapping) and "resourceSpans" in obj


def sniff(doc: JsonPeek) -> float:
    """0.9 for an OTLP request whose span attributes include a ``gen_ai.*`` key in the head; 0.5
    for an OTLP request without one (so far); 0 otherwise."""
    if doc.kind != "object" or "resourceSpans" not in doc.keys(""):
        return 0.0
    keys = [v for p, e, v in doc.events if e == "string" and p.lower().endswith(_KEY_SUFFIXES)]
    return 0.9 if has_genai_key(keys) else 0.5


def spans(obj: Mapping[str, Any], file: str, prefix: str = "") -> Iterator[SpanRecord]:
    """The spans of one OTLP request, in order; a bad resource or span yields an ImportProblem."""
    resource_spans = obj.get("resourceSpans") or []
    if not isinstance(resource_spans, list):
        yield ImportProblem(file, f"{prefix}resourceSpans", f"expected a list, got {_json_type(resource_spans)}",
                            dropped=1)
        return
    for ri, rs in enumerate(resource_spans):
        rpath = f"{prefix}resourceSpans[{ri}]"
        if not isinstance(rs, Mapping):  # nu3 #15: said as a raw exception ("'list' object has no attribute 'get'")
            yield ImportProblem(file, rpath, f"expected an object (ResourceSpans), got {_json_type(rs)}", dropped=1)
            continue
        res = rs.get("resource") or {}
        if not isinstance(res, Mapping):
            yield ImportProblem(file, f"{rpath}.resource", f"expected an object, got {_json_type(res)}", dropped=1)
            continue
        try:
            resource = decode_key_values(res.get("attributes"), "resource.attributes")
            scope_spans = rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []
            if not isinstance(scope_spans, list):
                raise ValueError(f"scopeSpans: expected a list, got {_json_type(scope_spans)}")
        except (AttributeError, TypeError, ValueError) as exc:
            yield ImportProblem(file, rpath, str(exc), dropped=1)
            continue
        for si, ss in enumerate(scope_spans):
            spath = f"{rpath}.scopeSpans[{si}]"
            if not isinstance(ss, Mapping):
                yield ImportProblem(file, spath, "expected an object", dropped=1)
                continue
            scope = ss.get("scope") or ss.get("instrumentationLibrary") or {}
            scope = {k: v for k, v in scope.items() if k in ("name", "version")} if isinstance(scope, Mapping) else {}
            span_list = ss.get("spans") or []
            if not isinstance(span_list, list):
                yield ImportProblem(file, f"{spath}.spans", f"expected a list, got {_json_type(span_list)}",
                                    dropped=1)
                continue
            for pi, sp in enumerate(span_list):
                record = f"{spath}.spans[{pi}]"
                skipped: list[str] = []
                try:
                    yield _span(sp, record, resource, scope, skipped)
                except (AttributeError, TypeError, ValueError) as exc:
                    yield ImportProblem(file, record, str(exc), dropped=1)
                    continue
                sid = sp.get("spanId")
                where = f"{record} span {normalise_id(sid, 8)}" if sid else record
                for message in skipped:
                    yield ImportProblem(file, where, message)


def _json_type(value: Any) -> str:
    """The JSON name of ``value``'s type (``number``, ``string``, ``object`` ...), for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, Mapping) else type(value).__name__


def _span(sp: Any, record: str, resource: dict[str, Any], scope: dict[str, Any], skipped: list[str]) -> Span:
    if not isinstance(sp, Mapping):
        raise ValueError("expected a span object")
    status, message = span_status(sp.get("status"))
    first = len(skipped)  # the traceId warning goes first (field order), worded once the id is known
    start = span_time(sp.get("startTimeUnixNano"), "startTimeUnixNano", record)  # start first: warnings in field order
    end = span_time(sp.get("endTimeUnixNano"), "endTimeUnixNano", record)
    span = Span(
        trace_id=normalise_id(sp.get("traceId"), 16),
        span_id=normalise_id(sp.get("spanId"), 8),
        parent_id=normalise_id(sp.get("parentSpanId"), 8),
        name=sp.get("name"),
        start=start,
        end=end,
        end_unreadable=unreadable_end(sp.get("endTimeUnixNano"), end),
        attributes=decode_key_values(sp.get("attributes"), skipped=skipped),
        resource=resource,
        record=record,
        kind=span_kind(sp.get("kind")),
        status=status,
        status_message=message,
        scope=scope,
        events=event_records(sp.get("events"), "events"),
    )
    if span.trace_id is None:  # OTLP requires one (new user nu2 #10: imported as '-' unsaid; nu3 #14: the id named)
        kept = (f"as trace {trace_id_for(span)!r}" if span.span_id else
                f"as trace {trace_id_for(span)!r} (no span id either: an id made from its attributes)"
                if not span.events else  # its events are folded into the attributes first: the id is of those
                "as a trace whose id is made from its attributes ('attrs-…': no span id either)")
        skipped.insert(first, f"traceId: not recorded (OTLP requires one); the span is kept {kept}")
    return span
