"""Span-list container: a JSON array of span objects, one span object on its own, or a span list
wrapped in an object (``{"spans": [...]}``, Phoenix's REST ``{"data": [...]}`` -- its
``/spans/otlpv1`` spans in protobuf field names, ``trace_id``, ``start_time_unix_nano``, ``string_value`` --, MLflow's
``{"info": ..., "data": {"spans": [...]}}``; see :data:`WRAPPERS`).

Shapes: JS SDK ``ReadableSpan``-like dumps (``spanContext.traceId``, ``startTime = [seconds,
nanos]``), OTel Python ``span.to_json()`` / ConsoleSpanExporter objects (``context.trace_id`` as
``0x`` hex, ISO times), and bare OTLP spans (``traceId``, ``startTimeUnixNano``). Attributes are a
flat ``{name: value}`` object (or an OTLP key/value list for bare OTLP spans). An element that is
itself an OTLP request is read as one (:mod:`.otlp`). A bad element yields a problem naming
``[i]``. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator

from ctxviewer.importers.common.peek import JsonPeek
from ctxviewer.importers.common.spans import otlp
from ctxviewer.importers.common.spans.span import (
    Span,
    SpanRecord,
    event_records,
    flat_attributes,
    has_genai_key,
    span_time,
    unreadable_end,
)
from ctxviewer.importers.common.values import normalise_id, span_kind, span_status
from ctxviewer.importers.contract import ImportProblem

_SPAN_KEYS = frozenset({"spanContext", "context", "traceId", "attributes"})


def is_span_object(obj: Any) -> bool:
    """True for one span object (ReadableSpan, console span, bare OTLP span with both ids)."""
    if not isinstance(obj, Mapping):
        return False
    ctx = obj.get("context")
    return (
        isinstance(obj.get("spanContext"), Mapping)
        or (isinstance(ctx, Mapping) and "trace_id" in ctx)
        or ("traceId" in obj and "spanId" in obj)
        or ("trace_id" in obj and "span_id" in obj and "start_time_unix_nano" in obj)
    )


_SNAKE = {"string_value": "stringValue", "int_value": "intValue", "double_value": "doubleValue",
          "bool_value": "boolValue", "bytes_value": "bytesValue", "array_value": "arrayValue",
          "kvlist_value": "kvlistValue"}


def camel_any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` written with protobuf's field names (``string_value``, ``array_value``:
    Phoenix's REST ``/v1/projects/{id}/spans/otlpv1``, which also writes the unset fields as
    ``null``) in the OTLP/JSON names (``stringValue``...), the ``null`` fields left out."""
    if not isinstance(value, Mapping):
        return value
    out: dict[str, Any] = {}
    for k, v in value.items():
        if v is None:
            continue
        key = _SNAKE.get(str(k), str(k))
        if key in ("arrayValue", "kvlistValue") and isinstance(v, Mapping):
            v = {"values": [camel_any_value(x) if key == "arrayValue" else
                            {"key": x.get("key"), "value": camel_any_value(x.get("value"))} if isinstance(x, Mapping) else x
                            for x in v.get("values") or []]}
        out[key] = v
    return out


def _snake_attributes(value: Any) -> Any:
    if isinstance(value, list):
        return [{"key": kv.get("key"), "value": camel_any_value(kv.get("value"))} if isinstance(kv, Mapping) else kv
                for kv in value]
    return value


WRAPPERS: tuple[tuple[str, ...], ...] = (("spans",), ("data",), ("data", "spans"))
"""Where a wrapper object keeps its span list (key paths, tried in order)."""


def unwrap(obj: Any) -> tuple[str, list[Any]] | None:
    """``(path, spans)`` for a span list wrapped in an object (:data:`WRAPPERS`): ``path`` names
    it in records (``"spans"``, ``"data.spans"``); ``None`` when ``obj`` is no such wrapper (the
    list must hold at least one span object or object with an ``attributes`` map)."""
    if not isinstance(obj, Mapping) or "resourceSpans" in obj:
        return None
    for path in WRAPPERS:
        cur: Any = obj
        for key in path:
            cur = cur.get(key) if isinstance(cur, Mapping) else None
        if is_span_list(cur) and any(is_span_object(sp) or isinstance(sp.get("attributes"), Mapping) for sp in cur):
            return ".".join(path), cur
    return None


def is_span_list(obj: Any) -> bool:
    """True for a non-empty JSON array of objects."""
    return isinstance(obj, list) and bool(obj) and all(isinstance(o, Mapping) for o in obj)


def sniff(doc: JsonPeek) -> float:
    """0.9 for a span list (or span object) whose attributes include a ``gen_ai.*`` key in the
    head; 0.3 for span-shaped JSON cut off before one (the registry reads further); else 0.

    Works on a head cut inside the first span: the keys come from :func:`~ctxviewer.importers.common.peek.peek_json`.
    """
    base = {"array": "item", "object": ""}.get(doc.kind or "")
    if base is None:
        return 0.0
    if base == "":  # a wrapper object: look at the elements of its span list
        top = set(doc.keys(""))
        inner = next((".".join(p) + ".item" for p in WRAPPERS if p[0] in top and doc.keys(".".join(p) + ".item")), None)
        base = inner or base
    keys = set(doc.keys(base))
    if not keys & _SPAN_KEYS or (base == "" and "resourceSpans" in keys):
        return 0.0
    attrs = f"{base}.attributes".lstrip(".")
    if has_genai_key(doc.keys(attrs) + doc.strings(f"{attrs}.item.key")):
        return 0.9
    return 0.0 if doc.complete else 0.3


def sniff_later_documents(text: str, limit: int = 500) -> float:
    """For concatenated span objects (the OTel Python console exporter prints one pretty-printed
    span after another) whose first span is not a GenAI one (a ``workflow.build`` span): 0.9 when
    a later span object in ``text`` has a ``gen_ai.*`` attribute, 0.3 when the spans read so far
    have none but ``text`` ends inside one (the registry reads further), else 0. Reads at most
    ``limit`` documents; never raises."""
    import json

    decoder = json.JSONDecoder()
    pos, seen = 0, 0
    while seen < limit:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            return 0.0
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            return 0.3 if seen else 0.0  # cut mid-span: read further
        seen += 1
        if not (isinstance(doc, Mapping) and doc.keys() & _SPAN_KEYS):
            return 0.0
        attrs = doc.get("attributes")
        if isinstance(attrs, Mapping) and has_genai_key(list(attrs)):
            return 0.9
    return 0.0


def spans(obj: Any, file: str, prefix: str = "") -> Iterator[SpanRecord]:
    """The spans of a span list (or of one span object, or of a wrapped list), in order; bad
    elements become problems (``spans[2]`` names the third element of a wrapped list)."""
    wrapped = unwrap(obj)
    if wrapped is not None:
        obj, prefix = wrapped[1], f"{prefix}{wrapped[0]}"
    if isinstance(obj, Mapping):
        record = prefix.strip() or "span"
        try:
            yield object_span(obj, record)
        except (AttributeError, TypeError, ValueError) as exc:
            yield ImportProblem(file, record, str(exc), dropped=1)
        return
    for i, sp in enumerate(obj):
        record = f"{prefix}[{i}]"
        if otlp.is_otlp(sp):
            yield from otlp.spans(sp, file, f"{record} ")
            continue
        try:
            if not isinstance(sp, Mapping) or not (is_span_object(sp) or "attributes" in sp):
                raise ValueError("not a span object (no spanContext, context or attributes)")
            yield object_span(sp, record)
        except (AttributeError, TypeError, ValueError) as exc:
            yield ImportProblem(file, record, str(exc), dropped=1)


def object_span(sp: Mapping[str, Any], record: str) -> Span:
    """A ReadableSpan-like, OTel Python console or bare OTLP span object as a :class:`Span`.
    The status is ``status`` (``{code, message}``), else Phoenix's top-level ``status_code`` /
    ``status_message`` (``UNSET`` / ``OK`` / ``ERROR``: Phoenix REST ``GET /v1/projects/{id}/spans``
    ``Span`` schema, also what ``px.Client().get_spans`` writes). Raises ``ValueError`` naming the field for a bad time or attribute value."""
    sc = sp.get("spanContext")
    ctx = sp.get("context")
    if isinstance(sc, Mapping):  # JS SDK ReadableSpan
        trace_id, span_id = sc.get("traceId"), sc.get("spanId")
        pc = sp.get("parentSpanContext")
        parent = pc.get("spanId") if isinstance(pc, Mapping) else sp.get("parentSpanId")
        start, end = sp.get("startTime"), sp.get("endTime")
    elif isinstance(ctx, Mapping):  # OTel Python ConsoleSpanExporter / span.to_json()
        trace_id, span_id, parent = ctx.get("trace_id"), ctx.get("span_id"), sp.get("parent_id")
        start, end = sp.get("start_time"), sp.get("end_time")
    elif "trace_id" in sp and "traceId" not in sp:  # an OTLP span in protobuf field names (Phoenix otlpv1)
        trace_id, span_id, parent = sp.get("trace_id"), sp.get("span_id"), sp.get("parent_span_id")
        start, end = sp.get("start_time_unix_nano"), sp.get("end_time_unix_nano")
        sp = dict(sp, attributes=_snake_attributes(sp.get("attributes")),
                  events=[dict(e, timeUnixNano=e.get("time_unix_nano"), attributes=_snake_attributes(e.get("attributes")))
                          if isinstance(e, Mapping) else e for e in sp.get("events") or []])
    else:  # bare OTLP span
        trace_id, span_id, parent = sp.get("traceId"), sp.get("spanId"), sp.get("parentSpanId")
        start, end = sp.get("startTimeUnixNano"), sp.get("endTimeUnixNano")
    res = sp.get("resource")
    resource = flat_attributes(res.get("attributes") if isinstance(res, Mapping) else None, "resource.attributes")
    status_obj = sp.get("status")
    if not isinstance(status_obj, Mapping) and "status_code" in sp:  # Phoenix span JSON (REST v1 spans, px.Client)
        status_obj = {"code": sp.get("status_code"), "message": sp.get("status_message") or None}
    status, message = span_status(status_obj)
    start_time = span_time(start, "start", record)  # start first: warnings in field order
    end_time = span_time(end, "end", record)
    return Span(
        trace_id=normalise_id(trace_id, 16),
        span_id=normalise_id(span_id, 8),
        parent_id=normalise_id(parent, 8),
        name=sp.get("name"),
        start=start_time,
        end=end_time,
        end_unreadable=unreadable_end(end, end_time),
        attributes=flat_attributes(sp.get("attributes"), "attributes"),
        resource=resource,
        record=record,
        kind=span_kind(sp.get("kind")),
        status=status,
        status_message=message,
        events=event_records(sp.get("events"), "events"),
    )
