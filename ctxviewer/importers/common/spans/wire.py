"""OTLP/HTTP request bodies as the OTLP/JSON dicts the span containers read.

A body sent to ``/v1/traces`` is an ``ExportTraceServiceRequest``, one sent to ``/v1/logs`` an
``ExportLogsServiceRequest`` (opentelemetry-proto ``collector/*/v1/*_service.proto``), encoded as
binary protobuf (``Content-Type: application/x-protobuf``) or as the JSON Protobuf Encoding
(``application/json``), optionally gzip-compressed (``Content-Encoding: gzip``): the OTLP/HTTP
spec's request forms. The dict is what a file holds, so a span from the wire goes through the same
container reader (:func:`ctxviewer.importers.common.spans.otlp.spans`) and the same ``otel``
mapping as a span from a file. No Qt here.
"""

from __future__ import annotations

import json
import zlib
from typing import Any, Literal

from ctxviewer.importers.common.compressed import gunzip
from ctxviewer.importers.contract import ImportFailed

Signal = Literal["traces", "logs"]
"""Which OTLP/HTTP path a body came to: ``/v1/traces`` or ``/v1/logs``."""

PROTOBUF = "application/x-protobuf"
"""The OTLP/HTTP content type of binary protobuf bodies."""
JSON = "application/json"
"""The OTLP/HTTP content type of JSON Protobuf Encoding bodies."""


class BadRequest(ValueError):
    """A body that is not an OTLP request of its path: the message says what is wrong (answered
    400, which the OTLP/HTTP spec marks not retryable)."""


class UnsupportedMediaType(ValueError):
    """A ``Content-Type`` or ``Content-Encoding`` that OTLP/HTTP does not define (answered 415)."""


class TooLarge(ValueError):
    """A body that decompresses to more than :data:`MAX_DECOMPRESSED_BYTES` (answered 413)."""


MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024
"""Most bytes one request body may decompress to (256 MiB): 64 MiB of gzip can hold about 64 GiB."""


def media_type(content_type: str | None) -> str:
    """``content_type`` without parameters, lower case (``"application/json; charset=utf-8"`` ->
    ``"application/json"``); ``""`` when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def decompressed(body: bytes, content_encoding: str | None) -> bytes:
    """``body`` undone of its ``Content-Encoding`` (``gzip``, ``deflate``, or none / ``identity``).
    Raises :class:`UnsupportedMediaType` for another encoding, :class:`BadRequest` when the
    bytes are not in the encoding they claim, and :class:`TooLarge` past :data:`MAX_DECOMPRESSED_BYTES`."""
    enc = (content_encoding or "identity").strip().lower()
    try:
        if enc == "gzip":  # the importers' bounded gunzip (no decompression bomb)
            return gunzip(body, "request body", MAX_DECOMPRESSED_BYTES)
        if enc == "deflate":
            d = zlib.decompressobj()
            out = d.decompress(body, MAX_DECOMPRESSED_BYTES + 1)
            if len(out) > MAX_DECOMPRESSED_BYTES or d.unconsumed_tail:
                raise TooLarge(f"body decompresses to more than {MAX_DECOMPRESSED_BYTES:,} bytes")
            return out
    except ImportFailed:  # over the bound
        raise TooLarge(f"body decompresses to more than {MAX_DECOMPRESSED_BYTES:,} bytes") from None
    except (OSError, EOFError, zlib.error) as exc:
        raise BadRequest(f"body is not valid {enc}: {exc}") from None
    if enc != "identity":
        raise UnsupportedMediaType(f"Content-Encoding {enc!r} is not supported (use gzip or none)")
    return body


def request_dict(body: bytes, content_type: str | None, signal: Signal) -> dict[str, Any]:
    """The OTLP/JSON dict of one decompressed request ``body`` sent to ``/v1/{signal}``:
    ``{"resourceSpans": [...]}`` or ``{"resourceLogs": [...]}`` (protobuf decoded through the
    opentelemetry-proto package, ids then base64, which the containers read as they read hex).

    Raises :class:`UnsupportedMediaType` for a content type other than :data:`PROTOBUF` and
    :data:`JSON`, :class:`BadRequest` for bytes that do not decode as that request."""
    kind = media_type(content_type)
    if kind == PROTOBUF:
        return _protobuf(body, signal)
    if kind != JSON:
        raise UnsupportedMediaType(f"Content-Type {kind or '(none)'!r} is not OTLP/HTTP "
                                   f"(use {PROTOBUF} or {JSON})")
    try:
        doc = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadRequest(f"body is not JSON: {exc}") from None
    key = "resourceSpans" if signal == "traces" else "resourceLogs"
    if not isinstance(doc, dict) or not isinstance(doc.get(key, []), list):
        raise BadRequest(f"body is not an OTLP {signal} request (expected an object with a {key} list)")
    return doc


def _protobuf(body: bytes, signal: Signal) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]
    from google.protobuf.message import DecodeError  # type: ignore[import-untyped]

    if signal == "traces":
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest as Message
    else:
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (  # type: ignore[assignment]
            ExportLogsServiceRequest as Message,
        )
    try:
        msg = Message.FromString(body)
    except DecodeError as exc:
        raise BadRequest(f"body is not a protobuf {Message.__name__}: {exc}") from None
    return dict(MessageToDict(msg))


def response_body(content_type: str | None, signal: Signal, rejected: int = 0, message: str = "") -> bytes:
    """The body of a success answer, in the request's encoding: an ``Export{Trace,Logs}ServiceResponse``,
    empty for full success (``b""`` as protobuf, ``b"{}"`` as JSON), else with ``partial_success``
    (``rejected_spans`` / ``rejected_log_records`` = ``rejected``, ``error_message`` = ``message``),
    the OTLP spec's answer when some items of an accepted request could not be read."""
    protobuf = media_type(content_type) == PROTOBUF
    if not rejected:
        return b"" if protobuf else b"{}"
    from google.protobuf.json_format import MessageToJson

    if signal == "traces":
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as t

        msg = t.ExportTraceServiceResponse(partial_success=t.ExportTracePartialSuccess(
            rejected_spans=rejected, error_message=message))
    else:
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2 as lg

        msg = lg.ExportLogsServiceResponse(partial_success=lg.ExportLogsPartialSuccess(
            rejected_log_records=rejected, error_message=message))
    return bytes(msg.SerializeToString()) if protobuf else str(MessageToJson(msg, indent=None)).encode("utf-8")
