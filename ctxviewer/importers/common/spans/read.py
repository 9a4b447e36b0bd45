"""Reading a file of OpenTelemetry spans: detect its container and yield normalised spans.

Spans arrive in several container shapes, one module
each: :mod:`.otlp` (OTLP/JSON ``ExportTraceServiceRequest``, one per file or per line),
:mod:`.span_list` (a JSON array of span objects, or one span object) and :mod:`.attribute_map`
(the object is the attributes of one span). This module picks the container
(:func:`container_of`) and reads whole files (:func:`read_spans`), JSON Lines included;
:func:`read_span_groups` gives the same spans in groups of whole traces, streaming JSON Lines so
memory does not grow with the file (the collector file exporter writes files of any size).

Errors: :func:`read_spans` raises :class:`~ctxviewer.importers.ImportFailed` for a file that cannot
be read or holds no span container at all; a bad span or line inside a good file is yielded as an
:class:`~ctxviewer.importers.ImportProblem` and reading goes on. No Qt here.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Iterator

from ctxviewer.importers.common.compressed import head_bytes
from ctxviewer.importers.common.containers import first_line_is_json, iter_documents, iter_lines, read_bytes, read_text
from ctxviewer.importers.common.spans import attribute_map, otlp, protobuf, span_list
from ctxviewer.importers.common.spans.protobuf import protobuf_request
from ctxviewer.importers.common.spans.span import Span, SpanRecord
from ctxviewer.importers.common.values import decode_any_value, decode_key_values, normalise_id, parse_time
from ctxviewer.importers.contract import ImportFailed, ImportProblem

__all__ = ["Span", "SpanRecord", "container_of", "is_protobuf", "line_groups", "line_trace_ids", "protobuf_request", "read_span_groups", "read_spans", "spans_from_json"]


def container_of(obj: Any) -> str | None:
    """Name the container shape of one parsed JSON document, or ``None`` if it is none of them.

    Returns ``"otlp"`` (``resourceSpans``), ``"span-list"`` (a JSON array of span objects, bare
    or wrapped in an object: :func:`.span_list.unwrap`),
    ``"span"`` (one ReadableSpan / console span object) or ``"attributes"`` (a flat attribute map:
    an object with at least one dotted key such as ``gen_ai.operation.name``).
    """
    if otlp.is_otlp(obj):
        return "otlp"
    if span_list.is_span_object(obj):
        return "span"
    if span_list.unwrap(obj) is not None:
        return "span-list"
    if attribute_map.is_attribute_map(obj):
        return "attributes"
    if span_list.is_span_list(obj):
        return "span-list"
    return None


def spans_from_json(obj: Any, file: str, prefix: str = "") -> Iterator[SpanRecord]:
    """Normalise one parsed JSON document (any container) to spans.

    ``file`` names the file in problems; ``prefix`` is prepended to records (``"line 3 "``).
    Yields :class:`Span` and, for a bad span, :class:`~ctxviewer.importers.ImportProblem`.
    Raises ``ValueError`` if ``obj`` is not a span container at all.
    """
    kind = container_of(obj)
    if kind == "otlp":
        yield from otlp.spans(obj, file, prefix)
    elif kind in ("span", "span-list"):
        yield from span_list.spans(obj, file, prefix)
    elif kind == "attributes":
        yield from attribute_map.spans(obj, file, prefix)
    else:
        raise ValueError("not a span container (no resourceSpans, span objects or attribute map)")


PROTOBUF_SUFFIXES = (".pb", ".binpb", ".protobuf")
"""File name endings of binary OTLP protobuf (``ExportTraceServiceRequest``) files (also before ``.gz``)."""


SNIFF_BYTES = 64 * 1024
"""Bytes of a file's start (gzip undone) whose protobuf fields :func:`is_protobuf` walks: a gzip
head of 64 KiB can expand to 16 MiB, and walking that field by field took seconds per file
(34 s for one 16 KB file of empty messages, review 2026-12-07)."""


def is_protobuf(path: Path, head: bytes | None = None) -> bool:
    """Whether ``path`` is binary OTLP protobuf, gzipped or not: its name ends with one of
    :data:`PROTOBUF_SUFFIXES` (``.pb.gz`` too), or its first bytes (``head``, else read: 64 KiB),
    gzip undone and cut to :data:`SNIFF_BYTES`, begin as an ``ExportTraceServiceRequest`` (:func:`.protobuf.sniff`). Never
    raises (an unreadable file is no protobuf here; its reader says why)."""
    name = Path(path).name.lower()
    if name.endswith(PROTOBUF_SUFFIXES) or name.endswith(tuple(f"{s}.gz" for s in PROTOBUF_SUFFIXES)):
        return True
    if head is None:
        try:
            with open(path, "rb") as fh:
                head = fh.read(64 * 1024)
        except OSError:
            return False
    return protobuf.sniff(head_bytes(head)[:SNIFF_BYTES]) > 0  # the fields of a bounded start: a pure-Python walk


UNJOINED = ""
"""The :func:`log_events` key of GenAI log records without a span id (they join no span)."""


def log_events(doc: Any, keep_unjoined: bool = False) -> dict[str, list[dict[str, Any]]]:
    """OTLP/JSON logs (``resourceLogs``) as span events keyed by span id: each log record
    ``{eventName or attributes event.name, timeUnixNano, body: AnyValue, attributes, spanId}``
    -> ``{name, time, attributes, body}`` (GenAI per-message log events, semconv <= 1.36, and the
    ``gen_ai.client.inference.operation.details`` event). Records without a span id join no span:
    with ``keep_unjoined`` the GenAI ones (``gen_ai.*`` event names) are kept under :data:`UNJOINED`
    (name only), for :func:`unjoined_logs` to count; otherwise they are left out."""
    out: dict[str, list[dict[str, Any]]] = {}
    for rl in doc.get("resourceLogs") or []:
        for sl in rl.get("scopeLogs") or []:
            for lr in sl.get("logRecords") or []:
                sid = normalise_id(lr.get("spanId"), 8)
                if not sid:
                    if not keep_unjoined:
                        continue
                    attrs = decode_key_values(lr.get("attributes"), "logRecords.attributes")
                    if str(lr.get("eventName") or attrs.get("event.name") or "").startswith("gen_ai."):
                        out.setdefault(UNJOINED, []).append({"name": lr.get("eventName") or attrs.get("event.name")})
                    continue
                attrs = decode_key_values(lr.get("attributes"), "logRecords.attributes")
                body = decode_any_value(lr["body"]) if isinstance(lr.get("body"), dict) else lr.get("body")
                out.setdefault(sid, []).append({
                    "name": lr.get("eventName") or attrs.get("event.name"),
                    "time": parse_time(lr.get("timeUnixNano") or lr.get("observedTimeUnixNano")),
                    "attributes": attrs, "body": body})
    return out


def unjoined_logs(logs: dict[str, list[dict[str, Any]]], joined: set[str | None], file: str) -> list[ImportProblem]:
    """One problem for the GenAI log records of ``logs`` that joined no span of the file (no span
    id, or a span id not in ``joined``): they are not imported here, and ``--format otel-logs``
    imports them alone (:mod:`ctxviewer.importers.formats.otel.logs`). ``[]`` when all joined."""
    lost = sum(len(evs) for sid, evs in logs.items() if sid not in joined
               and any(str(e.get("name") or "").startswith("gen_ai.") for e in evs))
    if not lost:
        return []
    return [ImportProblem(file, "whole file", f"{lost} GenAI log record(s) joined no span in this file (no span id, "
                          "or a span the file does not hold): not imported; import the logs alone with "
                          "--format otel-logs", dropped=lost)]


Logs = dict[str, list[dict[str, Any]]]
"""GenAI log records as span events keyed by span id (:func:`log_events`)."""


def _merge(into: Logs, more: Logs | None) -> Logs:
    for sid, evs in (more or {}).items():
        into.setdefault(sid, []).extend(evs)
    return into


def read_spans(path: Path, extra_logs: Logs | None = None, joined: set[str] | None = None) -> Iterator[SpanRecord]:
    """All spans of the file at ``path``, in file order, with problems for bad spans and lines.

    Containers (:mod:`ctxviewer.importers.common.containers`): gzip, UTF-8 with or without BOM, UTF-16
    with BOM; one JSON document, JSON Lines, or pretty-printed objects concatenated (the OTel
    Python console exporter). Binary OTLP protobuf (:func:`is_protobuf`: ``.pb`` / ``.binpb``, or
    by content; gzipped too) is read by :mod:`.protobuf`.
    OTLP logs documents (``resourceLogs``) in the same file are attached to their spans as events,
    and so are ``extra_logs`` (the log records of another file of the import:
    :class:`~ctxviewer.importers.contract.Companions`); the span ids they joined are added to
    ``joined``, and only the file's own unjoined records are warned about here.
    Raises :class:`~ctxviewer.importers.ImportFailed` (message names the file) when the file cannot
    be read, is not JSON, or holds no span container.
    """
    file = str(path)
    if is_protobuf(path):
        yield from otlp.spans(protobuf_request(read_bytes(path), file), file)
        return
    text = read_text(path)
    try:
        docs = list(iter_documents(text))
    except ValueError as exc:
        raise ImportFailed(f"{file}: {exc}") from None
    logs: Logs = {}
    for _record, doc in docs:
        if isinstance(doc, dict) and "resourceLogs" in doc:
            _merge(logs, log_events(doc, keep_unjoined=True))
    own = set(logs)
    _merge(logs, extra_logs)
    single = len(docs) == 1 and docs[0][0] == "document"
    joined_here: set[str | None] = set()
    for record, doc in docs:
        if isinstance(doc, Exception):
            yield ImportProblem(file, record, str(doc), dropped=1)
            continue
        if isinstance(doc, dict) and "resourceLogs" in doc and "resourceSpans" not in doc:
            continue
        try:
            for sp in spans_from_json(doc, file, "" if single else f"{record} "):
                if isinstance(sp, Span) and sp.span_id in logs:
                    sp = replace(sp, events=sp.events + tuple(logs[sp.span_id]))
                    joined_here.add(sp.span_id)
                yield sp
        except ValueError as exc:
            if single:
                raise ImportFailed(f"{file}: {exc}") from None
            yield ImportProblem(file, record, str(exc), dropped=1)
    _joined(joined, joined_here)
    yield from unjoined_logs({k: v for k, v in logs.items() if k in own}, joined_here, file)


def _joined(out: set[str] | None, ids: set[str | None]) -> None:
    if out is not None:
        out.update(i for i in ids if i)


_TRACE_ID = re.compile(r'"(?:traceId|trace_id)"\s*:\s*"([^"\\]*)"')
"""A span's trace id as written in OTLP/JSON (``traceId``) or by the Python SDK (``trace_id``)."""


def _index_lines(path: Path) -> tuple[dict[str, int], Logs]:
    """First pass over a JSON Lines file: the last line each trace id occurs on (found by a regex
    on the raw line, not a parse) and the log records of ``resourceLogs`` lines as span events."""
    last: dict[str, int] = {}
    logs: dict[str, list[dict[str, Any]]] = {}
    for n, line in iter_lines(path):
        if '"resourceLogs"' in line:
            try:
                doc = json.loads(line)
            except ValueError:
                doc = None
            if isinstance(doc, dict):
                for sid, evs in log_events(doc, keep_unjoined=True).items():
                    logs.setdefault(sid, []).extend(evs)
        for tid in line_trace_ids(line):
            last[tid] = n
    return last, logs


def read_span_groups(path: Path, extra_logs: Logs | None = None, joined: set[str] | None = None) -> Iterator[list[SpanRecord]]:
    """The records of :func:`read_spans` in groups, each holding every span of the traces in it.

    A JSON Lines file (the first non-blank line is a whole JSON value and more lines follow) is
    streamed twice, a line at a time: the first pass notes the last line each trace id occurs on
    (and collects OTLP logs), the second yields a trace's spans once its last line has been read,
    with the problems of the lines read since. Memory is then bounded by the longest line, the
    traces still open and one small index entry per trace -- not by the file's size. Spans
    without a trace id come in the last group. Any other container is one group (the whole file).
    ``extra_logs`` and ``joined`` as for :func:`read_spans`.
    Raises :class:`~ctxviewer.importers.ImportFailed` as :func:`read_spans` does.
    """
    if is_protobuf(path) or not first_line_is_json(path):
        yield list(read_spans(path, extra_logs, joined))
        return
    file = str(path)
    last, logs = _index_lines(path)
    own = set(logs)
    _merge(logs, extra_logs)
    held: dict[str | None, list[SpanRecord]] = {}
    joined_here: set[str | None] = set()
    yield from line_groups(iter_lines(path), file, last, logs, held, joined_here)
    rest: list[SpanRecord] = [sp for group in held.values() for sp in group]
    _joined(joined, joined_here)
    rest += unjoined_logs({k: v for k, v in logs.items() if k in own}, joined_here, file)
    if rest:
        yield rest


def line_trace_ids(line: str) -> list[str]:
    """The trace ids one JSON Lines line names (``traceId`` / ``trace_id``, found by a regex on the
    raw line, not a parse; normalised as spans' ids are), as :func:`read_span_groups` indexes them."""
    return [tid for m in _TRACE_ID.finditer(line) if (tid := normalise_id(m.group(1), 16))]


def line_groups(lines: Iterable[tuple[int, str]], file: str, last: dict[str, int], logs: Logs,
                held: dict[str | None, list[SpanRecord]], joined_here: set[str | None]) -> Iterator[list[SpanRecord]]:
    """:func:`read_span_groups`' second pass over ``lines`` (``(N, line)`` of a JSON Lines file):
    after each line, the spans of the traces whose last line (``last``: trace id -> N, emptied as
    they close) it was, with the problems of that line. Spans still open -- and spans whose trace
    id ``last`` does not hold, under the key ``None`` -- stay in ``held``; ``logs`` (span id ->
    log-record events) join their spans, whose ids go into ``joined_here``. Never raises for a
    bad line (it becomes a problem record)."""
    for n, line in lines:
        out: list[SpanRecord] = []
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            out.append(ImportProblem(file, f"line {n}", f"not valid JSON: {exc.msg} (column {exc.colno})",
                                     dropped=1))
            doc = None
        if doc is not None and not (isinstance(doc, dict) and "resourceLogs" in doc and "resourceSpans" not in doc):
            try:
                for sp in spans_from_json(doc, file, f"line {n} "):
                    if not isinstance(sp, Span):
                        out.append(sp)
                        continue
                    if sp.span_id in logs:
                        sp = replace(sp, events=sp.events + tuple(logs[sp.span_id]))
                        joined_here.add(sp.span_id)
                    held.setdefault(sp.trace_id if sp.trace_id in last else None, []).append(sp)
            except ValueError as exc:
                out.append(ImportProblem(file, f"line {n}", str(exc), dropped=1))
        for tid in [t for t in held if t is not None and last[t] <= n]:
            out.extend(held.pop(tid))
            del last[tid]
        if out:
            yield out
