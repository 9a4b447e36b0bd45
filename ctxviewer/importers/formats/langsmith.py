"""LangSmith runs: ingestion batches (``{post: [RunCreate], patch: [RunUpdate]}``), run lists and
nested run trees (``child_runs``) -> one :class:`~ctxviewer.model.trace.RequestTrace` per ``llm`` run.

Fields (langsmith-sdk ``schemas.py`` ``RunBase`` / ``Run``, ``run_trees.py``):
post and patch records are merged by ``id`` (patch values win); ``extra.metadata.ls_model_name`` /
``ls_provider`` (else ``inputs.model`` / ``extra.invocation_params.model``) give the endpoint;
``inputs.messages`` are OpenAI request messages (``wrap_openai``) or LangChain messages (also
nested one level, ``[[...]]``); ``inputs.tools`` / ``extra.invocation_params.tools`` the tool
definitions; ``outputs`` a ChatCompletion (``choices``) or LangChain ``generations``; usage from
``outputs.usage_metadata`` (LangChain rule: input includes cache, output includes reasoning), else
``outputs.usage``. ``start_time``/``end_time`` are ISO strings or epoch milliseconds; a run with no
``end_time`` never ended; ``error`` marks status error. ``retriever`` runs' ``outputs.documents``
become evidence of the next ``llm`` run in the same trace (by ``dotted_order``). The session id is
``extra.metadata`` ``session_id`` / ``thread_id`` / ``conversation_id``. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import load_documents, sniff_document
from ctxviewer.importers.common.langchain_messages import langchain_message, langchain_usage
from ctxviewer.importers.common.llm_call import Document, LLMCall, build_trace
from ctxviewer.importers.common.values import parse_time
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record

LLM_RUN_TYPES = frozenset({"llm", "chat_model"})


def _time(value: Any) -> datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, tz=timezone.utc)  # JS SDK: epoch ms
    try:
        return parse_time(value)
    except ValueError:
        return None


def runs_of(doc: Any) -> list[dict[str, Any]] | None:
    """All runs of one document, post and patch merged by id, child runs flattened; ``None`` if
    the document holds no runs."""
    if isinstance(doc, Mapping) and ("post" in doc or "patch" in doc):
        merged: dict[str, dict[str, Any]] = {}
        for rec in list(doc.get("post") or []) + list(doc.get("patch") or []):
            if isinstance(rec, Mapping):
                run = merged.setdefault(str(rec.get("id")), {})
                run.update({k: v for k, v in rec.items() if v not in (None, {}, []) or k not in run})
        return list(merged.values())
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


def call_from_run(run: Mapping[str, Any], documents: list[Document]) -> LLMCall:
    """One ``llm`` run as an :class:`LLMCall`."""
    extra = run.get("extra") or {}
    meta = extra.get("metadata") or {}
    params = extra.get("invocation_params") or {}
    inputs = run.get("inputs") or {}
    outputs = run.get("outputs") or {}
    call = LLMCall(trace_id=str(run.get("id")), source_format="langsmith", documents=documents)
    call.model = pm._str(meta.get("ls_model_name") or inputs.get("model") or params.get("model") or params.get("model_name"))
    call.provider = pm._str(meta.get("ls_provider"))
    call.messages = _messages(inputs)
    call.tools = pm.openai_tool_definitions(inputs.get("tools") or params.get("tools"))
    if outputs.get("choices") is not None:
        call.output = [dict(pm.openai_message(c.get("message") or {}), finish_reason=c.get("finish_reason"))
                       for c in outputs["choices"] if isinstance(c, Mapping)] or None
        call.response_model, call.response_id = pm._str(outputs.get("model")), pm._str(outputs.get("id"))
    elif outputs.get("generations") is not None:
        gens = outputs["generations"]
        gen = gens[0][0] if gens and isinstance(gens[0], list) and gens[0] else (gens[0] if gens else None)
        if isinstance(gen, Mapping):
            msg: dict[str, Any] = langchain_message(gen["message"]) if isinstance(gen.get("message"), Mapping) else \
                {"role": "assistant", "parts": [{"type": "text", "content": str(gen.get("text") or "")}]}
            info = gen.get("generation_info") or {}
            msg["finish_reason"] = info.get("finish_reason")
            call.output = [msg]
    if isinstance(outputs.get("usage_metadata"), Mapping):
        call.usage = langchain_usage(outputs["usage_metadata"])
    else:
        call.usage = pm.openai_chat_usage(outputs.get("usage") or (outputs.get("llm_output") or {}).get("token_usage"))
    call.created, call.ended = _time(run.get("start_time")), _time(run.get("end_time"))
    if call.ended is None:
        call.ended_recorded = False
    if run.get("error"):
        call.status, call.status_message = "error", str(run["error"])
    elif call.ended is not None:
        call.status = "ok"
    call.session_id = pm._str(meta.get("session_id") or meta.get("thread_id") or meta.get("conversation_id"))
    call.max_tokens = pm.int_or_none(meta.get("ls_max_tokens") or inputs.get("max_tokens"))
    for k in ("trace_id", "parent_run_id", "dotted_order", "name", "session_name"):
        if run.get(k):
            call.attributes[f"langsmith.{k}"] = str(run[k])
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
        file = str(path)
        runs: list[dict[str, Any]] = []
        for _record, doc in load_documents(path):
            found = None if isinstance(doc, Exception) else runs_of(doc)
            runs.extend(found or [])
        if not runs:
            raise ImportFailed(f"{path}: no LangSmith runs (expected post/patch or run objects with run_type)")
        runs.sort(key=lambda r: (str(r.get("trace_id") or ""), str(r.get("dotted_order") or "")))
        pending: dict[str, list[Document]] = {}
        n_found = 0
        for run in runs:
            tid = str(run.get("trace_id") or run.get("id"))
            if run.get("run_type") == "retriever":
                pending.setdefault(tid, []).extend(_documents(run))
                continue
            if run.get("run_type") not in LLM_RUN_TYPES:
                continue
            try:
                trace, warnings = build_trace(call_from_run(run, pending.pop(tid, [])))
            except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
                yield ImportProblem(file, f"run {run.get('id')}", f"cannot map run: {exc}")
                continue
            n_found += 1
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


IMPORTER = LangSmithImporter()
