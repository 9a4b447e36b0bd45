"""OTLP log records of GenAI message events without their spans (``otel-logs``): a ``/v1/logs``
JSON export (``ExportLogsServiceRequest``: ``resourceLogs`` -> ``scopeLogs`` -> ``logRecords``),
as the opentelemetry-python-contrib GenAI instrumentations emit them (semconv 1.28 - 1.36, the
deprecated per-message events of ``model/gen-ai/deprecated/events-deprecated.yaml``):
``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.assistant.message`` (body
``{content, tool_calls}``), ``gen_ai.tool.message`` (body ``{content, id}``), ``gen_ai.choice``
(body ``{index, finish_reason, message}``), and ``gen_ai.client.inference.operation.details``.

A file that holds the spans too (``resourceSpans`` beside ``resourceLogs``) is read by the ``otel``
importer, which folds each span's log records into it. This one gives the records a trace of their
own: records are grouped by ``(traceId, spanId)`` -- the chat span they belong to, which this file
does not hold --, records with a trace id but no span id by trace id, records with neither into
one call per run of messages ending at its ``gen_ai.choice``. Each group is folded into a synthetic
``chat`` span (:func:`.events.fold_events`) and mapped as a span is (:func:`.mapping.call_from_span`):
its start is the first record's time; its end, model and usage are not recorded in log records
(``ctxviewer.span = "not in this file (log records only)"``). The event name is ``eventName`` or
the ``event.name`` attribute; ``gen_ai.system`` / ``gen_ai.provider.name`` on a record names the
provider. Log records of other events are named in ``ctxviewer.unmapped`` (``log event NAME``). A
record that cannot be read (not an object) is a problem naming it, a bad time a warning; the rest loads.
No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common.containers import head_text, load_documents
from ctxviewer.importers.common.field_account import unmapped_attribute
from ctxviewer.importers.common.llm_call import build_trace
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.common.values import decode_any_value, decode_key_values, normalise_id, parse_time
from ctxviewer.importers.contract import Companions, ImportFailed, ImportProblem, Record
from ctxviewer.importers.formats.otel.events import DETAILS_EVENT, MESSAGE_EVENTS, fold_events
from ctxviewer.importers.formats.otel.mapping import call_from_span

NAME = "otel-logs"
GENAI_EVENTS = frozenset({*MESSAGE_EVENTS, "gen_ai.choice", DETAILS_EVENT})
"""The log event names read as a model call's content."""


def log_records(doc: Mapping[str, Any], file: str, prefix: str = "") -> Iterator[dict[str, Any] | ImportProblem]:
    """Every log record of one ``ExportLogsServiceRequest`` as ``{record, trace_id, span_id, name,
    time, attributes, body, resource}`` (ids lower-case hex, time aware UTC or ``None``, body and
    attributes decoded from OTLP ``AnyValue``), or a problem naming a record that cannot be read."""
    for i, rl in enumerate(doc.get("resourceLogs") or []):
        rl = rl if isinstance(rl, Mapping) else {}
        res = rl.get("resource")
        resource = decode_key_values(res.get("attributes"), "resource.attributes") if isinstance(res, Mapping) else {}
        for j, sl in enumerate(rl.get("scopeLogs") or []):
            for k, lr in enumerate((sl.get("logRecords") if isinstance(sl, Mapping) else None) or []):
                where = f"{prefix}resourceLogs[{i}].scopeLogs[{j}].logRecords[{k}]"
                try:
                    if not isinstance(lr, Mapping):
                        raise ValueError(f"log record is {type(lr).__name__}, not an object")
                    attrs = decode_key_values(lr.get("attributes"), "attributes")
                    raw = lr.get("body")
                    body = decode_any_value(raw, "body") if isinstance(raw, Mapping) else raw
                except (ValueError, TypeError, KeyError) as exc:
                    yield ImportProblem(file, where, str(exc), dropped=1)
                    continue
                try:
                    when = parse_time(lr.get("timeUnixNano") or lr.get("observedTimeUnixNano"))
                except ValueError as exc:  # a field that cannot be read costs the field, not the record
                    yield ImportProblem(file, where, f"timeUnixNano: {exc}; time not recorded")
                    when = None
                yield {"record": where, "trace_id": normalise_id(lr.get("traceId"), 16),
                       "span_id": normalise_id(lr.get("spanId"), 8), "name": lr.get("eventName") or attrs.get("event.name"),
                       "time": when, "attributes": attrs, "body": body, "resource": resource}


def group_records(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """GenAI log records grouped into calls (see module docstring), in order of each group's first record."""
    groups: dict[object, list[dict[str, Any]]] = {}
    loose = 0  # records with no ids: a new call after each gen_ai.choice
    for rec in records:
        if rec["span_id"] or rec["trace_id"]:
            key: object = (rec["trace_id"], rec["span_id"])
        else:
            key = ("loose", loose)
            if groups.get(key) and groups[key][-1]["name"] == "gen_ai.choice" and rec["name"] != "gen_ai.choice":
                loose += 1
                key = ("loose", loose)
        groups.setdefault(key, []).append(rec)
    return list(groups.values())


def _span(group: list[dict[str, Any]]) -> Span:
    first = group[0]
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    for rec in group:
        for key in ("gen_ai.system", "gen_ai.provider.name"):
            if rec["attributes"].get(key) is not None:
                attrs.setdefault(key, rec["attributes"][key])
    events = tuple({"name": r["name"], "time": r["time"], "attributes": r["attributes"], "body": r["body"]} for r in group)
    return Span(trace_id=first["trace_id"], span_id=first["span_id"], parent_id=None, name=None, start=first["time"],
                end=None, attributes=attrs, resource=first["resource"], record=first["record"], end_unreadable=True,
                events=events)


class OtelLogsImporter:
    """The ``otel-logs`` importer (see module docstring)."""

    name = NAME
    records_omissions = False
    description = "OTLP log records of GenAI message events (/v1/logs JSON: resourceLogs) without their spans"

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 for OTLP logs (``resourceLogs``, no ``resourceSpans``) with a ``gen_ai.`` name in ``head``; else 0."""
        text = head_text(head)
        return 0.9 if '"resourceLogs"' in text and '"resourceSpans"' not in text and "gen_ai." in text else 0.0

    def load(self, path: Path, companions: Companions | None = None) -> Iterator[Record]:
        """One trace per group of GenAI log records, in file order; problems for unreadable records.
        With ``companions`` holding spans files (``otel``) that joined some of these records
        (:mod:`.join`), only the rest is imported, with warnings saying how many joined where and
        naming the GenAI records that joined no span (:func:`rest_warnings`).
        Raises :class:`ImportFailed` when the file holds no OTLP logs."""
        file = str(path)
        taken = companions.joined.get(path, set()) if companions is not None else set()
        docs = load_documents(path)
        single = len(docs) == 1
        records: list[dict[str, Any]] = []
        found = False
        for record, doc in docs:
            if isinstance(doc, Exception) or not isinstance(doc, Mapping) or "resourceLogs" not in doc:
                yield ImportProblem(file, record, str(doc) if isinstance(doc, Exception) else "not an OTLP logs request",
                                    dropped=1)
                continue
            found = True
            for rec in log_records(doc, file, "" if single else f"{record} "):
                if isinstance(rec, ImportProblem):
                    yield rec
                else:
                    records.append(rec)
        if not found:
            raise ImportFailed(f"{path}: no OTLP logs (resourceLogs)")
        spans_given = companions is not None and bool(companions.of("otel"))
        joined = sum(1 for r in records if r["span_id"] and r["span_id"] in taken)
        records = [r for r in records if not (r["span_id"] and r["span_id"] in taken)]
        yield from rest_warnings(file, joined, companions.hosts.get(path, []) if companions else [], records, spans_given)
        other: dict[object, list[str]] = {}  # (trace id, span id) -> the other events' names
        genai = []
        for rec in records:
            if rec["name"] in GENAI_EVENTS:
                genai.append(rec)
            else:
                other.setdefault((rec["trace_id"], rec["span_id"]), []).append(f"log event {rec['name'] or 'unnamed'}")
        groups = group_records(genai)
        for group in groups:
            mine = other.pop((group[0]["trace_id"], group[0]["span_id"]), []) if group[0]["span_id"] or group[0]["trace_id"] else []
            span = fold_events(_span(group))
            where = group[0]["record"]
            problems: list[str] = []
            try:
                call = call_from_span(span, problems)
                call.attributes.update({"ctxviewer.span": "not in this file (log records only)",
                                        "otel.log_records": len(group), **unmapped_attribute(mine)})
                trace, notes = build_trace(call)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                yield ImportProblem(file, where, f"cannot map the GenAI log records: {exc}", dropped=1)
                continue
            yield trace
            for message in problems + notes:
                yield ImportProblem(file, where, message)
        left = [name for names in other.values() for name in names]
        if left:
            yield ImportProblem(file, "whole file", f"{len(left)} log record(s) of other events belong to no GenAI call "
                                f"and are not imported: {', '.join(sorted(set(left)))}")
        if not groups and not joined:
            yield ImportProblem(file, "whole file", "no GenAI log events (gen_ai.*.message, gen_ai.choice)")


def rest_warnings(file: str, joined: int, hosts: list[str], rest: list[dict[str, Any]],
                  spans_given: bool) -> list[ImportProblem]:
    """The notes and warnings of a logs file imported with spans files (:mod:`.join`): how many
    records joined their spans (and in which files: a note, ``info``, since nothing is wrong), and
    the GenAI records that joined none (a warning) -- imported
    on their own as log-only calls, each span id named (``rest``: the records left, as
    :func:`log_records` gives them). ``[]`` when no spans file was given with it."""
    if not spans_given:
        return []
    out = []
    if joined:
        out.append(ImportProblem(file, "whole file", f"{joined} log record(s) joined their spans in "
                                 f"{', '.join(hosts)}: their content is on those calls", info=True))
    genai = [r for r in rest if r["name"] in GENAI_EVENTS]
    if genai:
        ids = sorted({r["span_id"] or "(no span id)" for r in genai})
        out.append(ImportProblem(file, "whole file", f"{len(genai)} GenAI log record(s) joined no span of the spans "
                                 f"file(s) imported with it (span {', '.join(ids)}): imported on their own as "
                                 "log-only calls"))
    return out


IMPORTER = OtelLogsImporter()
"""The ``otel-logs`` importer (listed in ``ctxviewer.importers.registry.BUILTIN`` as ``otel.logs``)."""
