"""Langfuse generations beyond their messages: Langfuse's own tool calls, model parameters,
cost, environment, trace name / tags / release, scores and corrections (``ctxviewer.scores``),
the managed prompt a generation was made from as the trace's policy (:func:`with_prompt_policy`),
and the account of every observation key (``ctxviewer.unmapped``).

Fields: langfuse ``fern/apis/server/definition/observations.yml`` ``Observation``
(``costDetails`` and ``totalCost`` in USD, ``modelParameters``), ``scores.yml`` ``Score``. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.field_account import mapped, unmapped_attribute, unmapped_keys
from ctxviewer.importers.common.llm_call import LLMCall
from ctxviewer.importers.common.request_params import request_parameters
from ctxviewer.importers.common.scores import langfuse_score, scores_attribute
from ctxviewer.model.trace import Kind, RequestTrace


def json_value(value: Any) -> Any:
    """A JSON (or Python-repr) string decoded; any other value as it is."""
    return gm.parse_structured(value) if isinstance(value, str) else value


def metadata(obs: Mapping[str, Any]) -> dict[str, Any]:
    """An observation's ``metadata`` decoded (``{}`` if none)."""
    md = json_value(obs.get("metadata"))
    return dict(md) if isinstance(md, Mapping) else {}


MAPPED = mapped(
    "id", "traceId", "type", "name", "startTime", "endTime", "level", "statusMessage", "parentObservationId",
    "input", "output", "model", "modelParameters", "usageDetails", "usage", "inputUsage", "outputUsage",
    "totalUsage", "latency", "timeToFirstToken", "completionStartTime", "toolDefinitions", "toolCalls",
    "toolCallNames", "totalCost", "costDetails", "inputCost", "outputCost", "calculatedTotalCost",
    "calculatedInputCost", "calculatedOutputCost", "environment", "version", "promptName", "promptVersion",
    "promptId", "modelId",
    "metadata.attributes", "metadata.thread_id", "metadata.ls_provider", "metadata.tools")
"""The observation keys a model call maps or keeps (Langfuse ``Observation``); the rest are
named in ``ctxviewer.unmapped``. The original span attributes in ``metadata.attributes`` are
read by the OTel / OpenInference readers and are not accounted key by key; of
``metadata.resourceAttributes`` only ``service.name`` is read (the rest is named as one key);
other scalar metadata is kept as ``langfuse.metadata.KEY``."""

TRACE_MAPPED = frozenset({"id", "name", "sessionId", "userId", "tags", "release", "version", "environment",
                          "scores", "corrections", "observations", "timestamp", "input", "output", "latency",
                          "totalCost", "htmlPath"})
"""Trace keys kept on every call of the trace (or, input/output and totals, said by its calls)."""


def _tool_calls(value: Any) -> list[dict[str, Any]]:
    """Langfuse's own ``toolCalls`` list (``{id, name, arguments | input | args}`` or OpenAI
    ``{id, function: {name, arguments}}``) as ``tool_call`` parts."""
    out = []
    for c in json_value(value) or []:
        if isinstance(c, Mapping):
            f = c.get("function")
            fn: Mapping[str, Any] = f if isinstance(f, Mapping) else c
            out.append({"type": "tool_call", "id": c.get("id"), "name": fn.get("name"),
                        "arguments": fn.get("arguments", fn.get("input", fn.get("args")))})
    return out


def add_extras(call: LLMCall, obs: Mapping[str, Any], trace: Mapping[str, Any]) -> None:
    """What a generation holds beyond the messages: Langfuse's ``toolCalls`` (when the output
    recorded none), model parameters as ``gen_ai.request.*``, cost (USD) as ``langfuse.cost.*``,
    environment, version, prompt (name, version, id), Langfuse's model id, trace name / tags / release, the scores of the trace and of
    this observation (``ctxviewer.scores``) and the keys not mapped (``ctxviewer.unmapped``)."""
    calls = _tool_calls(obs.get("toolCalls"))
    if calls and not call.output_tool_calls and not any(p.get("type") == "tool_call" for m in call.output or []
                                                        for p in m.get("parts") or []):
        call.output_tool_calls = calls
    params = obs.get("modelParameters")
    if isinstance(params, Mapping):
        kept, _ = request_parameters({k: v for k, v in params.items() if k != "maxTokens"}, "langfuse.model_parameters")
        call.attributes.update(kept)
        call.max_tokens = call.max_tokens or pm.int_or_none(params.get("maxTokens") or params.get("max_tokens"))
    details = obs.get("costDetails")
    cost: dict[str, Any] = dict(details) if isinstance(details, Mapping) else {}
    for key, value in dict(cost, total=obs.get("totalCost") if obs.get("totalCost") is not None
                           else cost.get("total")).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            call.attributes[f"langfuse.cost.{key}"] = value
    for key in ("environment", "version", "promptName", "promptVersion", "promptId", "modelId"):
        if obs.get(key) not in (None, ""):
            call.attributes[f"langfuse.{key}"] = obs[key]
    for key in ("name", "release", "tags"):
        if trace.get(key) not in (None, "", []):
            call.attributes[f"langfuse.trace.{key}"] = trace[key]
    oid = str(obs.get("id"))
    found = [langfuse_score(s, "trace" if not s.get("observationId") else "observation")
             for s in list(trace.get("scores") or []) + list(trace.get("corrections") or [])
             if isinstance(s, Mapping) and (not s.get("observationId") or str(s["observationId"]) == oid)]
    call.attributes.update(scores_attribute(found))
    md = metadata(obs)
    found_res = md.get("resourceAttributes")
    res: Mapping[str, Any] = found_res if isinstance(found_res, Mapping) else {}
    call.service = call.service or pm._str(res.get("service.name"))
    for key, value in md.items():  # what the SDK or the user put in metadata, kept (LangChain / LangGraph)
        if MAPPED["metadata"].get(key) is None and (isinstance(value, (str, int, float, bool)) or (
                isinstance(value, list) and value and all(isinstance(v, (str, int, float)) for v in value))):
            call.attributes[f"langfuse.metadata.{key}"] = value
    unmapped = [k for k in unmapped_keys(dict(obs, metadata=md), MAPPED)
                if not k.startswith("metadata.") or f"langfuse.{k}" not in call.attributes]
    unmapped += [f"trace.{k}" for k, v in trace.items() if k not in TRACE_MAPPED and json_value(v) not in (None, "", {}, [])]
    call.attributes.update(unmapped_attribute(unmapped))




def with_prompt_policy(trace: RequestTrace, obs: Mapping[str, Any]) -> RequestTrace:
    """``trace`` with the Langfuse managed prompt its generation links (``promptName``, else
    ``promptId``; ``promptVersion``, an integer in Langfuse, as a string) as its policy id and
    version -- the versioned system policy of chapter 3.3 -- when the call sent a policy item (a
    system message). A prompt linked to a call without one was not a system prompt (a Langfuse
    text prompt compiled into the user turn): naming it the policy would make the policy check
    report a required policy as missing, so the trace is returned unchanged; the
    ``langfuse.prompt*`` attributes keep the link either way. Unchanged too without a prompt link
    or when the trace already names a policy."""
    name = obs.get("promptName") if obs.get("promptName") not in (None, "") else obs.get("promptId")
    version = obs.get("promptVersion")
    if (name in (None, "") or trace.policy.id is not None
            or not any(i.kind is Kind.POLICY for i in trace.items)):
        return trace
    return replace(trace, policy=replace(trace.policy, id=str(name),
                                         version=None if version in (None, "") else str(version)))
