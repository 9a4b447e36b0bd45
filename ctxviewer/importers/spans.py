"""Span containers: turn a file of OpenTelemetry spans into a list of normalised :class:`Span` records.

Spans arrive on disk in several container shapes (``../shared/corpus/FORMATS.md`` section 0). This
module detects the container and normalises every span to one shape, so that a semantic-convention
mapper (``otel.py`` for the GenAI conventions) never sees the container:

* **OTLP/JSON** ``ExportTraceServiceRequest`` -- an object with top-level ``resourceSpans``
  (opentelemetry-proto ``trace/v1/trace.proto``, JSON Protobuf Encoding). Attributes are
  ``[{key, value: AnyValue}]``; ``intValue`` may be a string or a number; ``kind`` and
  ``status.code`` may be integers or enum names (``"SPAN_KIND_CLIENT"``); ids are hex, or base64
  from some producers.
* **JSON Lines of OTLP objects** -- the collector ``file`` exporter writes one request per line.
  A line that is not JSON yields a problem naming ``line N``; the other lines still load.
* **A list of span objects** -- JS SDK ``ReadableSpan``-like dumps (``spanContext.traceId``,
  ``startTime = [seconds, nanos]``), OTel Python ``span.to_json()`` objects (``context.trace_id``
  as ``0x`` hex, ISO times) or bare OTLP spans. Attributes are a flat ``{name: value}`` object.
* **A flat attribute map** -- the object itself is the attributes of one span (test fixtures).

Invariants of :class:`Span`: ids are lower-case hex (or the source's string when it is neither
hex nor base64), ``None`` when absent; times are timezone-aware UTC; attribute values are plain
JSON types (``str``, ``int``, ``float``, ``bool``, ``list``, ``dict``, ``None``).

Errors: :func:`read_spans` raises :class:`~ctxviewer.importers.ImportFailed` for a file that cannot
be read or holds no span container at all; a bad span or line inside a good file is yielded as an
:class:`~ctxviewer.importers.ImportProblem` and reading goes on. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator, Mapping

from . import ImportFailed, ImportProblem
from .otlp_values import decode_key_values, normalise_id, parse_time, span_kind, span_status


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


SpanRecord = Span | ImportProblem


# ---------------------------------------------------------------- containers


def container_of(obj: Any) -> str | None:
    """Name the container shape of one parsed JSON document, or ``None`` if it is none of them.

    Returns ``"otlp"`` (``resourceSpans``), ``"span-list"`` (a JSON array of span objects),
    ``"span"`` (one ReadableSpan / console span object) or ``"attributes"`` (a flat attribute map:
    an object with at least one dotted key such as ``gen_ai.operation.name``).
    """
    if isinstance(obj, Mapping):
        if "resourceSpans" in obj:
            return "otlp"
        if _is_span_object(obj):
            return "span"
        if any(isinstance(k, str) and "." in k for k in obj):
            return "attributes"
        return None
    if isinstance(obj, list) and obj and all(isinstance(o, Mapping) for o in obj):
        return "span-list"
    return None


def _is_span_object(obj: Mapping[str, Any]) -> bool:
    ctx = obj.get("context")
    return (
        isinstance(obj.get("spanContext"), Mapping)
        or (isinstance(ctx, Mapping) and "trace_id" in ctx)
        or ("traceId" in obj and "spanId" in obj)
    )


def _otlp_spans(obj: Mapping[str, Any], prefix: str) -> Iterator[SpanRecord | tuple[str, str]]:
    """OTLP ExportTraceServiceRequest -> spans; a bad span yields ``(record, message)``."""
    for ri, rs in enumerate(obj.get("resourceSpans") or []):
        rpath = f"{prefix}resourceSpans[{ri}]"
        try:
            resource = decode_key_values(((rs.get("resource") or {}).get("attributes")), "resource.attributes")
            scope_spans = rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []
        except (AttributeError, TypeError, ValueError) as exc:
            yield rpath, str(exc)
            continue
        for si, ss in enumerate(scope_spans):
            spath = f"{rpath}.scopeSpans[{si}]"
            if not isinstance(ss, Mapping):
                yield spath, "expected an object"
                continue
            scope = ss.get("scope") or ss.get("instrumentationLibrary") or {}
            scope = {k: v for k, v in scope.items() if k in ("name", "version")} if isinstance(scope, Mapping) else {}
            for pi, sp in enumerate(ss.get("spans") or []):
                record = f"{spath}.spans[{pi}]"
                try:
                    yield _otlp_span(sp, record, resource, scope)
                except (AttributeError, TypeError, ValueError) as exc:
                    yield record, str(exc)


def _otlp_span(sp: Any, record: str, resource: dict[str, Any], scope: dict[str, Any]) -> Span:
    if not isinstance(sp, Mapping):
        raise ValueError("expected a span object")
    status, message = span_status(sp.get("status"))
    return Span(
        trace_id=normalise_id(sp.get("traceId"), 16),
        span_id=normalise_id(sp.get("spanId"), 8),
        parent_id=normalise_id(sp.get("parentSpanId"), 8),
        name=sp.get("name"),
        start=_time(sp.get("startTimeUnixNano"), "startTimeUnixNano"),
        end=_time(sp.get("endTimeUnixNano"), "endTimeUnixNano"),
        attributes=decode_key_values(sp.get("attributes")),
        resource=resource,
        record=record,
        kind=span_kind(sp.get("kind")),
        status=status,
        status_message=message,
        scope=scope,
    )


def _time(value: Any, path: str) -> datetime | None:
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _flat_attrs(value: Any, path: str) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, list):  # a bare OTLP span inside a list
        return decode_key_values(value, path)
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: expected an object")
    return dict(value)


def _object_span(sp: Mapping[str, Any], record: str) -> Span:
    """A ReadableSpan-like, OTel Python console or bare OTLP span object."""
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
    else:  # bare OTLP span
        trace_id, span_id, parent = sp.get("traceId"), sp.get("spanId"), sp.get("parentSpanId")
        start, end = sp.get("startTimeUnixNano"), sp.get("endTimeUnixNano")
    res = sp.get("resource")
    resource = _flat_attrs(res.get("attributes") if isinstance(res, Mapping) else None, "resource.attributes")
    status, message = span_status(sp.get("status"))
    return Span(
        trace_id=normalise_id(trace_id, 16),
        span_id=normalise_id(span_id, 8),
        parent_id=normalise_id(parent, 8),
        name=sp.get("name"),
        start=_time(start, "start"),
        end=_time(end, "end"),
        attributes=_flat_attrs(sp.get("attributes"), "attributes"),
        resource=resource,
        record=record,
        kind=span_kind(sp.get("kind")),
        status=status,
        status_message=message,
    )


def spans_from_json(obj: Any, file: str, prefix: str = "") -> Iterator[SpanRecord]:
    """Normalise one parsed JSON document (any container of the module docstring) to spans.

    ``file`` names the file in problems; ``prefix`` is prepended to records (``"line 3 "``).
    Yields :class:`Span` and, for a bad span, :class:`~ctxviewer.importers.ImportProblem`.
    Raises ``ValueError`` if ``obj`` is not a span container at all.
    """
    kind = container_of(obj)
    if kind == "otlp":
        for rec in _otlp_spans(obj, prefix):
            yield rec if isinstance(rec, (Span, ImportProblem)) else ImportProblem(file, rec[0], rec[1])
    elif kind == "span":
        try:
            yield _object_span(obj, prefix.strip() or "span")
        except (AttributeError, TypeError, ValueError) as exc:
            yield ImportProblem(file, prefix.strip() or "span", str(exc))
    elif kind == "span-list":
        for i, sp in enumerate(obj):
            record = f"{prefix}[{i}]"
            if isinstance(sp, Mapping) and "resourceSpans" in sp:
                yield from spans_from_json(sp, file, f"{record} ")
                continue
            try:
                if not isinstance(sp, Mapping) or not (_is_span_object(sp) or "attributes" in sp):
                    raise ValueError("not a span object (no spanContext, context or attributes)")
                yield _object_span(sp, record)
            except (AttributeError, TypeError, ValueError) as exc:
                yield ImportProblem(file, record, str(exc))
    elif kind == "attributes":
        yield Span(None, None, None, None, None, None, dict(obj), {}, f"{prefix}attributes".strip())
    else:
        raise ValueError("not a span container (no resourceSpans, span objects or attribute map)")


def read_spans(path: Path) -> Iterator[SpanRecord]:
    """All spans of the file at ``path``, in file order, with problems for bad spans and lines.

    The file is one JSON document, or JSON Lines of documents (one OTLP request per line).
    Raises :class:`~ctxviewer.importers.ImportFailed` (message names the file) when the file cannot
    be read, is not JSON, or holds no span container.
    """
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"{file}: cannot read file: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as whole_error:
        yield from _read_lines(text, file, whole_error)
        return
    try:
        yield from spans_from_json(doc, file)
    except ValueError as exc:
        raise ImportFailed(f"{file}: {exc}") from None


def _read_lines(text: str, file: str, whole_error: json.JSONDecodeError) -> Iterator[SpanRecord]:
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    parsed: list[tuple[int, Any]] = []
    problems: dict[int, str] = {}
    for n, line in lines:
        try:
            parsed.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems[n] = f"not valid JSON: {exc.msg} (column {exc.colno})"
    if not parsed or len(lines) < 2:
        raise ImportFailed(f"{file}: not JSON or JSON Lines: {whole_error.msg} (line {whole_error.lineno})")
    good = dict(parsed)
    for n, _line in lines:
        if n in problems:
            yield ImportProblem(file, f"line {n}", problems[n])
            continue
        try:
            yield from spans_from_json(good[n], file, f"line {n} ")
        except ValueError as exc:
            yield ImportProblem(file, f"line {n}", str(exc))


def sniff_document(head: bytes) -> Any:
    """The first JSON document of a file head (the whole head, or else its first line), or ``None``.

    For importers' ``sniff``: never raises. A head cut off inside a large single document gives
    ``None``; callers then fall back to a byte search.
    """
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = head.decode("utf-8-sig", errors="ignore")
    for candidate in (text, text.split("\n", 1)[0]):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None
