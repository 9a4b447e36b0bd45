"""MLflow traces (trace schema v3: ``Trace.to_json()``, ``mlflow traces get``) -> one
:class:`~ctxviewer.model.trace.RequestTrace` per model-call span, as the OTel importer does.

Fields (``mlflow/mlflow``: ``mlflow/entities/trace.py``, ``trace_info.py``, ``span.py``,
``mlflow/tracing/constant.py`` ``SpanAttributeKey`` / ``TokenUsageKey`` / ``TraceMetadataKey``):

* a file holds one trace ``{info, data: {spans}}``, a list of them, ``{"traces": [...]}``, JSON
  Lines of them, a Databricks agent response embedding one as ``databricks_output.trace``, or the
  trace data alone (``{spans: [...]}``: the id is then the spans' ``mlflow.traceRequestId``);
* ``info.trace_id`` (``tr-<hex>``) names the trace; ``info.trace_metadata`` gives
  ``mlflow.trace.session`` / ``mlflow.trace.user`` (and ``mlflow.trace.tokenUsage``, a JSON string,
  used when the span has none); ``info.assessments`` become ``ctxviewer.scores``
  (:mod:`ctxviewer.importers.common.scores`: name ``assessment_name``, value ``feedback.value`` or
  ``expectation.value``, source ``"mlflow assessment"``, comment ``rationale``);
* span attribute values are **JSON-encoded strings**, even scalars (``"\\"LLM\\""``), decoded here;
  a span whose ``mlflow.spanType`` is ``LLM`` or ``CHAT_MODEL`` is a model call. Its
  ``mlflow.spanInputs`` / ``mlflow.spanOutputs`` are the provider-native request / response
  (``mlflow.message.format`` names it: ``openai``, ``anthropic``...), read by the provider-API
  reader (:func:`ctxviewer.importers.common.exchanges.call_from_exchange`); LangChain messages
  (``[[{type: "human", ...}]]``) and MLflow 2.x ``mlflow.chat.messages`` (the chat in OpenAI form,
  the answer last) are read too; other shapes fall back to the generic message normaliser. ``mlflow.chat.tools`` are the tool definitions;
  ``mlflow.chat.tokenUsage`` the usage (``input_tokens``, ``output_tokens``,
  ``cache_read_input_tokens``, ``cache_creation_input_tokens``; when ``total_tokens`` equals input +
  output + cache the input excluded the cache and it is added back, the OTel rule);
  ``mlflow.llm.model`` / ``mlflow.llm.provider`` the endpoint; ``mlflow.llm.cost`` is kept as an attribute;
  an error status with no message takes its ``exception`` event's ``exception.type: exception.message``;
* span ids may be base64 of the binary OTel ids (normalised to hex); times are Unix nanoseconds;
* the trace's duration (:func:`execution_ms`: ``info.execution_duration``, ``execution_duration_ms``,
  v2 ``execution_time_ms``) is kept on every call as ``mlflow.execution_duration_ms`` (ms) and is the
  call's duration (``ctxviewer.duration_ms``) when the call is the trace's root span (or only span,
  MLflow's duration is the root's) and its span does not record both its start and end;
* a ``RETRIEVER`` span's documents (``[{page_content, metadata, id}]``) are evidence items of the
  first model call that starts after it ended; span ``events`` are kept as ``mlflow.span.events``;
* trace schema v2 (``info.request_id``, ``request_metadata``, ``experiment_id``; spans with
  ``context.span_id``, ``start_time`` / ``end_time`` in ns, ``status_code`` / ``status_message``) is read too.

What lives here: the importer, the file and trace shapes (:func:`traces_of`, :func:`load_trace`),
assessments; :mod:`.call` maps one model-call span; :mod:`.runs` makes every span a step of the
run tree; :mod:`.tools` gives a proposed call the verdict its ``TOOL`` span shows. May import :mod:`ctxviewer.importers.common`,
the contract and :mod:`ctxviewer.model`, never another format; a new span attribute is read in
:mod:`.call`, a new file or trace shape here.

Every other span attribute is kept verbatim on the trace (``mlflow.*`` names kept), and the keys of
``info`` not read are named in ``ctxviewer.unmapped``. A bad span or trace is a problem naming the
file and record (``traces[1] span 3f2a…``); the rest loads. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import head_text, load_documents
from ctxviewer.importers.common.field_account import unmapped_attribute
from ctxviewer.importers.common.llm_call import Document, build_trace
from ctxviewer.importers.common.peek import starts_as_json
from ctxviewer.importers.common.scores import score, scores_attribute
from ctxviewer.importers.common.sent_documents import fold_sent_documents
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record, RunRecord
from ctxviewer.importers.formats.mlflow.call import (
    NAME,
    call_from_span,
    decode,
    mlflow_usage,
    nanos,
    retrieved_documents,
    span_id_of,
)
from ctxviewer.importers.formats.mlflow.runs import parent_of, run_span
from ctxviewer.importers.formats.mlflow.tools import span_run, when, with_span_verdicts
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import Usage

__all__ = ["IMPORTER", "MlflowImporter", "call_from_span", "decode", "load_trace", "mlflow_usage", "traces_of"]

SOURCE = "mlflow assessment"
"""The ``source`` of every score read from ``info.assessments``."""
CHAT_SPAN_TYPES = frozenset({"LLM", "CHAT_MODEL"})
"""``mlflow.spanType`` values of a model call (``mlflow.entities.SpanType``)."""

READ_INFO = frozenset({"trace_id", "request_id", "trace_metadata", "request_metadata", "experiment_id", "assessments", "request_time", "timestamp_ms",
                       "execution_duration", "execution_duration_ms", "execution_time_ms", "state", "status", "client_request_id",
                       "trace_location", "request_preview", "response_preview", "tags"})
"""Keys of ``info`` read (the previews repeat the root span's inputs/outputs; tags are kept)."""

def traces_of(doc: Any) -> list[Any] | None:
    """The MLflow traces of one parsed document (see module docstring), or ``None`` if it holds none."""
    if isinstance(doc, Mapping):
        out = doc.get("databricks_output")
        if isinstance(out, Mapping) and isinstance(out.get("trace"), Mapping):
            return [out["trace"]]
        if isinstance(doc.get("traces"), list):
            return list(doc["traces"])
        if isinstance(doc.get("info"), Mapping) and "data" in doc:
            return [doc]
        spans = doc.get("spans")
        if isinstance(spans, list) and spans and isinstance(spans[0], Mapping) and isinstance(spans[0].get("attributes"), Mapping) \
                and "mlflow.spanType" in spans[0]["attributes"]:
            return [{"info": {}, "data": doc}]  # TraceData alone (``trace.data.to_dict()``, v2 docs and blog posts)
        return None
    if isinstance(doc, list) and doc and isinstance(doc[0], Mapping) and "info" in doc[0] and "data" in doc[0]:
        return list(doc)
    return None


def execution_ms(info: Mapping[str, Any]) -> float | None:
    """The trace's duration in milliseconds from ``info``: ``execution_duration`` (MLflow 3
    ``TraceInfo``; a protobuf ``Duration`` in JSON, ``"1.500s"`` or ``{"seconds", "nanos"}``, or milliseconds as a number),
    ``execution_duration_ms`` (MLflow 3 ``TraceInfo.to_dict``) or ``execution_time_ms`` (trace
    schema v2). ``None`` when absent, unreadable or 0 (MLflow writes 0 for a trace still in
    progress, ``mlflow/entities/trace_info.py``). Never raises."""
    for key in ("execution_duration_ms", "execution_duration", "execution_time_ms"):
        raw = info.get(key)
        if raw is None or isinstance(raw, bool):
            continue
        try:
            if isinstance(raw, str) and raw.strip().endswith("s"):  # Duration JSON: seconds with up to 9 decimals
                ms = float(raw.strip()[:-1]) * 1000
            elif isinstance(raw, dict):  # a Duration message as an object: {seconds, nanos}
                ms = float(raw.get("seconds") or 0) * 1000 + float(raw.get("nanos") or 0) / 1e6
            else:
                ms = float(raw)
        except (TypeError, ValueError, OverflowError):  # a list, an object of other keys: no duration
            continue
        if ms > 0 and ms == ms and ms != float("inf"):
            return ms
    return None


def _trace_id(info: Mapping[str, Any]) -> str | None:
    tid = info.get("trace_id") or info.get("request_id")
    return str(tid) if tid else None


def assessment_scores(info: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``info.assessments`` (``mlflow.entities.Assessment.to_dictionary``) in the shared score shape:
    ``{name: assessment_name, value: feedback.value | expectation.value, source: "mlflow assessment"
    (:data:`SOURCE`), comment: rationale}``; an assessment that is not an object is skipped (who gave
    it: :func:`assessment_sources`)."""
    out = []
    for a in info.get("assessments") or []:
        if not isinstance(a, Mapping):
            continue
        body = a.get("feedback") if isinstance(a.get("feedback"), Mapping) else a.get("expectation")
        value = body.get("value") if isinstance(body, Mapping) else None
        out.append(score(a.get("assessment_name") or a.get("name") or "assessment", value, SOURCE, a.get("rationale")))
    return out


def assessment_sources(info: Mapping[str, Any]) -> dict[str, Any]:
    """``{"mlflow.assessment_sources": [{name, source_type, source_id}, ...]}`` -- who gave each
    assessment (``HUMAN``, ``LLM_JUDGE``, ``CODE``), which the shared score shape has no field for;
    ``{}`` when no assessment names a source."""
    found = []
    for a in info.get("assessments") or []:
        src = a.get("source") if isinstance(a, Mapping) else None
        if isinstance(src, Mapping) and (src.get("source_type") or src.get("source_id")):
            found.append({"name": a.get("assessment_name"), "source_type": src.get("source_type"),
                          "source_id": src.get("source_id")})
    return {"mlflow.assessment_sources": found} if found else {}

def _spans(trace: Mapping[str, Any]) -> list[Any]:
    data = trace.get("data")
    spans = data.get("spans") if isinstance(data, Mapping) else None
    if not isinstance(spans, list):
        raise ValueError("data.spans is not a list")
    return spans


def _documents_fed(chats: list[tuple[str, Mapping[str, Any], dict[str, Any]]],
                   retrievers: list[tuple[Mapping[str, Any], dict[str, Any]]]) -> dict[int, list[tuple[Document, Any]]]:
    """The documents each chat span was fed: a retriever's go to the first chat span (by start)
    that starts at or after the retriever ended (by ``id`` of the chat span)."""
    fed: dict[int, list[tuple[Document, Any]]] = {}
    ordered = sorted(((nanos(sp, "start_time") or 0, id(sp)) for _w, sp, _a in chats))
    for sp, attrs in retrievers:
        done = nanos(sp, "end_time") or nanos(sp, "start_time") or 0
        target = next((key for start, key in ordered if start >= done), None)
        docs = retrieved_documents(sp, attrs)
        if target is not None and docs:
            fed.setdefault(target, []).extend(docs)
    return fed


def load_trace(trace: Any, file: str, record: str, with_runs: bool = False) -> Iterator[RunRecord]:
    """The model-call traces of one MLflow trace, then a problem for each bad span or value; with
    ``with_runs``, then every span as a step of the run ``info.trace_id``
    (:func:`ctxviewer.importers.formats.mlflow.runs.run_span`)."""
    if not isinstance(trace, Mapping) or not isinstance(trace.get("info"), Mapping):
        yield ImportProblem(file, record, "not an MLflow trace (no info object)", dropped=1)
        return
    info = trace["info"]
    try:
        spans = _spans(trace)
    except ValueError as exc:
        yield ImportProblem(file, record, str(exc), dropped=1)
        return
    first: Mapping[str, Any] = spans[0] if spans and isinstance(spans[0], Mapping) else {}
    raw_attrs = first.get("attributes")
    first_attrs: Mapping[str, Any] = raw_attrs if isinstance(raw_attrs, Mapping) else {}
    tid = _trace_id(info) or pm._str(decode(first_attrs.get("mlflow.traceRequestId"))) or record
    meta = info.get("trace_metadata", info.get("request_metadata"))  # v2: request_metadata
    meta = meta if isinstance(meta, Mapping) else {}
    scores = {**scores_attribute(assessment_scores(info)), **assessment_sources(info)}
    location = info.get("trace_location")
    experiment = location.get("mlflow_experiment") if isinstance(location, Mapping) else None
    if isinstance(experiment, Mapping) and experiment.get("experiment_id") is not None:
        scores["mlflow.experiment_id"] = str(experiment["experiment_id"])
    elif info.get("experiment_id") is not None:  # v2
        scores["mlflow.experiment_id"] = str(info["experiment_id"])
    unmapped = unmapped_attribute(k for k, v in info.items() if k not in READ_INFO and v not in (None, "", [], {}))
    duration = execution_ms(info)
    if duration is not None:
        scores["mlflow.execution_duration_ms"] = duration  # the whole trace's (its root span's), on every call of it
    chats: list[tuple[str, Mapping[str, Any], dict[str, Any]]] = []
    retrievers: list[tuple[Mapping[str, Any], dict[str, Any]]] = []
    steps: list[tuple[int, Mapping[str, Any], dict[str, Any]]] = []  # every span, for the run tree
    traced: dict[int, str] = {}  # id(chat span) -> its trace
    for n, sp in enumerate(spans):
        if not isinstance(sp, Mapping):
            yield ImportProblem(file, f"{record} data.spans[{n}]", f"span is {type(sp).__name__}, not an object",
                                dropped=1)
            continue
        attrs = sp.get("attributes")
        attrs = {str(k): decode(v) for k, v in attrs.items()} if isinstance(attrs, Mapping) else {}
        sid = span_id_of(sp)
        steps.append((n, sp, attrs))
        kind = str(attrs.get("mlflow.spanType") or "").upper()
        if kind in CHAT_SPAN_TYPES:
            chats.append((f"{record} span {sid or n}", sp, attrs))
        elif kind == "RETRIEVER":
            retrievers.append((sp, attrs))
    fed = _documents_fed(chats, retrievers)
    executions = [r for r in (span_run(sp, attrs) for _n, sp, attrs in steps) if r is not None]
    chat_starts = [t for t in (when(sp, "start_time") for _w, sp, _a in chats) if t is not None]
    for where, sp, attrs in chats:
        sid = span_id_of(sp)
        warnings: list[str] = []
        try:
            call = call_from_span(sp, attrs, tid if len(chats) == 1 else f"{tid}/{sid}", warnings)
            call.documents = [d for d, _meta in fed.get(id(sp), [])]
            metas = [{"id": d.id, "metadata": meta} for d, meta in fed.get(id(sp), []) if meta]
            if metas:
                call.attributes["mlflow.documents.metadata"] = metas  # doc_uri, chunk_id...: no item field holds them
            call.session_id = pm._str(meta.get("mlflow.trace.session"))
            call.user_id = pm._str(meta.get("mlflow.trace.user"))
            if call.usage == Usage() and len(chats) == 1:
                call.usage = mlflow_usage(meta.get("mlflow.trace.tokenUsage")) or call.usage
            call.attributes.update({"mlflow.trace_id": tid, **({"mlflow.span_id": sid} if sid else {})})
            tags = info.get("tags")
            if isinstance(tags, Mapping) and tags:
                call.attributes["mlflow.tags"] = dict(tags)
            if duration is not None and (call.created is None or call.ended is None) and (
                    len(spans) == 1 or parent_of(sp) is None):  # the root span's own duration (MLflow: root end - start)
                call.latency_ms = duration  # its start and end, when recorded, still come from the span
                if call.ended is None and call.ended_recorded is False:
                    call.ended_recorded = None  # the trace records how long it took: it ended, at a time not recorded
            fold_sent_documents(call)
            trace_out, notes = build_trace(call)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            yield ImportProblem(file, where, f"cannot map the MLflow span: {exc}", dropped=1)
            continue
        if trace_out.tool_calls and executions:  # the verdicts its TOOL spans show (.tools)
            trace_out = replace(trace_out, tool_calls=with_span_verdicts(trace_out.tool_calls, call.created,
                                                                         executions, chat_starts))
        traced[id(sp)] = trace_out.trace_id
        yield replace(trace_out, attributes={**trace_out.attributes, **scores, **unmapped})
        for message in warnings + notes:
            yield ImportProblem(file, where, message)
    if not chats:
        yield ImportProblem(file, record, f"MLflow trace {tid} has no LLM or CHAT_MODEL span ({len(spans)} span(s))")
    if with_runs and traced:  # a trace whose model calls all failed to map: no run to hang them on
        for n, sp, attrs in steps:
            yield run_span(sp, attrs, tid, n, traced.get(id(sp)))


class MlflowImporter:
    """The ``mlflow`` importer (see module docstring)."""

    name = NAME
    records_omissions = False
    description = "MLflow traces (v3 JSON: info + data.spans; also embedded as databricks_output.trace)"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` when the head holds an MLflow span
        attribute (``mlflow.spanType``) or trace metadata key (``mlflow.trace_schema.version``), starts
        as JSON (not a Markdown page that names the key) and is no OTLP request (``resourceSpans``:
        the ``otel`` importer's); else 0."""
        text = head_text(head)
        if '"resourceSpans"' in text or not starts_as_json(text):  # OTLP from MLflow's OTel exporter: spans with mlflow.* attributes, for otel
            return 0.0
        return SPECIFIC if ('"mlflow.spanType"' in text or '"mlflow.trace_schema.version"' in text) else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per model-call span, in file order, and problems naming bad traces and spans.
        Raises :class:`ImportFailed` when the file holds no MLflow trace."""
        for record in self.load_runs(path):
            if not isinstance(record, RunSpan):
                yield record

    def load_runs(self, path: Path) -> Iterator[RunRecord]:
        """:meth:`load`'s records and, after each trace's, every span of it as a step of its run
        (:func:`ctxviewer.importers.formats.mlflow.runs.run_span`)."""
        file, found = str(path), False
        for record, doc in load_documents(path):
            if isinstance(doc, Exception):
                yield ImportProblem(file, record, str(doc), dropped=1)
                continue
            traces = traces_of(doc)
            if traces is None:
                yield ImportProblem(file, record, "not an MLflow trace (expected info + data.spans)", dropped=1)
                continue
            found = True
            for i, tr in enumerate(traces):
                where = record if len(traces) == 1 else (f"traces[{i}]" if record == "document" else f"{record} traces[{i}]")
                yield from load_trace(tr, file, where, with_runs=True)
        if not found:
            raise ImportFailed(f"{path}: no MLflow traces (expected info + data.spans)")


IMPORTER = MlflowImporter()
