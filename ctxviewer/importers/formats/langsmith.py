"""LangSmith runs: ingestion batches (``{post: [RunCreate], patch: [RunUpdate]}``), run lists,
``POST /runs/query`` response pages (``{"runs": [...], "cursors": {"next": ...}}``: a set ``next``
is said once, the later pages not being in the file) and nested run trees (``child_runs``) -> one :class:`~ctxviewer.model.trace.RequestTrace` per ``llm`` run.

Fields (langsmith-sdk ``schemas.py`` ``RunBase`` / ``Run``, ``run_trees.py``):
post and patch records are merged by ``id`` (patch values win); ``extra.metadata.ls_model_name`` /
``ls_provider`` (else ``inputs.model`` / ``extra.invocation_params.model``) give the endpoint;
``inputs.messages`` are OpenAI request messages (``wrap_openai``) or LangChain messages (also
nested one level, ``[[...]]``); ``inputs.tools`` / ``extra.invocation_params.tools`` the tool
definitions; ``outputs`` a ChatCompletion (``choices``) or LangChain ``generations``; usage from
``outputs.usage_metadata`` or the first generation's ``AIMessage.usage_metadata`` (LangChain rule:
input includes cache, output includes reasoning; Gemini thinking only in ``total_tokens`` taken
back, :mod:`~ctxviewer.importers.common.usage_rules`), else ``outputs.usage`` /
``llm_output.token_usage``, else the run-level ``prompt_tokens`` / ``completion_tokens``
(:mod:`~ctxviewer.importers.formats.langsmith_tools`, which also gives a proposed call the verdict
its ``tool`` run shows). ``start_time``/``end_time`` are ISO strings or epoch milliseconds; a run with no
``end_time`` never ended; ``error`` marks status error. ``retriever`` runs' ``outputs.documents``
become evidence of the next ``llm`` run in the same trace (by ``dotted_order``). The session id is
``extra.metadata`` ``session_id`` / ``thread_id`` / ``conversation_id``. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import load_documents, sniff_document
from ctxviewer.importers.common.field_account import mapped, unmapped_attribute, unmapped_keys
from ctxviewer.importers.common.langchain_messages import (
    langchain_message,
    langchain_response_metadata,
    langchain_usage,
)
from ctxviewer.importers.common.llm_call import Document, LLMCall, build_trace
from ctxviewer.importers.common.request_params import request_parameters
from ctxviewer.importers.common.scores import score, scores_attribute
from ctxviewer.importers.common.sent_documents import fold_sent_documents
from ctxviewer.importers.common.usage_rules import RULE as GEMINI_RULE
from ctxviewer.importers.common.usage_rules import thinking_in_total
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record, RunRecord
from ctxviewer.importers.formats.langsmith_runs import run_ids, run_step, run_time
from ctxviewer.importers.formats.langsmith_tools import RUN_TOKEN_KEYS, TraceToolRuns, run_tokens_agree, run_usage
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import Usage

LLM_RUN_TYPES = frozenset({"llm", "chat_model"})


def _id_of_dotted_order(dotted: Any) -> str | None:
    """The run id at the end of a ``dotted_order`` (``{time}Z{run-uuid}``, segments joined by ``.``)."""
    if not isinstance(dotted, str) or "Z" not in dotted:
        return None
    last = dotted.rsplit(".", 1)[-1]
    return last.partition("Z")[2] or None


def _batch(doc: Any) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]] | None:
    if isinstance(doc, Mapping) and ("post" in doc or "patch" in doc):
        def recs(key: str) -> list[Mapping[str, Any]]:
            value = doc.get(key)
            return [r for r in value if isinstance(r, Mapping)] if isinstance(value, list) else []
        return recs("post"), recs("patch")
    return None


def merge_runs(posts: list[Mapping[str, Any]], patches: list[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Post (``RunCreate``) and patch (``RunUpdate``) records merged into runs, patch values
    winning, and a warning per patch that could not be merged as the file says.

    A patch is matched to its run by every key the SDKs use: its ``id``; else its ``dotted_order``
    (the LangSmith JS SDK's patches carry ``trace_id`` and ``dotted_order`` but no ``id``), equal to
    a post's, else naming the run id as its last segment's ``{time}Z{run-uuid}``. A patch whose run
    was not posted in the file is a run of its own (with a warning); one with neither key is left
    out, with a warning naming it."""
    merged: dict[str, dict[str, Any]] = {}
    by_dotted: dict[str, str] = {}
    warnings: list[str] = []
    for n, rec in enumerate(posts):
        rid = str(rec.get("id") or _id_of_dotted_order(rec.get("dotted_order")) or f"post-{n}")
        merged.setdefault(rid, {}).update(rec)
        merged[rid].setdefault("id", rid)
        if isinstance(rec.get("dotted_order"), str):
            by_dotted[rec["dotted_order"]] = rid
    for n, rec in enumerate(patches):
        dotted = rec.get("dotted_order")
        found = rec.get("id") or (by_dotted.get(dotted) if isinstance(dotted, str) else None) \
            or _id_of_dotted_order(dotted)
        if not found:
            named = f" (name {rec['name']!r})" if rec.get("name") else ""
            warnings.append(f"patch {n}: has neither id nor dotted_order{named}; cannot be matched to its run, left out")
            continue
        rid = str(found)
        if rid not in merged:
            warnings.append(f"patch {n}: run {rid} was not posted in this file; imported from the patch alone")
        run = merged.setdefault(rid, {"id": rid})
        run.update({k: v for k, v in rec.items() if (v not in (None, {}, []) or k not in run) and k != "id"})
    return list(merged.values()), warnings


def runs_of(doc: Any) -> list[dict[str, Any]] | None:
    """All runs of one document, post and patch merged (:func:`merge_runs`), child runs
    flattened; ``None`` if the document holds no runs."""
    batch = _batch(doc)
    if batch is not None:
        return merge_runs(*batch)[0]
    return _run_list(doc)


def next_cursor(doc: Any) -> str | None:
    """The ``cursors.next`` of a ``POST /runs/query`` response page (``{"runs": [...], "cursors":
    {"next": ...}}``, the page the SDK's ``Client.list_runs`` follows until ``next`` is unset), or
    ``None`` when the document is no such page or it is the last one."""
    cursors = doc.get("cursors") if isinstance(doc, Mapping) and isinstance(doc.get("runs"), list) else None
    nxt = cursors.get("next") if isinstance(cursors, Mapping) else None
    return str(nxt) if nxt not in (None, "") else None


def _run_list(doc: Any) -> list[dict[str, Any]] | None:
    if isinstance(doc, Mapping) and "run_type" not in doc and isinstance(doc.get("runs"), list):
        doc = doc["runs"]  # a POST /runs/query response page: {"runs": [...], "cursors": {...}}
    items = doc if isinstance(doc, list) else [doc]
    if not items or not all(isinstance(r, Mapping) and "run_type" in r for r in items):
        return None
    out: list[dict[str, Any]] = []

    def walk(run: Mapping[str, Any]) -> None:
        out.append({k: v for k, v in run.items() if k != "child_runs"})
        for child in run.get("child_runs") or []:
            if isinstance(child, Mapping):
                walk(dict(child, parent_run_id=child.get("parent_run_id") or run.get("id"),
                          trace_id=child.get("trace_id") or run.get("trace_id")))

    for r in items:
        walk(r)
    return out


def _messages(inputs: Mapping[str, Any]) -> list[pm.Message]:
    msgs = inputs.get("messages")
    if msgs is None and inputs.get("prompts") is not None:
        return [{"role": "user", "parts": [{"type": "text", "content": str(p)}]} for p in inputs["prompts"]]
    if isinstance(msgs, list) and len(msgs) == 1 and isinstance(msgs[0], list):
        msgs = msgs[0]
    return [langchain_message(m) for m in msgs or []]


MAPPED = mapped(
    "id", "trace_id", "parent_run_id", "dotted_order", "name", "session_name", "session_id", "run_type",
    "start_time", "end_time", "error", "tags", "feedback_stats", "child_run_ids", "status",
    "inputs.messages", "inputs.prompts", "inputs.tools", "inputs.model", "inputs.max_tokens",
    "outputs.choices", "outputs.generations", "outputs.usage_metadata", "outputs.usage",
    "outputs.llm_output.token_usage", "outputs.llm_output.model_name", "outputs.model", "outputs.id",
    "outputs.system_fingerprint", "outputs.type",
    "outputs.documents", "extra.metadata", "extra.invocation_params")
"""The run keys :func:`call_from_run` maps (scalar ``inputs`` parameters and ``extra.metadata``
values are kept as attributes and added per run); the rest is named in ``ctxviewer.unmapped``."""


_GEN_MESSAGE = "outputs.generations.0.0.message."
"""The path of the first generation's message, under which its unmapped ``response_metadata`` keys are named."""

_META_MAPPED = frozenset({"ls_model_name", "ls_provider", "ls_max_tokens", "session_id", "thread_id",
                          "conversation_id", "user_id"})


def _feedback(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``feedback_stats`` (``{key: {n, avg, values}}``, langsmith-sdk ``Run.feedback_stats``) as scores:
    the average when recorded, else the categorical ``values`` counts."""
    stats = run.get("feedback_stats")
    out = []
    if isinstance(stats, Mapping):
        for key, st in stats.items():
            if isinstance(st, Mapping):
                value = st.get("avg") if st.get("avg") is not None else (st.get("values") or None)
                n = st.get("n")
                out.append(score(key, value, "langsmith feedback", f"average of {n}" if n is not None else None))
            else:
                out.append(score(key, st, "langsmith feedback"))
    return out


def _generation_usage(gens: Any) -> Mapping[str, Any] | None:
    """The ``usage_metadata`` of the first generation's ``AIMessage`` (the ``lc`` constructor form's
    ``kwargs`` or the dict form), where LangChain chat models that leave ``llm_output`` without
    token usage (ChatGoogleGenerativeAI, ChatAnthropic) record it; ``None`` without one."""
    gen = gens[0][0] if gens and isinstance(gens[0], list) and gens[0] else (gens[0] if gens else None)
    msg = gen.get("message") if isinstance(gen, Mapping) else None
    if not isinstance(msg, Mapping):
        return None
    body = msg.get("kwargs") if isinstance(msg.get("kwargs"), Mapping) else msg.get("data", msg)
    usage = body.get("usage_metadata") if isinstance(body, Mapping) else None
    return usage if isinstance(usage, Mapping) else None


def call_from_run(run: Mapping[str, Any], documents: list[Document]) -> LLMCall:
    """One ``llm`` run as an :class:`LLMCall`; the run keys it did not map are named in
    ``ctxviewer.unmapped`` (:mod:`~ctxviewer.importers.common.field_account`)."""
    extra = run.get("extra") or {}
    meta = extra.get("metadata") or {}
    params = extra.get("invocation_params") or {}
    inputs = run.get("inputs") or {}
    outputs = run.get("outputs") or {}
    response_unmapped: list[str] = []
    call = LLMCall(trace_id=str(run.get("id")), source_format="langsmith", documents=documents)
    call.model = pm._str(meta.get("ls_model_name") or inputs.get("model") or params.get("model") or params.get("model_name"))
    call.provider = pm._str(meta.get("ls_provider"))
    call.messages = _messages(inputs)
    call.tools = pm.openai_tool_definitions(inputs.get("tools") or params.get("tools"))
    if outputs.get("choices") is not None:
        call.output = [dict(pm.openai_message(c.get("message") or {}), finish_reason=c.get("finish_reason"))
                       for c in outputs["choices"] if isinstance(c, Mapping)] or None
        call.output_field = "outputs.choices"
        call.response_model, call.response_id = pm._str(outputs.get("model")), pm._str(outputs.get("id"))
        if outputs.get("system_fingerprint"):
            call.attributes["openai.response.system_fingerprint"] = str(outputs["system_fingerprint"])
    elif outputs.get("generations") is not None:
        gens = outputs["generations"]
        facts: dict[str, str | None] = {"model": None}
        gen = gens[0][0] if gens and isinstance(gens[0], list) and gens[0] else (gens[0] if gens else None)
        if isinstance(gen, Mapping):
            msg: dict[str, Any] = langchain_message(gen["message"]) if isinstance(gen.get("message"), Mapping) else \
                {"role": "assistant", "parts": [{"type": "text", "content": str(gen.get("text") or "")}]}
            info = gen.get("generation_info") or {}
            facts, response_unmapped = langchain_response_metadata(gen.get("message"), _GEN_MESSAGE)
            msg["finish_reason"] = info.get("finish_reason") or facts["finish_reason"]
            call.output, call.output_field = [msg], "outputs.generations"
            call.response_id = facts["id"]
        call.response_model = pm._str((outputs.get("llm_output") or {}).get("model_name")) or facts["model"]
    usage_metadata = outputs.get("usage_metadata")
    if not isinstance(usage_metadata, Mapping):
        usage_metadata = _generation_usage(outputs.get("generations"))
    if isinstance(usage_metadata, Mapping):
        call.usage = langchain_usage(usage_metadata)
        thought = thinking_in_total(call.usage, pm.int_or_none(usage_metadata.get("total_tokens")), call.provider,
                                    call.model)
        if thought is not None:
            call.usage = thought
            call.attributes["ctxviewer.usage_rule"] = GEMINI_RULE
    else:
        raw_usage = outputs.get("usage") or (outputs.get("llm_output") or {}).get("token_usage")
        call.usage = pm.openai_chat_usage(raw_usage)
        usage_metadata = raw_usage if isinstance(raw_usage, Mapping) else None
    run_level = run_usage(run)  # LangSmith's own Run.prompt_tokens / completion_tokens (.langsmith_tools)
    tokens_read = run_level is not None and call.usage == Usage()
    if tokens_read and run_level is not None:
        call.usage = run_level
    elif run_level is not None:
        tokens_read = run_tokens_agree(run, call.usage, pm.int_or_none((usage_metadata or {}).get("total_tokens")))
    call.created, call.ended = run_time(run.get("start_time")), run_time(run.get("end_time"))
    if call.ended is None:
        call.ended_recorded = False
    if run.get("error"):
        call.status, call.status_message = "error", str(run["error"])
    elif call.ended is not None:
        call.status = "ok"
    call.session_id = pm._str(meta.get("session_id") or meta.get("thread_id") or meta.get("conversation_id"))
    call.user_id = pm._str(meta.get("user_id"))
    call.max_tokens = pm.int_or_none(meta.get("ls_max_tokens") or inputs.get("max_tokens")
                                     or params.get("max_tokens"))
    for k in ("trace_id", "parent_run_id", "dotted_order", "name", "session_name"):
        if run.get(k):
            call.attributes[f"langsmith.{k}"] = str(run[k])
    if isinstance(run.get("tags"), list) and run["tags"]:
        call.attributes["langsmith.tags"] = [str(t) for t in run["tags"]]
    kept, _ = request_parameters(params, "langsmith.invocation_params")
    from_inputs, read = request_parameters(inputs, "langsmith.inputs")
    call.attributes.update(kept)
    call.attributes.update(from_inputs)
    for key, value in meta.items():  # metadata the user set (and the SDK's ls_*) kept as attributes
        if key not in _META_MAPPED and isinstance(value, (str, int, float, bool)):
            call.attributes[f"langsmith.metadata.{key}"] = value
    unmapped = [k for k in unmapped_keys(run, MAPPED) if not (tokens_read and k in RUN_TOKEN_KEYS)]
    unmapped = [k for k in unmapped if not (k.startswith("inputs.") and k[7:] in read)]
    unmapped += [f"extra.metadata.{k}" for k, v in meta.items() if not isinstance(v, (str, int, float, bool))
                 and v not in (None, {}, [])]
    unmapped += response_unmapped
    call.attributes.update(unmapped_attribute(unmapped))
    call.attributes.update(scores_attribute(_feedback(run)))
    return call


def _documents(run: Mapping[str, Any]) -> list[Document]:
    docs = (run.get("outputs") or {}).get("documents") or []
    return [Document(id=pm._str((d.get("metadata") or {}).get("id") or d.get("id")),
                     content=pm._str(d.get("page_content")), store=pm._str(run.get("name")))
            for d in docs if isinstance(d, Mapping)]


class LangSmithImporter:
    """The ``langsmith`` importer (see module docstring)."""

    name = "langsmith"
    records_omissions = False
    description = "LangSmith runs: post/patch ingestion batches, run lists and run trees"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` for a ``{post, patch}`` batch or run objects with
        ``run_type``; else 0."""
        doc = sniff_document(head)
        if isinstance(doc, Mapping) and ("post" in doc or "patch" in doc):
            return SPECIFIC
        return SPECIFIC if doc is not None and runs_of(doc) is not None else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per ``llm`` run in ``dotted_order``; warnings as problems after each trace, then
        one per run whose ``parent_run_id`` names no run in the file."""
        for record in self.load_runs(path):
            if not isinstance(record, RunSpan):
                yield record

    def load_runs(self, path: Path) -> Iterator[RunRecord]:
        """:meth:`load`'s records, then every run of the file as a step of its run tree
        (:func:`ctxviewer.importers.formats.langsmith_runs.run_step`: chains, tools, retrievers and
        the ``llm`` runs, which name their trace)."""
        file = str(path)
        runs: list[dict[str, Any]] = []
        pages: list[str] = []  # cursors.next of each /runs/query page that has a next one
        posts: list[Mapping[str, Any]] = []
        patches: list[Mapping[str, Any]] = []
        for _record, doc in load_documents(path):
            if isinstance(doc, Exception):
                continue
            batch = _batch(doc)
            if batch is not None:  # batches are merged across the file: a patch may come in a later flush
                posts.extend(batch[0])
                patches.extend(batch[1])
            else:
                runs.extend(_run_list(doc) or [])
                if next_cursor(doc) is not None:
                    pages.append(str(next_cursor(doc)))
        merged, merge_warnings = merge_runs(posts, patches)
        runs.extend(merged)
        for w in merge_warnings:
            yield ImportProblem(file, w.partition(":")[0], w.partition(": ")[2])
        if not runs:
            raise ImportFailed(f"{path}: no LangSmith runs (expected post/patch or run objects with run_type)")
        if pages:  # said once: the other pages are not in the file
            yield ImportProblem(file, "whole file", f"a page of POST /runs/query ({len(runs)} run(s)); cursors.next is "
                                "set, so more runs exist that this file does not hold (not imported)")
        runs.sort(key=lambda r: (str(r.get("trace_id") or ""), str(r.get("dotted_order") or "")))
        trees = run_ids(runs)
        executions = TraceToolRuns(runs, trees, LLM_RUN_TYPES)
        pending: dict[str, list[Document]] = {}
        traced: dict[str, str] = {}  # llm run id -> its trace
        n_found = 0
        for run in runs:
            tid = str(run.get("trace_id") or run.get("id"))
            if run.get("run_type") == "retriever":
                pending.setdefault(tid, []).extend(_documents(run))
                continue
            if run.get("run_type") not in LLM_RUN_TYPES:
                continue
            try:
                call = call_from_run(run, pending.pop(tid, []))
                fold_sent_documents(call)
                trace, warnings = build_trace(call)
                if trace.tool_calls:  # the verdicts its trace's tool runs show (.langsmith_tools)
                    trace = replace(trace, tool_calls=executions.verdicts(trace.tool_calls, str(run.get("id")),
                                                                          call.created))
            except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
                yield ImportProblem(file, f"run {run.get('id')}", f"cannot map run: {exc}", dropped=1)
                continue
            n_found += 1
            traced[str(run.get("id"))] = trace.trace_id
            yield trace
            for w in warnings:
                yield ImportProblem(file, f"run {run.get('id')}", w)
        if not n_found:
            yield ImportProblem(file, "whole file", f"no llm runs found ({len(runs)} other run(s))")
        ids = {str(r.get("id")) for r in runs}
        for run in runs:  # a parent named but not in the file: said so, like a span's (spans.span.missing_parents)
            parent = run.get("parent_run_id")
            if parent and str(parent) not in ids:
                yield ImportProblem(file, f"run {run.get('id')}",
                                    f"run {run.get('id')} ({run.get('run_type')} {run.get('name')}): parent run "
                                    f"{parent} is not in this file; imported without it (what its ancestors "
                                    "record -- retrieved documents, the chain's inputs -- is not known)")
        for run in runs:
            yield run_step(run, trees[str(run.get("id"))], traced.get(str(run.get("id"))))


IMPORTER = LangSmithImporter()
