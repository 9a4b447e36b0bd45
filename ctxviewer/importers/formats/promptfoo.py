"""promptfoo eval exports (``promptfoo export`` / ``--output results.json``, results version 3):
one :class:`~ctxviewer.model.trace.RequestTrace` per result row (test x prompt x provider).

Fields (promptfoo ``src/types/index.ts`` ``EvaluateSummaryV3``, ``EvaluateResult``, ``TokenUsage``):
``provider.id`` = ``"provider:model"`` or ``"provider:type:model"`` (:func:`provider_model`); ``prompt.raw`` is the rendered prompt -- a
chat prompt is a JSON message array, anything else one user message; ``response.output`` the answer,
``response.finishReason``; usage ``response.tokenUsage{prompt, completion,
completionDetails.reasoning}`` (completion includes reasoning; ``cached`` is the tokens of a
response promptfoo served from its own cache, kept as ``promptfoo.tokenUsage.cached``, and such
a row's status says so: :data:`CACHE_HIT`; its prompt and completion counts, the original call's,
are kept as ``promptfoo.tokenUsage.*`` and not as this row's usage, which is neither counted nor priced); ``error`` -> status error with its message; ``latencyMs``, ``score``, ``success``,
``cost``, ``gradingResult.pass`` kept as attributes; ``latencyMs`` is also the call's duration
(``ctxviewer.duration_ms``) unless the response was served from promptfoo's cache. The eval's ``results.timestamp`` is each row's created time (rows
carry no own time). Trace id = ``"{evalId}:{result id}"``. No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import head_text, read_text
from ctxviewer.importers.common.field_account import mapped, unmapped_attribute, unmapped_keys
from ctxviewer.importers.common.llm_call import LLMCall, build_trace
from ctxviewer.importers.common.peek import cut_short, starts_as_json
from ctxviewer.importers.common.scores import score, scores_attribute
from ctxviewer.importers.common.values import parse_time
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record
from ctxviewer.model.trace import Usage


def _prompt_messages(raw: Any) -> list[pm.Message]:
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if isinstance(data, list) and data and all(isinstance(m, Mapping) and "role" in m for m in data):
            return [pm.openai_message(m) for m in data]
        return [{"role": "user", "parts": [{"type": "text", "content": raw}]}]
    if isinstance(raw, list):
        return [pm.openai_message(m) for m in raw]
    return []


def call_from_result(r: Mapping[str, Any], eval_id: str, created: Any) -> LLMCall:
    """One ``results.results[]`` row as an :class:`LLMCall`."""
    prov = r.get("provider") or {}
    pid = str(prov.get("id")) if isinstance(prov, Mapping) else str(prov)
    provider, model = provider_model(pid)
    resp = r.get("response") or {}
    tu = resp.get("tokenUsage") or {}
    cd = tu.get("completionDetails") or {}
    prompt = r.get("prompt") or {}
    rid = r.get("id") or f"{r.get('promptIdx')}-{r.get('testIdx')}"
    call = LLMCall(trace_id=f"{eval_id}:{rid}",
                   source_format="promptfoo", provider=provider or None, model=model or None,
                   messages=_prompt_messages(prompt.get("raw")))
    out = resp.get("output")
    if out is not None:
        text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)
        call.output = [{"role": "assistant", "parts": [{"type": "text", "content": text}],
                        "finish_reason": resp.get("finishReason")}]
    # tokenUsage.cached is the tokens of a response promptfoo served from its own cache, not the
    # provider's prompt caching: kept as an attribute, never as cached input
    cached = isinstance(resp, Mapping) and resp.get("cached") is True  # served from promptfoo's cache: no call made
    usage = Usage(input_tokens=pm.int_or_none(tu.get("prompt")), output_tokens=pm.int_or_none(tu.get("completion")),
                  reasoning_tokens=pm.int_or_none(cd.get("reasoning")) if isinstance(cd, Mapping) else None)
    if cached:  # no tokens were used by this row: the counts (the original call's) kept, never priced again
        call.attributes.update({f"promptfoo.tokenUsage.{k}": v for k, v in (
            ("prompt", usage.input_tokens), ("completion", usage.output_tokens)) if v is not None})
    else:
        call.usage = usage
    if pm.int_or_none(tu.get("cached")) is not None:
        call.attributes["promptfoo.tokenUsage.cached"] = pm.int_or_none(tu.get("cached"))
    call.created = created
    latency = r.get("latencyMs")
    if not cached and isinstance(latency, (int, float)) and not isinstance(latency, bool) and 0 <= latency < 1e12:
        call.latency_ms = float(latency)  # the row's only time of its own: its duration
    if r.get("error") and r.get("failureReason") != 1:  # 1 = assertion failed: the call itself succeeded
        call.status, call.status_message = "error", str(r["error"])
    else:
        call.status = "ok"
        if r.get("error"):
            call.attributes["promptfoo.failure"] = str(r["error"])
    if cached and call.status == "ok":
        call.status_message = CACHE_HIT
    call.attributes.update({f"promptfoo.{k}": r[k] for k in ("latencyMs", "score", "success", "cost", "testIdx",
                                                           "promptIdx") if r.get(k) is not None})
    if prompt.get("label"):
        call.attributes["promptfoo.prompt_label"] = prompt["label"]
    if isinstance(r.get("vars"), Mapping):
        call.attributes["promptfoo.vars"] = dict(r["vars"])
    for key in ("cached", "cost"):  # the provider call's own: served from promptfoo's cache, its cost (USD)
        if resp.get(key) is not None:
            call.attributes[f"promptfoo.response.{key}"] = resp[key]
    call.attributes.update(scores_attribute(grading_scores(r)))
    call.attributes.update(unmapped_attribute(unmapped_keys(r, MAPPED)))
    return call


CACHE_HIT = "served from promptfoo's cache: no provider call was made for this row"
"""The span line's words for a row whose ``response.cached`` is true."""

MODEL_TYPES = frozenset({"chat", "completion", "completions", "responses", "messages", "assistant", "embedding",
                         "embeddings", "text-generation", "realtime", "image", "moderation", "classification"})
"""The API-type segment promptfoo provider ids may carry between provider and model
(``openai:chat:gpt-4o-mini``, ``anthropic:messages:claude-3-5-sonnet-20241022``, ``ollama:chat:llama3``)."""


def provider_model(pid: str) -> tuple[str, str]:
    """``(provider, model)`` of a promptfoo provider id: ``"openai:gpt-4o-mini"`` and
    ``"openai:chat:gpt-4o-mini"`` are both ``("openai", "gpt-4o-mini")``; a second segment that is
    no API type stays part of the model (``"bedrock:us.anthropic.claude-3-5-sonnet-20241022-v2:0"``,
    ``"openrouter:anthropic/claude-3.5-sonnet"``)."""
    provider, _, rest = pid.partition(":")
    kind, sep, model = rest.partition(":")
    if sep and model and kind.lower() in MODEL_TYPES:
        return provider, model
    return provider, rest


MAPPED = mapped("id", "provider", "response.output", "response.tokenUsage", "response.finishReason", "prompt.raw",
                "response.cached", "response.cost",
                "prompt.label", "error", "failureReason", "latencyMs", "score", "success", "cost", "testIdx",
                "promptIdx", "vars", "gradingResult", "namedScores")
"""The result-row keys mapped or kept; the rest are named in ``ctxviewer.unmapped``."""


def _verdict(g: Mapping[str, Any]) -> str:
    verdict = "pass" if g.get("pass") else "fail"
    return f"{verdict}: {g['reason']}" if g.get("reason") else verdict


def grading_scores(r: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A row's grading as scores (promptfoo ``GradingResult``): the overall ``score`` / ``pass``
    (name ``promptfoo``, the reason as comment), each ``componentResults[]`` assertion (name
    ``assertion TYPE``, value its score, comment ``pass`` / ``fail`` and its reason) and each
    ``namedScores`` entry. Source ``promptfoo assertion``."""
    g = r.get("gradingResult")
    out = []
    if isinstance(g, Mapping):
        out.append(score("promptfoo", g.get("score"), "promptfoo assertion", _verdict(g)))
        for c in g.get("componentResults") or []:
            if isinstance(c, Mapping):
                a = c.get("assertion")
                kind = a.get("type") if isinstance(a, Mapping) else None
                out.append(score(f"assertion {kind or '?'}", c.get("score"), "promptfoo assertion",
                                 _verdict(c)))
    for name, value in (r.get("namedScores") or {}).items() if isinstance(r.get("namedScores"), Mapping) else []:
        out.append(score(name, value, "promptfoo named score"))
    return out


class PromptfooImporter:
    """The ``promptfoo`` importer (see module docstring)."""

    name = "promptfoo"
    records_omissions = False
    description = "promptfoo eval exports (results version 3)"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` for an object with ``evalId`` and ``results`` near the start; else 0."""
        text = head_text(head)[:4096]
        return SPECIFIC if starts_as_json(text) and '"evalId"' in text and '"results"' in text else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per result row, in file order."""
        file = str(path)
        try:
            doc = json.loads(read_text(path))
        except ValueError as exc:
            raise ImportFailed(f"{path}: not JSON: {exc}{cut_short(exc)}") from None
        results = doc.get("results") if isinstance(doc, Mapping) else None
        rows = results.get("results") if isinstance(results, Mapping) else None
        if not isinstance(rows, list) or not isinstance(results, Mapping):
            raise ImportFailed(f"{path}: not a promptfoo export (no results.results list)")
        try:
            created = parse_time(results.get("timestamp"))
        except ValueError:
            created = None
        for i, r in enumerate(rows):
            record = f"results.results[{i}]"
            try:
                trace, warnings = build_trace(call_from_result(r, str(doc.get("evalId") or path.stem), created))
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                yield ImportProblem(file, record, f"cannot map result: {exc}", dropped=1)
                continue
            yield trace
            for w in warnings:
                yield ImportProblem(file, record, w)


IMPORTER = PromptfooImporter()
