"""Binary OTLP protobuf: an ``ExportTraceServiceRequest`` as the OTLP/JSON dict the containers read,
with a string that is not UTF-8 repaired instead of the whole file refused.

proto3 requires every ``string`` field to be valid UTF-8 (protobuf language guide, "Scalar Value
Types"), and the protobuf parser refuses the whole message for one bad byte ("String field had bad
UTF-8"). An exporter that cuts an attribute value in the middle of a character writes exactly
that. So when the parser refuses a message for its UTF-8 only, :func:`repair_strings` walks the
protobuf wire format (tag = field number << 3 | wire type; wire type 2 = length-delimited, read
against the message's descriptor) and rewrites each such string with the bad bytes replaced by
U+FFFD (REPLACEMENT CHARACTER), noting where each was; the repaired bytes then parse. Nothing else
is changed. No Qt here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ctxviewer.importers.common import notes
from ctxviewer.importers.common.containers import decode_noting
from ctxviewer.importers.contract import ImportFailed

MAX_DEPTH = 100
"""Message nesting the repair walks (protobuf's own default recursion limit); deeper is refused."""

MAX_NOTED = 5
"""Repaired strings named one problem each; the rest are counted in one more problem."""

_SPAN = "opentelemetry.proto.trace.v1.Span"
_KEY_VALUE = "opentelemetry.proto.common.v1.KeyValue"


@dataclass
class BadString:
    """A ``string`` field that was not UTF-8: ``offset`` = the first bad byte's offset in the
    message (bytes), ``field`` its path inside its span (or from the top, outside any span:
    ``attributes[3].value.stringValue``), ``record`` the span's path
    (``resourceSpans[0].scopeSpans[0].spans[2]``) or ``""``, ``span_id`` / ``trace_id`` hex or ``None``,
    ``key`` the attribute key whose value it is, when it is one."""

    offset: int
    field: str
    record: str = ""
    span_id: str | None = None
    trace_id: str | None = None
    key: str | None = None


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def _put_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _repeated(field: Any) -> bool:
    """Whether a ``FieldDescriptor`` is repeated (``is_repeated`` since protobuf 6, ``label`` before)."""
    flag = getattr(field, "is_repeated", None)
    return bool(flag) if flag is not None else field.label == field.LABEL_REPEATED


def repair_strings(data: bytes, descriptor: Any) -> tuple[bytes, list[BadString]]:
    """``data`` (a serialized message of ``descriptor``, a protobuf ``Descriptor``) with every
    ``string`` field that is not UTF-8 decoded with U+FFFD for its bad bytes and re-encoded (the
    lengths around it rewritten), and those fields in wire order. Unknown fields and every other
    value are copied unchanged. Raises ``ValueError`` when ``data`` is not well-formed wire format
    (a truncated field, a group, nesting deeper than :data:`MAX_DEPTH`)."""
    found: list[BadString] = []
    out = _walk(data, 0, len(data), descriptor, "", "", 0, found, None)
    return out, found


def _walk(data: bytes, pos: int, end: int, desc: Any, path: str, record: str, depth: int,
          found: list[BadString], key: str | None) -> bytes:
    if depth > MAX_DEPTH:
        raise ValueError(f"messages nested deeper than {MAX_DEPTH}")
    out = bytearray()
    counts: dict[int, int] = {}
    first = len(found)
    ids: dict[int, bytes] = {}
    while pos < end:
        start = pos
        tag, pos = _varint(data, pos, end)
        tag_end = pos
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, pos = _varint(data, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire != 2:
            raise ValueError(f"wire type {wire} at byte {start}")
        if wire != 2:
            if pos > end:
                raise ValueError(f"field cut short at byte {start}")
            out += data[start:pos]
            continue
        length, body = _varint(data, pos, end)
        stop = body + length
        if stop > end:
            raise ValueError(f"field cut short at byte {start}")
        pos = stop
        field = desc.fields_by_number.get(number)
        if field is None:
            out += data[start:stop]
            continue
        n = counts.get(number, 0)
        counts[number] = n + 1
        name = field.json_name
        here = f"{path}.{name}" if path else name
        if _repeated(field):
            here += f"[{n}]"
        if field.type == field.TYPE_STRING:
            raw = data[body:stop]
            try:
                text = raw.decode("utf-8")
                if desc.full_name == _KEY_VALUE and number == 1:
                    key = text
            except UnicodeDecodeError:
                text, bad = decode_noting(raw)
                found.append(BadString(body + bad[0][0], here, key=key if desc.full_name != _KEY_VALUE or number != 1 else None))
            payload = text.encode("utf-8")
        elif field.type == field.TYPE_MESSAGE:
            in_span = field.message_type.full_name == _SPAN
            payload = _walk(data, body, stop, field.message_type, "" if in_span else here,
                            here if in_span else record, depth + 1, found, key)
        else:
            if desc.full_name == _SPAN and number in (1, 2):  # trace_id, span_id (bytes)
                ids[number] = data[body:stop]
            out += data[start:stop]
            continue
        out += data[start:tag_end]  # the tag as written
        out += _put_varint(len(payload)) + payload
    if desc.full_name == _SPAN:
        for b in found[first:]:
            b.record = record
            b.trace_id = ids[1].hex() if ids.get(1) else None
            b.span_id = ids[2].hex() if ids.get(2) else None
    else:
        for b in found[first:]:
            b.record = b.record or record
    return bytes(out)


def bad_string_notes(found: list[BadString]) -> list[tuple[str, str]]:
    """``(record, message)`` for each repaired string (at most :data:`MAX_NOTED`, then one counting
    the rest): record = the span's path and id (``resourceSpans[0].scopeSpans[0].spans[2] span
    00f0…``; ``whole file`` outside a span), message = the field, its attribute key when it is an
    attribute value, the trace id, and ``invalid UTF-8 at byte N; replaced with U+FFFD``."""
    out = []
    for b in found[:MAX_NOTED]:
        where = b.record or "whole file"
        if b.span_id:
            where += f" span {b.span_id}"
        field = b.field + (f" (attribute {b.key})" if b.key else "")
        trace = f" of trace {b.trace_id}" if b.trace_id else ""
        out.append((where, f"{field}{trace}: invalid UTF-8 at byte {b.offset}; replaced with U+FFFD"))
    if len(found) > MAX_NOTED:
        out.append(("whole file", f"{len(found) - MAX_NOTED} more string(s) with invalid UTF-8; replaced with U+FFFD"))
    return out


_WIRE_OF = {"TYPE_DOUBLE": 1, "TYPE_FIXED64": 1, "TYPE_SFIXED64": 1, "TYPE_FLOAT": 5, "TYPE_FIXED32": 5,
             "TYPE_SFIXED32": 5, "TYPE_STRING": 2, "TYPE_BYTES": 2, "TYPE_MESSAGE": 2}
"""The wire type of each field type (every other scalar is a varint, 0); a repeated scalar may also be packed (2)."""


def sniff(head: bytes) -> float:
    """0.9 when ``head`` (a file's first bytes, gzip undone) begins as a binary OTLP
    ``ExportTraceServiceRequest``: its first field is ``resource_spans`` (tag ``0a``) and every
    field up to where the head stops has a number and wire type the message's descriptor allows
    (strict: JSON text, a zip or a database never pass); else 0. Never raises."""
    if not head.startswith(b"\x0a") or len(head) < 8:
        return 0.0
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    try:
        return 0.9 if _fits(head, 0, len(head), ExportTraceServiceRequest.DESCRIPTOR, 0) else 0.0
    except ValueError:
        return 0.0


@functools.cache
def _type_names() -> dict[int, str]:
    from google.protobuf.descriptor import FieldDescriptor  # type: ignore[import-untyped]

    return {v: k for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_") and isinstance(v, int)}


def _fits(data: bytes, pos: int, end: int, desc: Any, depth: int) -> bool:
    """Whether ``data[pos:end]`` is fields of ``desc``, the last one possibly cut off by the head's end."""
    if depth > MAX_DEPTH:
        return False
    names = _type_names()
    while pos < end:
        try:
            tag, pos = _varint(data, pos, end)
        except ValueError:
            return end == len(data) and end - pos < 10  # a tag cut by the head's end
        field = desc.fields_by_number.get(tag >> 3)
        wire = tag & 7
        if field is None:
            return False
        want = _WIRE_OF.get(names.get(field.type, ""), 0)
        if wire != want and not (_repeated(field) and wire == 2 and want != 2):
            return False
        if wire == 2:
            try:
                length, body = _varint(data, pos, end)
            except ValueError:
                return True  # cut by the head
            stop = min(body + length, end)
            if field.type == field.TYPE_MESSAGE and not _fits(data, body, stop, field.message_type, depth + 1):
                return False
            if body + length > end:
                return end == len(data)  # only the head may cut a field short
            pos = stop
        elif wire == 0:
            try:
                _, pos = _varint(data, pos, end)
            except ValueError:
                return end == len(data)
        else:
            pos += 8 if wire == 1 else 4
            if pos > end:
                return end == len(data)
    return True


def protobuf_request(data: bytes, file: str) -> dict[str, Any]:
    """Binary OTLP ``ExportTraceServiceRequest`` bytes as the OTLP/JSON dict (through the
    opentelemetry-proto package; ids come out base64, which
    :func:`ctxviewer.importers.common.values.normalise_id` reads). A message refused only for a
    string that is not UTF-8 is read repaired (:func:`repair_strings`), each string noted as a
    problem of the file (:func:`bad_string_notes` through :func:`ctxviewer.importers.common.notes.warn`). Raises :class:`ImportFailed` naming the file
    when the bytes are not such a message."""
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]
    from google.protobuf.message import DecodeError  # type: ignore[import-untyped]
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    try:
        msg = ExportTraceServiceRequest.FromString(data)
    except (DecodeError, UnicodeDecodeError) as exc:  # upb: DecodeError "bad UTF-8"; the pure-Python parser: UnicodeDecodeError
        msg = None
        if isinstance(exc, UnicodeDecodeError) or "UTF-8" in str(exc):
            try:
                fixed, found = repair_strings(data, ExportTraceServiceRequest.DESCRIPTOR)
                msg = ExportTraceServiceRequest.FromString(fixed) if found else None
            except (ValueError, DecodeError):  # UnicodeDecodeError is a ValueError
                msg = None
        if msg is None:
            raise ImportFailed(f"{file}: not an OTLP protobuf ExportTraceServiceRequest: {exc}") from None
        for record, message in bad_string_notes(found):
            notes.warn(record, message)
    return dict(MessageToDict(msg))
