"""OpenInference (Arize Phoenix) spans -> one :class:`~ctxviewer.model.trace.RequestTrace` per LLM span.

Input: OpenInference attributes (:mod:`openinference_attrs`) in any span container -- OTLP/JSON,
JSON Lines, Phoenix span JSON (``context.trace_id``, ``span_kind``, ``status_code``, UUID ids),
span lists (also wrapped in an object, e.g. ``{"spans": [...]}``), flat attribute maps, and Phoenix
spans dataframes saved to Parquet (``get_spans_dataframe()``, ``TraceDataset.save()``: the
``parquet`` extra) or CSV (``df.to_csv()``; :mod:`~ctxviewer.importers.common.phoenix_frames`).

The span kind decides (``openinference.span.kind``): ``LLM`` spans are requests -- except a
prompt template step (Haystack's ``PromptBuilder``: a template and no model, messages or usage,
:func:`~ctxviewer.importers.common.openinference_attrs.is_template_step`), a run step named in an
info note; ``RETRIEVER``
and ``RERANKER`` documents -- each document once, the ones a reranker dropped omitted
(:mod:`~ctxviewer.importers.common.retrieved`) -- become ``evidence`` items of the LLM call they fed only when that call's
input was not captured; a captured input is what was sent, so they are ``ctxviewer.documents`` rows,
inside the message holding their text or marked not sent (:mod:`~ctxviewer.importers.common.sent_documents`) -- the first LLM
span of the same trace starting at or after the retrieval, preferring one under the same parent
(a retrieval that fed no LLM span in the file is a problem naming it); ``TOOL`` spans are recorded
on the call they fed as ``ctxviewer.fed_by``, with ``ctxviewer.tool_outputs`` rows where the tool's
``output.value`` sits inside one of its items (a ReAct agent's ``Observation:`` in a user or
assistant message: scanned as untrusted, :mod:`ctxviewer.model.placed_data`; a user message that is only
that output is history, not the user request: :mod:`~ctxviewer.importers.common.react_observations`), and a TOOL span naming a proposed call
(``tool_call.id``) gives that call the verdict its run shows when none is recorded
(:mod:`~ctxviewer.importers.common.tool_outcome`). Other kinds are context only. A span printed twice
(console exporters: at start with no end, then at end) counts once, the later print winning.
``session.id`` / ``user.id`` -> ``session_id`` / ``user_id`` (the span's own, else its nearest ancestor's:
an instrumentation may set them on the trace's root span only); ``llm.invocation_parameters`` ->
``reserved_output_tokens`` (``max_tokens`` / ``max_completion_tokens``) and attributes;
``agent.name`` on the LLM span or its nearest ancestor (an ``AGENT`` span) -> ``gen_ai.agent.name``
(:func:`ctxviewer.importers.common.llm_call.agent_attributes`); an LLM span recording no tools takes
the ``llm.tools.*`` of its nearest ancestor that has them (an ``AGENT`` span), marked
``ctxviewer.tools_inherited_from`` (:mod:`ctxviewer.importers.common.inherit`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import openinference_attrs as oi
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import head_text, load_documents, open_text
from ctxviewer.importers.common.field_account import unmapped_attribute, unmapped_attribute_keys
from ctxviewer.importers.common.inherit import Ancestor, inherit
from ctxviewer.importers.common.llm_call import LLMCall, agent_attributes, build_trace
from ctxviewer.importers.common.parquet import PARQUET_MAGIC, magic, parquet_columns, parquet_rows
from ctxviewer.importers.common.phoenix_annotations import NAME as ANNOTATIONS
from ctxviewer.importers.common.phoenix_annotations import as_score, by_span, detail
from ctxviewer.importers.common.phoenix_frames import csv_rows, is_spans_csv_head, is_spans_frame, span_document
from ctxviewer.importers.common.react_observations import observation_messages
from ctxviewer.importers.common.retrieved import Feed, resolve
from ctxviewer.importers.common.scores import scores_attribute
from ctxviewer.importers.common.sent_documents import fold_sent_documents, tool_output_rows
from ctxviewer.importers.common.spans.conventions import count_other, other_convention, span_kind
from ctxviewer.importers.common.spans.read import container_of, spans_from_json
from ctxviewer.importers.common.spans.span import Span, missing_parents, trace_id_for
from ctxviewer.importers.common.tool_outcome import tool_runs, with_run_verdicts
from ctxviewer.importers.contract import SPECIFIC, Companions, ImportFailed, ImportProblem, Record, RunRecord
from ctxviewer.model.placed_data import TOOL_OUTPUTS
from ctxviewer.model.run import RunSpan

_MARKERS = ('"openinference.span.kind"', '"llm.input_messages', '"llm.model_name"', '"llm.token_count.')


def _phoenix(obj: Any) -> Any:
    """Phoenix span JSON keeps status in ``status_code`` / ``status_message``: give it an OTLP status."""
    if isinstance(obj, Mapping) and "status_code" in obj and "status" not in obj:
        return dict(obj, status={"code": obj["status_code"], "message": obj.get("status_message") or None})
    return obj


def spans_of(doc: Any, file: str, prefix: str = "") -> Iterator[Span | ImportProblem]:
    """The spans of one JSON document (see module docstring for the accepted shapes)."""
    if isinstance(doc, list):
        doc = [_phoenix(d) for d in doc]
    else:
        doc = _phoenix(doc)
    if container_of(doc) is not None and not (isinstance(doc, Mapping) and "source" in doc):
        yield from spans_from_json(doc, file, prefix)
        return
    if isinstance(doc, Mapping):
        for key, value in doc.items():
            if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
                yield from spans_from_json([_phoenix(v) for v in value], file, f"{prefix}{key}")
                return
    raise ValueError("no spans (expected OTLP, span objects, a span list or an attribute map)")


def _documents(path: Path) -> Iterator[tuple[str, Any]]:
    """``(record, document)`` of ``path``: a Parquet spans frame's rows as Phoenix span JSON
    (:mod:`ctxviewer.importers.common.phoenix_frames`), else the file's JSON documents."""
    if magic(path) == PARQUET_MAGIC:
        rows: Iterator[tuple[str, dict[str, Any]]] = parquet_rows(path, path.name, "or save the spans as JSON")
    else:
        with open_text(path) as fh:
            head = fh.read(64 * 1024)
        if not is_spans_csv_head(head):
            yield from load_documents(path)
            return
        rows = csv_rows(path, path.name)
    for where, row in rows:
        yield where, span_document(row)


def _call(span: Span) -> LLMCall:
    call = oi.call_from_attributes(span.attributes, trace_id_for(span))
    call.created, call.ended = span.start, span.end
    if span.start is not None and span.end is None and not span.end_unreadable:
        call.ended_recorded = False
    call.status, call.status_message = span.status, span.status_message
    call.service = pm._str(span.resource.get("service.name"))
    if span.name:
        call.attributes["otel.span.name"] = span.name
    if span.parent_id:
        call.attributes["otel.parent_span_id"] = span.parent_id
    call.attributes.update(unmapped_attribute(unmapped_attribute_keys(oi.flatten(span.attributes), oi.READ)))
    return call


def _inherit_ids(call: LLMCall, ancestors: list[dict[str, Any]]) -> None:
    """``session.id`` / ``user.id`` of the nearest of ``ancestors`` (flattened attributes, nearest
    first) that records one, for a call that records none itself: an instrumentation may set them
    only on the root span of a trace (a chain or agent span), and the LLM spans under it belong to
    that session (OpenInference ``spec/semantic_conventions.md``: ``session.id``, ``user.id``). A
    call's own value is never replaced."""
    for key, field in (("session.id", "session_id"), ("user.id", "user_id")):
        if getattr(call, field) is None:
            setattr(call, field, next((v for v in (pm._str(f.get(key)) for f in ancestors) if v), None))


def _feed(s: Span, kind: str | None) -> Feed:
    """Retrieval or reranker span ``s`` as a :class:`~ctxviewer.importers.common.retrieved.Feed`: a
    RERANKER span with ``reranker.input_documents`` and ``reranker.output_documents`` is a
    reranker (its output what it kept); any other, a retrieval of its documents."""
    flat = oi.flatten(s.attributes)
    name = s.name or str(s.span_id)
    if kind == "RERANKER":
        given, kept = oi.reranker_documents(flat, name)
        if given:
            return Feed(name, kept, given, flat.get("reranker.top_k"))
    return Feed(name, oi.documents(flat, name))


def _fed(target: list[tuple[Span, LLMCall]], feeder: Span) -> LLMCall | None:
    """The LLM call ``feeder`` (a retrieval or tool span) fed: first LLM span of the same trace
    starting at or after it, same parent preferred; ``None`` if there is none."""
    same = [(s, c) for s, c in target if s.trace_id == feeder.trace_id and feeder.trace_id is not None]
    later = [(s, c) for s, c in same if s.start is None or feeder.start is None or s.start >= feeder.start]
    later.sort(key=lambda sc: (sc[0].parent_id != feeder.parent_id, sc[0].start is None,
                               sc[0].start or feeder.start))
    return later[0][1] if later else None


class OpenInferenceImporter:
    """The ``openinference`` importer (see module docstring)."""

    name = "openinference"
    records_omissions = False
    description = "OpenInference / Arize Phoenix spans (OTLP, Phoenix span JSON, span lists, attribute maps)"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` when the head carries OpenInference attribute names (above
        the GenAI spans' 0.9 of the ``otel`` importer: OpenInference spans may carry ``gen_ai.*``
        keys too) and is not a Langfuse export (a download or a public API page) or a ctxviewer export; else 0."""
        if head.startswith(PARQUET_MAGIC):  # a Phoenix spans dataframe saved to Parquet, by its columns
            cols = parquet_columns(path)
            return SPECIFIC if cols is not None and is_spans_frame(cols) else 0.0
        text = head_text(head)
        if is_spans_csv_head(text):  # the same frame saved with df.to_csv()
            return SPECIFIC
        if '"observations"' in text and '"trace"' in text:  # a Langfuse download keeps span attributes
            return 0.0
        if '"htmlPath"' in text or ('"parentObservationId"' in text and '"traceId"' in text):
            return 0.0  # a saved Langfuse public API page (traces, observations) keeps them too
        if '"ctxviewer.trace_id"' in text:  # a ctxviewer export (its embedded traces may quote llm.* keys)
            return 0.0
        return SPECIFIC if any(m in text for m in _MARKERS) else 0.0

    joins = (ANNOTATIONS,)
    """Phoenix span annotations files of the same import become the scores of their spans' traces."""

    def load(self, path: Path, companions: Companions | None = None) -> Iterator[Record]:
        """One trace per LLM span, in file order; problems for bad spans, unattached retrievals and
        spans whose parent is not in the file (:func:`~ctxviewer.importers.common.spans.span.missing_parents`).
        With ``companions``, the run's Phoenix annotations of an LLM span are its trace's scores."""
        for record in self.load_runs(path, companions):
            if not isinstance(record, RunSpan):
                yield record

    def load_runs(self, path: Path, companions: Companions | None = None) -> Iterator[RunRecord]:
        """:meth:`load`'s records, then every span with an id as a step of its run (:func:`run_span`)."""
        file = str(path)
        spans: dict[Any, Span] = {}
        problems: list[ImportProblem] = []
        for record, doc in _documents(path):
            if isinstance(doc, Exception):
                problems.append(ImportProblem(file, record, str(doc), dropped=1))
                continue
            try:
                for sp in spans_of(doc, file, "" if record == "document" else f"{record} "):
                    if isinstance(sp, ImportProblem):
                        problems.append(sp)
                    else:
                        key = (sp.trace_id, sp.span_id) if sp.span_id else id(sp)
                        spans[key] = sp  # a span printed twice: the later print wins
            except ValueError as exc:
                problems.append(ImportProblem(file, record, str(exc), dropped=1))
        if not spans:
            raise ImportFailed(f"{path}: no OpenInference spans" + (f" ({problems[0].message})" if problems else ""))
        yield from problems
        templates = {id(s) for s in spans.values() if span_kind(s.attributes) == "LLM" and oi.is_template_step(oi.flatten(s.attributes))}
        calls = [(s, _call(s)) for s in spans.values() if span_kind(s.attributes) == "LLM" and id(s) not in templates]
        other = other_convention(count_other(spans.values(), "openinference"), "openinference", file)  # its OTel half
        if other is not None and calls:
            yield other
        feeds: dict[int, list[tuple[Span, Feed]]] = {}
        outputs: dict[int, list[tuple[str, str, Any]]] = {}  # call -> (tool, span id, output.value) of the tools that fed it
        for s in spans.values():
            kind = span_kind(s.attributes)
            if kind in ("RETRIEVER", "RERANKER"):
                feed = _feed(s, kind)
                target = _fed(calls, s)
                if target is None:
                    yield ImportProblem(file, s.record, f"retrieval span {s.span_id or s.name} fed no LLM span "
                                        f"in this file; its {len(feed.found)} document(s) are not imported")
                else:
                    feeds.setdefault(id(target), []).append((s, feed))
            elif kind == "TOOL":
                target = _fed(calls, s)
                if target is not None:
                    tool = s.attributes.get('tool.name') or s.name
                    fed = list(target.attributes.get("ctxviewer.fed_by", []))
                    target.attributes["ctxviewer.fed_by"] = fed + [f"tool {tool} (span {s.span_id})"]
                    outputs.setdefault(id(target), []).append((str(tool), str(s.span_id), s.attributes.get("output.value")))
        for _s, call in calls:
            fed_docs = sorted(feeds.get(id(call), []), key=lambda sf: (sf[0].start is None, sf[0].start or 0))
            if fed_docs:
                call.documents, said = resolve([f for _, f in fed_docs])
                if said:
                    call.attributes["ctxviewer.documents_note"] = said
        for s in (s for s in spans.values() if id(s) in templates):
            yield ImportProblem(file, s.record, f"span {s.name or '?'} ({s.span_id}) is of kind LLM but renders a prompt "
                                "template and records no model, messages or usage: a template step on the run tree, "
                                "not a model call", info=True)
        if not calls:
            kinds = sorted({span_kind(s.attributes) or "unknown" for s in spans.values()})
            n_otel = count_other(spans.values(), "openinference")
            hint = f"; {n_otel} are OpenTelemetry GenAI model calls: --format otel reads them" if n_otel else ""
            yield ImportProblem(file, "whole file",
                                f"no LLM spans found ({len(spans)} span(s) of kind {', '.join(kinds)}){hint}")
        by_id = {s.span_id: s for s in spans.values() if s.span_id}
        for s, call in calls:
            chain = [s]
            while chain[-1].parent_id in by_id and by_id[chain[-1].parent_id] not in chain:
                chain.append(by_id[chain[-1].parent_id])
            flats = [oi.flatten(c.attributes) for c in chain]
            call.attributes.update(agent_attributes([(f, f"span {c.name or '?'} ({c.span_id})") for f, c in zip(flats, chain)]))
            inherit(call, [Ancestor(f"span {c.name or '?'} ({c.span_id})", None, oi.tools(f) or None)
                           for f, c in zip(flats[1:], chain[1:]) if span_kind(c.attributes) != "LLM"])
            _inherit_ids(call, flats[1:])
        notes = by_span(companions)
        runs = tool_runs((s for s in spans.values() if span_kind(s.attributes) == "TOOL"), "TOOL")
        traced: dict[str, str] = {}
        for s, call in calls:
            mine = notes.get(s.span_id or "", [])
            if mine:
                call.attributes.update(scores_attribute(as_score(a) for a in mine))
                call.attributes["phoenix.annotations"] = [detail(a) for a in mine]
                for a in mine:
                    companions.mark(a["file"], {s.span_id or ""}, file)  # type: ignore[union-attr]
            fold_sent_documents(call)
            call.observations = observation_messages(call.messages, outputs.get(id(call), []))  # ReAct: no user request
            trace, warnings = build_trace(call)
            placed = tool_output_rows(trace.items, outputs.get(id(call), []))
            if placed:  # a ReAct agent's Observation: the tool's output inside a user or assistant message
                trace = replace(trace, attributes={**trace.attributes, TOOL_OUTPUTS: placed})
            if runs.get(s.trace_id) and trace.tool_calls:
                trace = replace(trace, tool_calls=with_run_verdicts(trace.tool_calls, runs[s.trace_id], s.start))
            if s.span_id:
                traced[s.span_id] = trace.trace_id
            yield trace
            for w in warnings:
                yield ImportProblem(file, s.record, w)
        yield from missing_parents(spans.values(), file)
        for s in spans.values():
            if s.span_id:
                yield run_span(s, traced.get(s.span_id), "template" if id(s) in templates else None)


def run_span(s: Span, trace_id: str | None, kind: str | None = None) -> RunSpan:
    """Span ``s`` as a step of its run (the OTel trace id; ``"openinference"`` when the container has
    none): ``kind``, else the OpenInference span kind lower-cased (``agent``, ``llm``, ``tool``,
    ``retriever``, ``chain``...; ``span`` when none; ``template`` for a prompt template step:
    :func:`~ctxviewer.importers.common.openinference_attrs.is_template_step`), the span's status and times, ``trace_id`` the
    trace of an LLM span, every attribute kept (an LLM span's messages live in its trace and are
    left out here)."""
    attrs = {k: v for k, v in s.attributes.items()
             if trace_id is None or not k.startswith(("llm.input_messages", "llm.output_messages", "input.", "output."))}
    return RunSpan(s.trace_id or "openinference", str(s.span_id), s.parent_id, kind or (span_kind(s.attributes) or "span").lower(),
                   s.name, s.start, s.end, s.status, s.status_message, trace_id, attrs)


IMPORTER = OpenInferenceImporter()
