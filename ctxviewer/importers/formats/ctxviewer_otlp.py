"""OTLP/JSON written by ``ctxviewer export --format otlp`` (:mod:`ctxviewer.report.export_otlp`): each span
carries the whole trace in ``ctxviewer.trace`` (native JSON shape), so importing an export gives
exactly the traces that were exported (items with status, priority, omission reason and token
counts; budgets; capacity; checks) -- import(export(db)) == db. The offline scanner's verdicts
that ``export --guardrails`` adds as ``apply_guardrail`` child spans come back as the traces'
runtime guardrail results (:mod:`ctxviewer.importers.common.spans.guardrail`).

Detected by the ``ctxviewer.trace_id`` attribute, which the exporter writes first on every span
(confidence 1.0, above the OTel GenAI importer's 0.9). A span without ``ctxviewer.trace`` (from
another producer, in the same file) is a problem naming it: import such files with
``--format otel``. Keys of ``ctxviewer.trace`` the model does not know, and span attributes the
exporter does not write (:data:`EXPORTED`), are named in ``ctxviewer.unmapped``. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from ctxviewer.importers.common.containers import head_text, load_documents
from ctxviewer.importers.common.field_account import unmapped_attribute_keys
from ctxviewer.importers.common.model_account import with_unknown_keys
from ctxviewer.importers.common.peek import starts_as_json
from ctxviewer.importers.common.spans.guardrail import guardrail_from_span, is_guardrail_span
from ctxviewer.importers.common.spans.otlp import is_otlp, spans
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.contract import ImportFailed, ImportProblem, Record
from ctxviewer.model.guardrail import GuardrailResult
from ctxviewer.model.serialize import trace_from_dict
from ctxviewer.model.trace import RequestTrace

MARKER = "ctxviewer.trace_id"

EXPORTED = ("ctxviewer.", "gen_ai.", "user.id")
"""The span attributes the exporter writes (all derived from ``ctxviewer.trace``); any other attribute
(added on the way by a collector or another tool) is named in ``ctxviewer.unmapped`` as ``span.KEY``."""


class CtxviewerOtlpImporter:
    """The ``ctxviewer-otlp`` importer (see module docstring)."""

    name = "ctxviewer-otlp"
    description = "OTLP/JSON exported by ctxviewer (exact round trip through ctxviewer.* attributes)"
    records_omissions = True

    def sniff(self, path: Path, head: bytes) -> float:
        """1.0 for OTLP whose first span attribute is ``ctxviewer.trace_id``; else 0."""
        text = head_text(head)
        return 1.0 if starts_as_json(text) and "resourceSpans" in text and f'"{MARKER}"' in text else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """The exported traces, in file order; ``apply_guardrail`` spans (``export --guardrails``)
        are added to the guardrail results of the trace whose span is their parent."""
        file = str(path)
        found = False
        traces: list[tuple[str | None, RequestTrace]] = []
        guards: dict[str, list[GuardrailResult]] = {}
        for record, doc in load_documents(path):
            if isinstance(doc, Exception) or not is_otlp(doc):
                yield ImportProblem(file, record, "not an OTLP request" if not isinstance(doc, Exception) else str(doc),
                                    dropped=1)
                continue
            for sp in spans(doc, file, "" if record == "document" else f"{record} "):
                if not isinstance(sp, Span):
                    yield sp
                    continue
                raw = sp.attributes.get("ctxviewer.trace")
                if not isinstance(raw, str) and is_guardrail_span(sp) and sp.parent_id:
                    guards.setdefault(sp.parent_id, []).append(guardrail_from_span(sp))
                    continue
                if not isinstance(raw, str):
                    yield ImportProblem(file, sp.record, "span has no ctxviewer.trace attribute (not a ctxviewer "
                                        "export); import this file with --format otel", dropped=1)
                    continue
                try:
                    record = json.loads(raw)
                    others = [f"span.{k}" for k in unmapped_attribute_keys(sp.attributes, EXPORTED)]
                    trace = with_unknown_keys(trace_from_dict(record), record, others)
                    traces.append((sp.span_id, trace))
                    found = True
                except (ValueError, TypeError, KeyError) as exc:
                    yield ImportProblem(file, sp.record, f"ctxviewer.trace: {exc}", dropped=1)
        for span_id, trace in traces:
            extra = guards.pop(span_id or "", [])
            yield replace(trace, guardrails=trace.guardrails + tuple(extra)) if extra else trace
        for parent, lost in guards.items():
            yield ImportProblem(file, f"span {parent}", f"{len(lost)} apply_guardrail span(s) whose parent is no exported "
                                "trace in this file; not imported")
        if not found:
            raise ImportFailed(f"{path}: no ctxviewer export spans")


IMPORTER = CtxviewerOtlpImporter()
