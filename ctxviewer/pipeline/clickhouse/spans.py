"""Rows of a spans table as spans and traces: the OTel importer's mapping, one code path.

:func:`span_of` turns a row of :meth:`~ctxviewer.pipeline.clickhouse.schema.TableSchema.trace_sql`
into the importers' :class:`~ctxviewer.importers.common.spans.span.Span` -- the shape every span
container is normalised to -- and :func:`trace_of` makes the chat span one trace with
:func:`ctxviewer.importers.formats.otel.load_spans` over the spans of its OTel trace (so
session, agent and system instructions inherited from ancestors and the tools that fed it are
those a file of the same spans gives), then repairs and counts it as an import does
(:func:`ctxviewer.pipeline.sanitize.repair`, :func:`ctxviewer.pipeline.missing_counts.count_missing_tokens`)
and reads it back through the stored form (:func:`ctxviewer.model.serialize.trace_to_dict`), so
``show`` says what it says of the same span imported into SQLite.

The exporter writes every attribute value as text (``"412"``, ``"true"``, JSON for arrays and maps);
the mapping reads numeric text as numbers (``gen_ai.usage.*``), so a span reads the same. Times:
``Timestamp`` is the start (nanoseconds, kept to microseconds as the importers keep them), the end
is ``Timestamp + Duration`` (nanoseconds). No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.common.values import span_kind, span_status
from ctxviewer.importers.contract import ImportProblem
from ctxviewer.importers.formats.otel import load_spans
from ctxviewer.model.serialize import trace_from_dict, trace_to_dict
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.missing_counts import count_missing_tokens
from ctxviewer.pipeline.sanitize import repair
from ctxviewer.store import TraceRow, TraceStore

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def at_nanos(ns: int) -> datetime:
    """Nanoseconds since the epoch as an aware UTC datetime (microseconds; the rest dropped)."""
    return _EPOCH + timedelta(microseconds=int(ns) // 1000)


def trace_id(otel_trace: str, span: str) -> str:
    """The trace id of a chat span, as the importer names it: ``"{TraceId}:{SpanId}"``."""
    return f"{otel_trace}:{span}"


def split_id(tid: str) -> tuple[str, str] | None:
    """``(TraceId, SpanId)`` of a trace id from :func:`trace_id`, or ``None`` for another form."""
    otel_trace, sep, span = tid.partition(":")
    return (otel_trace, span) if sep and otel_trace and span else None


def list_row(row: Sequence[Any]) -> TraceRow:
    """The narrow :class:`~ctxviewer.store.TraceRow` of a :meth:`TableSchema.row_select` row: what
    the span's own columns say; the facts (state, counted input, retained / omitted) are not known
    until the trace is read (``retained_count`` ``None``: :func:`ctxviewer.pipeline.fresh_rows.refreshed_row`
    lays out the whole row)."""
    _ns, tr, sp, service, model, provider, session, operation, status, message, agent = row
    code, _ = span_status({"code": status} if status else None)
    return TraceRow(trace_id=trace_id(tr, sp), created=at_nanos(_ns), service=service or None,
                    provider=provider or None, model=model or None, capacity=None, input_tokens=None,
                    reserved_output_tokens=None, retained_count=None, omitted_count=None, replay_of=None,
                    source_format="otel", session_id=session or None, span_status=code,
                    status_message=message or None, agent=agent or None, operation=operation or None)


def _attributes(value: Any) -> dict[str, Any]:
    """An attribute column's value (a Map as a dict, or JSON text) as a flat ``{name: value}``."""
    if isinstance(value, str):
        value = json.loads(value) if value else {}
    if not isinstance(value, Mapping):
        return {}
    out: dict[str, Any] = {}

    def flat(prefix: str, v: Any) -> None:
        if isinstance(v, Mapping) and prefix:
            for k, inner in v.items():
                flat(f"{prefix}.{k}", inner)
        else:
            out[prefix] = v

    for k, v in value.items():
        flat(str(k), v)
    return out


def span_of(row: Sequence[Any], where: str) -> Span:
    """The :class:`~ctxviewer.importers.common.spans.span.Span` of a ``trace_sql`` row."""
    (ns, _ts, tr, sp, parent, name, kind, service, resource, scope, scope_version, attrs, duration, status,
     message, ev_times, ev_names, ev_attrs) = row
    res = _attributes(resource)
    if service and "service.name" not in res:
        res["service.name"] = service
    start = at_nanos(ns)
    code, _ = span_status({"code": status} if status else None)
    events = tuple({"name": n, "time": at_nanos(t),
                    "attributes": _attributes(a), "body": None}
                   for t, n, a in zip(ev_times, ev_names, ev_attrs if isinstance(ev_attrs, list) else []))
    return Span(trace_id=tr, span_id=sp, parent_id=parent or None, name=name or None, start=start,
                end=at_nanos(int(ns) + int(duration)), attributes=_attributes(attrs), resource=res,
                record=f"{where} span {sp}", kind=span_kind(kind) if kind else None, status=code,
                status_message=message or None,
                scope={k: v for k, v in (("name", scope), ("version", scope_version)) if v}, events=events)


class _UncachedCounts:
    """Token counts without a database cache (what :meth:`TraceStore.token_counts` gives)."""

    def token_counts(self, texts: list[str], encoding: str) -> list[int]:
        from ctxviewer.tokens.counting import count_many

        return count_many(texts, encoding)


def trace_of(rows: Sequence[Sequence[Any]], wanted: str, where: str) -> tuple[RequestTrace | None, list[str]]:
    """The trace ``wanted`` (a ``TraceId:SpanId``) made from the rows of its OTel trace, and the
    mapping's problems about it (``None`` when no chat span of the rows has that id)."""
    spans = [span_of(r, where) for r in rows]
    found: RequestTrace | None = None
    problems: list[str] = []
    for rec in load_spans(list(spans), where):
        if isinstance(rec, ImportProblem):
            problems.append(f"{rec.record}: {rec.message}")
        elif rec.trace_id == wanted:
            found = rec
    if found is None:
        return None, problems
    found, repaired = as_stored(found)
    return found, problems + repaired


def as_stored(trace: RequestTrace) -> tuple[RequestTrace, list[str]]:
    """``trace`` as an import into a trace database stores it, read back: repaired
    (:func:`ctxviewer.pipeline.sanitize.repair`; its notes returned), missing token counts
    filled (:func:`ctxviewer.pipeline.missing_counts.count_missing_tokens`, no cache), and
    round-tripped through the stored form (so a table's trace equals the imported one)."""
    found, repaired = repair(trace)
    found = count_missing_tokens(found, cast(TraceStore, _UncachedCounts()))
    stored = trace_to_dict(found)
    stored["omissions_recorded"] = found.omissions_recorded  # as the store writes it
    return trace_from_dict(stored), repaired


def row_key(trace_id: str) -> int:
    """A list row's key: a stable signed 64-bit hash of the trace id (blake2b, 8 bytes)."""
    import hashlib

    return int.from_bytes(hashlib.blake2b(trace_id.encode("utf-8"), digest_size=8).digest(), "big", signed=True)
