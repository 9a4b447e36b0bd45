"""OpenTelemetry GenAI importer (``otel``): one :class:`~ctxviewer.model.RequestTrace` per
model-call span, from any span container.

The package is split by container over shared parts:

* containers, one module each, each with ``sniff(JsonPeek) -> float`` and ``spans(obj, file,
  prefix) -> Iterator[Span | ImportProblem]``: :mod:`.otlp` (OTLP/JSON request, also JSON Lines
  of requests), :mod:`.span_list` (span arrays / one span object), :mod:`.attribute_map` (a flat
  attribute map); :mod:`.read` picks the container and reads files;
* :mod:`.span` -- the normalised :class:`~.span.Span` every container yields; :mod:`.values` --
  OTLP ``AnyValue``, id, time and enum decoding;
* :mod:`.messages` -- the shared chat-message normaliser (any message encoding -> OTel GenAI
  messages -> item text), for this and future chat-format importers;
* :mod:`.mapping` -- span -> trace under the GenAI semantic conventions (``build_trace``).

OTel spans record only what was sent (``records_omissions = False``) and no per-item token counts
(the import pipeline counts them). No Qt here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from .._api import ImportProblem, Record
from ..peek import peek_json
from . import attribute_map, otlp, span_list
from .mapping import build_trace, is_chat_span, response_from, token_count, usage_from
from .read import read_spans

__all__ = ["IMPORTER", "OtelImporter", "build_trace", "is_chat_span", "response_from", "token_count", "usage_from"]

class OtelImporter:
    """The ``otel`` importer: OpenTelemetry GenAI spans in any span container."""

    name = "otel"
    records_omissions = False  # GenAI spans record what was sent, not the trimmed candidates
    description = "OpenTelemetry GenAI spans (OTLP/JSON, JSON Lines of OTLP, span lists, attribute maps)"

    def sniff(self, path: Path, head: bytes) -> float:
        """The best container confidence for the first JSON document of ``head`` (0.9 when its spans
        carry ``gen_ai.*`` attributes; see each container's ``sniff``). Never raises."""
        doc = peek_json(head)
        return max(otlp.sniff(doc), span_list.sniff(doc), attribute_map.sniff(doc))

    def load(self, path: Path) -> Iterator[Record]:
        """Yield one trace per chat span, in file order, and problems for bad spans or lines.

        Raises :class:`~ctxviewer.importers.ImportFailed` for an unreadable or non-span file. A chat
        span with recoverable bad values yields its trace, then one problem per bad attribute. A
        file whose spans include no chat span yields one :class:`ImportProblem` saying so -- unless
        a span or line was already reported as rejected (it may have been the chat span).
        """
        file = str(path)
        found, skipped, rejected = 0, [], 0
        for rec in read_spans(path):
            if isinstance(rec, ImportProblem):
                rejected += 1
                yield rec
                continue
            if not is_chat_span(rec.attributes):
                skipped.append(str(rec.attributes.get("gen_ai.operation.name") or rec.name or "unnamed"))
                continue
            found += 1
            where = f"{rec.record} span {rec.span_id}" if rec.span_id else rec.record
            problems: list[str] = []
            try:
                trace = build_trace(rec, problems)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                yield ImportProblem(file, where, f"cannot map GenAI attributes: {exc}")
                continue
            yield trace
            for message in problems:
                yield ImportProblem(file, where, message)
        if not found and not rejected:
            what = f"{len(skipped)} other span(s): {', '.join(skipped[:5])}" if skipped else "no spans"
            yield ImportProblem(file, "whole file", f"no chat spans found ({what})")


IMPORTER = OtelImporter()
"""The ``otel`` importer (listed in ``ctxviewer.importers._registry.BUILTIN``)."""
