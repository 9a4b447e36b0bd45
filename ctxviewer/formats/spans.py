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

Errors: :func:`read_spans` raises :class:`~ctxviewer.formats.ImportFailed` for a file that cannot
be read or holds no span container at all; a bad span or line inside a good file is yielded as an
:class:`~ctxviewer.formats.ImportProblem` and reading goes on. No Qt here.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping, Union

from . import ImportFailed, ImportProblem

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_HEX = re.compile(r"[0-9a-fA-F]+")

SPAN_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
"""Normalised span kinds, indexed by the OTLP ``SpanKind`` enum number."""
STATUS_CODES = ("unset", "ok", "error")
"""Normalised status codes, indexed by the OTLP ``Status.StatusCode`` enum number."""


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


SpanRecord = Union[Span, ImportProblem]


# ---------------------------------------------------------------- scalar decoding


def decode_any_value(value: Any, path: str = "value") -> Any:
    """Decode an OTLP/JSON ``AnyValue`` object to a plain JSON value.

    ``stringValue`` -> ``str``; ``intValue`` (a decimal string or a number) -> ``int``;
    ``doubleValue`` -> ``float`` (also ``"NaN"``/``"Infinity"`` strings); ``boolValue`` -> ``bool``;
    ``arrayValue{values[]}`` -> ``list``; ``kvlistValue{values[{key,value}]}`` -> ``dict``;
    ``bytesValue`` -> its base64 text unchanged; ``{}`` -> ``None``.
    Raises ``ValueError`` naming ``path`` for a value of none of these shapes.
    """
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: expected an AnyValue object, got {type(value).__name__}")
    if "stringValue" in value:
        return str(value["stringValue"])
    if "intValue" in value:
        raw = value["intValue"]
        if isinstance(raw, bool) or not isinstance(raw, (int, str)):
            raise ValueError(f"{path}: intValue {raw!r} is not an integer")
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{path}: intValue {raw!r} is not an integer") from None
    if "doubleValue" in value:
        raw = value["doubleValue"]
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise ValueError(f"{path}: doubleValue {raw!r} is not a number") from None
    if "boolValue" in value:
        raw = value["boolValue"]
        return raw if isinstance(raw, bool) else str(raw).lower() == "true"
    if "arrayValue" in value:
        values = (value["arrayValue"] or {}).get("values") or []
        return [decode_any_value(v, f"{path}[{i}]") for i, v in enumerate(values)]
    if "kvlistValue" in value:
        return decode_key_values((value["kvlistValue"] or {}).get("values") or [], path)
    if "bytesValue" in value:
        return str(value["bytesValue"])
    if not value:
        return None
    raise ValueError(f"{path}: unknown AnyValue {sorted(value)!r}")


def decode_key_values(kvs: Any, path: str = "attributes") -> dict[str, Any]:
    """Decode an OTLP ``[{key, value: AnyValue}]`` list to ``{key: plain value}``.

    Raises ``ValueError`` naming the entry (``attributes[3] (gen_ai.usage.input_tokens)``).
    """
    if kvs is None:
        return {}
    if not isinstance(kvs, list):
        raise ValueError(f"{path}: expected a list of key/value objects")
    out: dict[str, Any] = {}
    for i, kv in enumerate(kvs):
        if not isinstance(kv, Mapping) or not isinstance(kv.get("key"), str):
            raise ValueError(f"{path}[{i}]: expected {{key, value}}")
        out[kv["key"]] = decode_any_value(kv.get("value") or {}, f"{path}[{i}] ({kv['key']})")
    return out


def normalise_id(value: Any, nbytes: int) -> str | None:
    """A trace id (``nbytes=16``) or span id (``nbytes=8``) as lower-case hex.

    Accepts hex (the OTLP/JSON rule), ``0x``-prefixed hex (OTel Python console) and base64 of the
    binary id (some producers). ``None`` or ``""`` -> ``None``. A string of another form (a UUID, a
    redacted value) is returned unchanged so it still identifies the span.
    """
    if value is None or value == "":
        return None
    s = str(value).strip()
    if s.lower().startswith("0x"):
        s = s[2:].rjust(nbytes * 2, "0")
    if len(s) == nbytes * 2 and _HEX.fullmatch(s):
        return s.lower()
    try:
        raw = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return s
    return raw.hex() if len(raw) == nbytes else s


def parse_time(value: Any) -> datetime | None:
    """A span time as aware UTC (microsecond precision).

    Accepts Unix nanoseconds as a decimal string or number (OTLP ``startTimeUnixNano``), a JS
    ``HrTime`` pair ``[seconds, nanos]``, or an ISO-8601 string (naive taken as UTC). ``None``,
    ``""`` and OTLP's ``"0"`` (unset) -> ``None``. Raises ``ValueError`` for anything else.
    """
    if value is None or value == "" or value == "0" or value == 0:
        return None
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return _EPOCH + timedelta(seconds=int(value[0]), microseconds=int(value[1]) // 1000)
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a time")
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        ns = int(value)
        return _EPOCH + timedelta(seconds=ns // 1_000_000_000, microseconds=(ns % 1_000_000_000) // 1000)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{value!r} is not a time") from None
        return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    raise ValueError(f"{value!r} is not a time")


def _enum_name(value: Any, names: tuple[str, ...], prefixes: tuple[str, ...]) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return names[value] if 0 <= value < len(names) else str(value)
    s = str(value)
    for p in prefixes:
        if s.upper().startswith(p):
            s = s[len(p):]
            break
    return s.lower()


def _kind(value: Any) -> str | None:
    return _enum_name(value, SPAN_KINDS, ("SPAN_KIND_", "SPANKIND."))


def _status(value: Any) -> tuple[str | None, str | None]:
    if not isinstance(value, Mapping):
        return None, None
    code = value.get("code", value.get("status_code"))
    message = value.get("message", value.get("description")) or None
    if code is None:
        return ("unset" if value else None), message
    return _enum_name(code, STATUS_CODES, ("STATUS_CODE_", "STATUSCODE.")), message


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
    status, message = _status(sp.get("status"))
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
        kind=_kind(sp.get("kind")),
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
    status, message = _status(sp.get("status"))
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
        kind=_kind(sp.get("kind")),
        status=status,
        status_message=message,
    )


def spans_from_json(obj: Any, file: str, prefix: str = "") -> Iterator[SpanRecord]:
    """Normalise one parsed JSON document (any container of the module docstring) to spans.

    ``file`` names the file in problems; ``prefix`` is prepended to records (``"line 3 "``).
    Yields :class:`Span` and, for a bad span, :class:`~ctxviewer.formats.ImportProblem`.
    Raises ``ValueError`` if ``obj`` is not a span container at all.
    """
    kind = container_of(obj)
    if kind == "otlp":
        for rec in _otlp_spans(obj, prefix):
            yield rec if isinstance(rec, Span) else ImportProblem(file, rec[0], rec[1])
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
    Raises :class:`~ctxviewer.formats.ImportFailed` (message names the file) when the file cannot
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
