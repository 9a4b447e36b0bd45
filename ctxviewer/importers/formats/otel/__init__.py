"""OpenTelemetry GenAI importer (``otel``): one :class:`~ctxviewer.model.trace.RequestTrace` per
model-call span, from any span container.

What lives here: the importer (:class:`OtelImporter`: sniffing by container, the per-file span
groups), :mod:`.events` (span events and log records folded into attributes, truncated and
over-deep values), :mod:`.gemini_events` (the Google GenAI SDK instrumentation's event bodies: a
Gemini ``Content``, and its ``"<elided>"`` placeholder when content capture is off), :mod:`.mapping` (a chat span's GenAI attributes -> an
:class:`~ctxviewer.importers.common.llm_call.LLMCall`), :mod:`.group` (what a chat span learns
from the other spans of its trace: session, agent, inherited system instructions, tool executions),
:mod:`.logs` (the ``otel-logs`` importer: OTLP log records of GenAI events in a file without their spans),
:mod:`.join` (the log records of a separate file of the same import joined to their spans),
:mod:`.retrieval` (retrieval spans' documents and query recorded on the chat call they fed),
:mod:`.runs` (every span as a step of its run: agents, tools, retrievers, model calls; the run tree),
:mod:`.adk` (Google ADK's ``call_llm`` spans: their request and response documents as GenAI attributes),
:mod:`.semantic_kernel` (Semantic Kernel's model-call spans and the switch that captures their content),
:mod:`.logfire_legacy` (Logfire's OpenAI and Anthropic spans from before it wrote the GenAI conventions: the same),
:mod:`.strands` (Strands Agents' event shapes around its Bedrock content blocks, made the standard ones),
:mod:`.wrappers` (spans that only wrap a model call and repeat its messages -- Strands' event-loop cycles -- as run steps),
:mod:`.chunks` (a JSON Lines file read in chunks of whole traces, each on its own: the import's worker processes).
A chat span's ``apply_guardrail`` child spans are its trace's runtime guardrail results
(:mod:`ctxviewer.importers.common.spans.guardrail`).
The span containers it reads (OTLP/JSON and protobuf, span lists, attribute maps) and the span
shape are shared with the other span formats in :mod:`ctxviewer.importers.common.spans`; the
chat-message normaliser is :mod:`ctxviewer.importers.common.messages`; the trace is made by the
one normaliser, :func:`ctxviewer.importers.common.llm_call.build_trace`.

May import: :mod:`ctxviewer.importers.common`, :mod:`ctxviewer.importers.contract`,
:mod:`ctxviewer.model`; never another format.

OTel spans record only what was sent (``records_omissions = False``) and no per-item token counts
(the import pipeline counts them). A new OpenTelemetry GenAI attribute is read in
:mod:`.mapping` (a span's own) or :mod:`.group` (what a call takes from its ancestor spans); an
event form in :mod:`.events`. No Qt here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterator

from ctxviewer.importers.common import notes
from ctxviewer.importers.common.containers import head_text
from ctxviewer.importers.common.exporter_cut import cut_attributes, cut_notes, cut_trace_attributes
from ctxviewer.importers.common.llm_call import Document, build_trace
from ctxviewer.importers.common.peek import peek_json
from ctxviewer.importers.common.spans import attribute_map, otlp, span_list
from ctxviewer.importers.common.spans.conventions import (
    count_other,
    is_chat_span,
    non_generative,
    other_convention,
    span_kind,
)
from ctxviewer.importers.common.spans.guardrail import guardrail_from_span, is_guardrail_span
from ctxviewer.importers.common.spans.read import is_protobuf, read_span_groups
from ctxviewer.importers.common.spans.span import Span, SpanRecord, missing_parents, trace_id_for
from ctxviewer.importers.common.tool_outcome import tool_runs, with_run_verdicts
from ctxviewer.importers.contract import Companions, ImportProblem, Record, RunRecord
from ctxviewer.importers.formats.otel import logfire_legacy, strands, wrappers
from ctxviewer.importers.formats.otel.adk import as_chat_span
from ctxviewer.importers.formats.otel.events import CONTENT_KEYS, deep_keys, fold_events, truncated_keys
from ctxviewer.importers.formats.otel.group import ancestors, enrich_call, fed_call, tool_trace
from ctxviewer.importers.formats.otel.join import companion_events, mark_joined
from ctxviewer.importers.formats.otel.logs import NAME as LOGS
from ctxviewer.importers.formats.otel.mapping import call_from_span, token_count, usage_from
from ctxviewer.importers.formats.otel.retrieval import is_retrieval_span, retrieval_attributes, retrieval_documents
from ctxviewer.importers.formats.otel.runs import run_span
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import RequestTrace

__all__ = ["IMPORTER", "OtelImporter", "call_from_span", "is_chat_span", "load_spans", "load_spans_with_runs", "token_count",
           "usage_from"]

class OtelImporter:
    """The ``otel`` importer: OpenTelemetry GenAI spans in any span container."""

    name = "otel"
    records_omissions = False  # GenAI spans record what was sent, not the trimmed candidates
    description = "OpenTelemetry GenAI spans (OTLP/JSON, JSON Lines of OTLP, span lists, attribute maps)"

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 for binary OTLP protobuf, gzipped or not (:func:`~ctxviewer.importers.common.spans.read.is_protobuf`);
        else the best container confidence for the first JSON document of ``head`` (0.9 when its spans
        carry ``gen_ai.*`` attributes; see each container's ``sniff``) -- or, for concatenated
        span objects whose first is not a GenAI span, of the later ones
        (:func:`~ctxviewer.importers.common.spans.span_list.sniff_later_documents`). Never raises."""
        if is_protobuf(path, head):  # by name, or by the head with gzip undone
            return 0.9
        text = head_text(head)  # gzip and UTF-16/UTF-8 BOMs undone first
        doc = peek_json(text.encode("utf-8"))
        score = max(otlp.sniff(doc), span_list.sniff(doc), attribute_map.sniff(doc))
        if score < 0.9 and doc.complete and doc.kind == "object":  # a first span that is not GenAI: read on
            score = max(score, span_list.sniff_later_documents(text))
        return score

    joins = (LOGS,)
    """Formats whose files of the same import this importer reads beside its own (:mod:`.join`)."""

    def load(self, path: Path, companions: Companions | None = None) -> Iterator[Record]:
        """Yield one trace per chat span, in file order, and problems for bad spans or lines.
        With ``companions``, the log records of the run's ``otel-logs`` files join their spans
        as events (:mod:`.join`).

        Raises :class:`~ctxviewer.importers.ImportFailed` for an unreadable or non-span file. Span
        events and log records are folded into attributes first (:mod:`.events`); a span printed
        twice (console exporter: at start with no end, then ended) counts once, the ended print winning. Each
        chat span's trace learns status, session, inherited system instructions and the tool
        executions that fed it from the other spans (:mod:`.group`); recoverable bad values yield
        the trace, then one problem per value; a span whose parent is not in the file is warned
        about after its group's traces (:func:`~ctxviewer.importers.common.spans.span.missing_parents`). A file whose spans include no chat span yields one
        :class:`ImportProblem` saying so -- unless a span or line was already reported as rejected.
        """
        for record in self.load_runs(path, companions):
            if not isinstance(record, RunSpan):
                yield record

    def load_runs(self, path: Path, companions: Companions | None = None) -> Iterator[RunRecord]:
        """:meth:`load`'s records and, after each group's traces, every span with an id as a step of
        its run (:func:`ctxviewer.importers.formats.otel.runs.run_span`: agents, tools, retrievers,
        workflows and the model calls, which name their trace)."""
        file = str(path)
        state = _FileState()
        extra, held = companion_events(companions)
        joined: set[str] = set()
        for group in read_span_groups(path, extra, joined):
            yield from _load_group(group, file, state, with_runs=True)
        # only the records of spans read as calls joined: a record on a span no trace was made of
        # (an operation not read as a model call) is the logs file's own, imported as a log-only call
        mark_joined(companions, held, joined & state.traced, path)
        yield from file_end(state, file)


def file_end(state: _FileState, file: str) -> Iterator[ImportProblem]:
    """The problems :meth:`OtelImporter.load` gives after a file's last span group, from what
    ``state`` learnt over all of them: the file's OpenInference half, model-call spans no mapping
    reads, and "no chat spans found" (for a file read in chunks: :mod:`.chunks`)."""
    other = other_convention(state.openinference, "otel", file)  # the file's OpenInference half
    if other is not None and state.chats:
        yield other
    if state.unread_models:
        n = sum(state.unread_models.values())
        names = ", ".join(f"{k} ×{v}" for k, v in state.unread_models.items())
        yield ImportProblem(file, "model-call spans", f"{n} span(s) record a model call (gen_ai.request.model) in a shape "
                            f"ctxviewer does not read ({names}): not imported", dropped=n)
    if not state.chats and not state.rejected and not state.lone_tools:
        what = (f"{state.others} other span(s): {', '.join(state.other_names)}" if state.others else "no spans")
        hint = (f"; {state.openinference} are OpenInference LLM spans: --format openinference reads them"
                if state.openinference else "")
        yield ImportProblem(file, "whole file", f"no chat spans found ({what}){hint}")


def load_spans(spans: list[SpanRecord], source: str) -> Iterator[Record]:
    """The traces and problems of ``spans`` -- whole OTel traces, as :meth:`OtelImporter.load`
    reads one group of a file -- by the same mapping (one code path for a span from a file or
    from the wire: the live receiver, :mod:`ctxviewer.pipeline.live_writer`; or from a ClickHouse
    spans table: :mod:`ctxviewer.pipeline.clickhouse.spans`). ``source`` names
    where they came from in problems (``"OTLP/HTTP"``). As the registry loads a file, traces come
    with ``omissions_recorded`` False (:attr:`OtelImporter.records_omissions`) and the shared
    readers' warnings (:mod:`ctxviewer.importers.common.notes`) follow. No "no chat spans"
    problem: a batch of only other spans is normal on the wire."""
    for record in _load_spans(spans, source, with_runs=False):
        if not isinstance(record, RunSpan):
            yield record


def load_spans_with_runs(spans: list[SpanRecord], source: str) -> Iterator[RunRecord]:
    """:func:`load_spans`'s records and every span with an id as a step of its run
    (:func:`.runs.run_span`, as :meth:`OtelImporter.load_runs` gives them, after the traces): the
    run tree of spans read from elsewhere (a ClickHouse store's OTel trace)."""
    return _load_spans(spans, source, with_runs=True)


def _load_spans(spans: list[SpanRecord], source: str, with_runs: bool) -> Iterator[RunRecord]:
    with notes.collecting(source) as noted:
        records = list(_load_group(list(spans), source, _FileState(), with_runs=with_runs))
    for record in records:
        yield replace(record, omissions_recorded=False) if isinstance(record, RequestTrace) else record
    yield from noted


def _same_span(a: Span, b: Span) -> bool:
    """True when two prints of one span id record the same span (name, times, status, attributes, events)."""
    return (a.name, a.start, a.end, a.status, a.status_message, a.attributes, a.events) == (
        b.name, b.start, b.end, b.status, b.status_message, b.attributes, b.events)


def unread_model_call(span: Span) -> bool:
    """True for a span that records a model call (``gen_ai.request.model`` or ``gen_ai.usage.*``)
    without saying what it is -- no ``gen_ai.operation.name``, no OpenInference kind, no Vercel AI
    SDK ``ai.operationId`` (whose outer spans sum their calls) -- and that no mapping reads (Google
    ADK's ``call_llm``): it is named, never dropped in silence. (A span above a chat span -- Pydantic
    AI's ``agent run``, summing its calls' usage -- is none: the caller leaves those out.)"""
    a = span.attributes
    if "gen_ai.operation.name" in a or "ai.operationId" in a or span_kind(a) is not None or is_guardrail_span(span):
        return False
    if non_generative(a):  # a rerank or an embedding: read, as a run step
        return False
    return "gen_ai.request.model" in a


def rank_note(span: Span) -> str:
    """The note for an OpenLLMetry rerank or embedding span (``llm.request.type``): no chat, so no
    trace; its candidate documents (``gen_ai.prompt.N``, role ``system``) are no policy of any
    call. ``"span cohere.rerank (c0…01) is a rerank call (llm.request.type = rerank), not a chat
    request: not imported as a model call; its 3 candidate document(s) and the ranking are on the
    run tree"``."""
    kind = non_generative(span.attributes)
    docs = sum(1 for k, v in span.attributes.items()
               if k.startswith("gen_ai.prompt.") and k.endswith(".role") and str(v) == "system")
    what = f"its {docs} candidate document(s) and the ranking" if kind == "rerank" else "its input"
    return (f"span {span.name or '?'} ({span.span_id}) is a {kind} call (llm.request.type = {kind}), not a chat "
            f"request: not imported as a model call; {what} are on the run tree")


class _FileState:
    """What :meth:`OtelImporter.load` learns across the span groups of one file."""

    def __init__(self) -> None:
        self.rejected = 0  # spans or lines reported as problems so far
        self.chats = 0
        self.lone_tools = 0  # named execute_tool spans (kept as traces when they fed no chat span)
        self.others = 0  # spans neither chat nor named tool execution
        self.other_names: list[str] = []  # the first five of them, for the "no chat spans" message
        self.openinference = 0  # OpenInference LLM spans: the openinference importer's (named at the end)
        self.unread_models: dict[str, int] = {}  # span name -> model-call-like spans no mapping reads
        self.traced: set[str] = set()  # span ids a trace was made of (their joined log records are on it)

    def absorb(self, later: _FileState) -> None:
        """Add what ``later`` learnt from the span groups after this state's (a chunk of the file
        read on its own, :mod:`.chunks`): as if one state had read them all, in file order."""
        self.rejected += later.rejected
        self.chats += later.chats
        self.lone_tools += later.lone_tools
        self.others += later.others
        self.other_names = (self.other_names + later.other_names)[:5]
        self.openinference += later.openinference
        for name, n in later.unread_models.items():
            self.unread_models[name] = self.unread_models.get(name, 0) + n
        self.traced |= later.traced


def _load_group(group: list[SpanRecord], file: str, state: _FileState, with_runs: bool = False) -> Iterator[RunRecord]:
    """Traces and problems of one group of whole traces (:func:`ctxviewer.importers.common.spans.read.read_span_groups`);
    ``with_runs``: then the group's spans as run steps (:func:`.runs.run_span`)."""
    spans: dict[object, Span] = {}
    for rec in group:
        if isinstance(rec, ImportProblem):
            state.rejected += 1
            yield rec
            continue
        key: object = (rec.trace_id, rec.span_id) if rec.span_id else id(rec)
        earlier = spans.get(key)
        if earlier is not None and not (earlier.end is None and rec.end is not None):
            # the same ids twice, not an open print followed by the ended one: one trace id for two
            # spans, so the later is kept and the earlier named as left out (new user nu2 #10)
            if _same_span(earlier, rec):  # exported twice: one span
                yield ImportProblem(file, rec.record, f"span {rec.span_id} of trace {rec.trace_id or '-'} is exported "
                                    f"again here, the same as at {earlier.record}: imported once", info=True)
            else:
                yield ImportProblem(file, earlier.record, f"span {rec.span_id} of trace {rec.trace_id or '-'} appears "
                                    f"again at {rec.record}; the later span is kept and this one is not imported", dropped=1)
                state.rejected += 1
        # Google ADK's call_llm spans and Logfire's pre-GenAI ones: their request/response documents as GenAI attributes
        spans[key] = strands.as_standard_events(logfire_legacy.as_chat_span(as_chat_span(rec)))
    cut: dict[int, dict[str, str]] = {}
    for key, sp in list(spans.items()):
        sp, deep = deep_keys(sp)  # JSON nested too deep to parse: cut below 100 levels, named
        for message in deep:
            yield ImportProblem(file, f"{sp.record} span {sp.span_id}" if sp.span_id else sp.record, message)
        sp, unparsed = truncated_keys(fold_events(sp))
        spans[key] = sp
        how = {k: h for k, h in unparsed.items() if h == "mid_json"}
        for k, h in unparsed.items():
            if h == "trailing":  # captured whole, then joined to other text: kept as raw text, nothing cut
                yield ImportProblem(file, f"{sp.record} span {sp.span_id}" if sp.span_id else sp.record,
                                    f"{k}: a whole JSON value followed by other text; kept as raw text")
        for k, h in cut_attributes(sp.attributes, CONTENT_KEYS).items():  # cuts that still parse (Logfire)
            how.setdefault(k, h)
        if how:
            cut[id(sp)] = how
    wrapped = wrappers.wrapped_calls(spans.values())  # Strands' event-loop cycles: run steps, not calls
    if wrapped:
        steps = [s for s in spans.values() if s.span_id in wrapped]
        spans = {k: wrappers.as_step(s, wrapped[s.span_id]) if s.span_id in wrapped else s for k, s in spans.items()}
        yield ImportProblem(file, steps[0].record, wrappers.note(steps), info=True)
    by_id = {s.span_id: s for s in spans.values() if s.span_id}
    chats = [s for s in spans.values() if is_chat_span(s.attributes)]
    tools = [s for s in spans.values() if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    named = [t for t in tools if t.attributes.get("gen_ai.tool.name")]
    state.chats += len(chats)
    state.openinference += count_other(spans.values(), "otel")
    state.lone_tools += len(named)
    guards = [s for s in spans.values() if is_guardrail_span(s)]
    above_chats = {p.span_id for c in chats for p in ancestors(c, by_id)}  # agent runs summing their calls
    for s in spans.values():
        if not is_chat_span(s.attributes) and not (s.attributes.get("gen_ai.operation.name") == "execute_tool"
                                                   and s.attributes.get("gen_ai.tool.name")) and not is_guardrail_span(s):
            state.others += 1
            if unread_model_call(s) and s.span_id not in above_chats:
                name = str(s.name or "unnamed")
                state.unread_models[name] = state.unread_models.get(name, 0) + 1
            if len(state.other_names) < 5:
                state.other_names.append(str(s.attributes.get("gen_ai.operation.name") or s.name or "unnamed"))
    traced: dict[int, str] = {}  # id(chat span) -> the trace made of it
    fed: dict[int, list[str]] = {}
    retrieved: dict[int, list[tuple[Span, list[Document]]]] = {}
    for r in (s for s in spans.values() if is_retrieval_span(s)):
        target = fed_call(r, chats)
        docs = retrieval_documents(r)
        if target is not None:
            retrieved.setdefault(id(target), []).append((r, docs))
            fed.setdefault(id(target), []).append(f"retrieval {r.name or '?'} (span {r.span_id}): {len(docs)} document(s)")
        elif docs:
            yield ImportProblem(file, r.record, f"retrieval span {r.span_id or r.name} fed no chat span in this file; "
                                                f"its {len(docs)} document(s) are not imported")
    for r in (s for s in spans.values() if non_generative(s.attributes)):
        yield ImportProblem(file, r.record, rank_note(r), info=True)
    for t in tools:
        target = fed_call(t, chats)
        if target is not None:
            fed.setdefault(id(target), []).append(
                f"tool {t.attributes.get('gen_ai.tool.name') or t.name} (span {t.span_id})")
    runs = tool_runs(tools)
    for tid, vercel in tool_runs((s for s in spans.values() if "ai.toolCall.id" in s.attributes), "ai.toolCall").items():
        for cid, found in vercel.items():  # Vercel AI SDK tool spans; an execute_tool span first
            runs.setdefault(tid, {}).setdefault(cid, []).extend(found)
    for s in chats:
        where = f"{s.record} span {s.span_id}" if s.span_id else s.record
        problems: list[str] = []
        try:
            call = call_from_span(s, problems)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            yield ImportProblem(file, where, f"cannot map GenAI attributes: {exc}", dropped=1)
            continue
        role_keyed = enrich_call(call, s, by_id)
        try:
            trace, notes = build_trace(call)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            yield ImportProblem(file, where, f"cannot map GenAI attributes: {exc}", dropped=1)
            continue
        notes += role_keyed
        own = tuple(guardrail_from_span(g) for g in guards if s.span_id and g.parent_id == s.span_id)
        if own:
            trace = replace(trace, guardrails=trace.guardrails + own)
        if id(s) in retrieved:
            trace = replace(trace, attributes={**trace.attributes, **retrieval_attributes(retrieved[id(s)])})
        if id(s) in fed:
            trace = replace(trace, attributes={**trace.attributes, "ctxviewer.fed_by": fed[id(s)]})
        if runs.get(s.trace_id) and trace.tool_calls:
            trace = replace(trace, tool_calls=with_run_verdicts(trace.tool_calls, runs[s.trace_id], s.start))
        if id(s) in cut:
            trace = replace(trace, attributes={**trace.attributes, **cut_trace_attributes(cut[id(s)])})
            notes += cut_notes(cut[id(s)])
        traced[id(s)] = trace.trace_id
        if s.span_id:
            state.traced.add(s.span_id)
        yield trace
        for message in problems + notes:
            yield ImportProblem(file, where, message)
    for t in named:  # a named tool execution that fed no chat span: kept (unless a span was rejected)
        if not state.rejected and fed_call(t, chats) is None:
            yield tool_trace(t, trace_id_for(t))
            if t.span_id:
                state.traced.add(t.span_id)
            yield ImportProblem(file, t.record, "execute_tool span fed no chat span in this file; "
                                                "imported on its own (its call and result)")
    yield from missing_parents(spans.values(), file)
    if with_runs:
        for s in spans.values():
            if s.span_id:
                yield run_span(s, traced.get(id(s)))


IMPORTER = OtelImporter()
"""The ``otel`` importer (listed in ``ctxviewer.importers.registry.BUILTIN``)."""
