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
from ctxviewer.importers.formats.langfuse.runs import observation_time
from ctxviewer.model.source_notes import ENVIRONMENT_KEY, FIRST_TOKEN_KEY
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


def _tool_calls(value: Any, names: Any = None) -> list[dict[str, Any]]:
    """Langfuse's own ``toolCalls`` list as ``tool_call`` parts, in order. Each entry is an object or
    the JSON *string* of one (what the public API returns: ``["{\"id\": \"call_rm\", \"type\":
    \"function\", \"name\": \"shell\", \"arguments\": \"{...}\", \"index\": 0}"]``), in Langfuse's
    ``{id, name, arguments | input | args}`` or OpenAI's ``{id, function: {name, arguments}}``
    shape; an entry naming no tool takes the name at its position in ``toolCallNames`` (``names``).
    Names beyond the entries are calls whose arguments were not recorded (``arguments`` ``None``).
    Entries that are no object (after decoding) are skipped."""
    found = json_value(value)
    entries = [json_value(c) for c in found] if isinstance(found, list) else []
    listed = json_value(names)
    name_list = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
    out = []
    for i, c in enumerate(entries):
        if isinstance(c, Mapping):
            f = c.get("function")
            fn: Mapping[str, Any] = f if isinstance(f, Mapping) else c
            name = fn.get("name") or (name_list[i] if i < len(name_list) else None)
            out.append({"type": "tool_call", "id": c.get("id"), "name": name,
                        "arguments": fn.get("arguments", fn.get("input", fn.get("args")))})
    out += [{"type": "tool_call", "id": None, "name": n, "arguments": None} for n in name_list[len(entries):]]
    return out


def _same_call(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two ``tool_call`` parts are one call: the same id, or (either without an id) the same
    name and the same arguments (compared as decoded JSON, so spacing does not count; a call
    whose arguments were not recorded matches any call of its name)."""
    if a.get("id") not in (None, "") and b.get("id") not in (None, ""):
        return str(a["id"]) == str(b["id"])
    if a.get("name") != b.get("name"):
        return False
    if a.get("arguments") is None or b.get("arguments") is None:
        return True
    return bool(json_value(a["arguments"]) == json_value(b["arguments"]))


def merge_tool_calls(call: LLMCall, extra: list[dict[str, Any]]) -> None:
    """Add Langfuse's ``toolCalls`` (``extra``, :func:`_tool_calls`) to ``call``'s proposed calls, each
    unless the output messages (or :attr:`LLMCall.output_tool_calls`) already hold it
    (:func:`_same_call`): beside the first output message's calls when it has some, else as
    :attr:`LLMCall.output_tool_calls` (which the trace's tool calls are made from when the first
    output message has none)."""
    first = call.output[0] if call.output else None
    held = [p for m in call.output or [] for p in gm.tool_call_parts(m)] + list(call.output_tool_calls)
    new: list[dict[str, Any]] = []
    for c in extra:
        if not any(_same_call(c, h) for h in held + new):
            new.append(c)
    if not new:
        return
    if first is not None and gm.tool_call_parts(first):
        call.output = [dict(first, parts=list(first.get("parts") or []) + new), *call.output[1:]]  # type: ignore[index]
    else:
        call.output_tool_calls = list(call.output_tool_calls) + new




def first_token_ms(obs: Mapping[str, Any], problems: list[str]) -> float | None:
    """Time to first token of generation ``obs``, milliseconds: ``completionStartTime`` -
    ``startTime`` (Langfuse ``Observation.completionStartTime``, "the time the first token was
    produced"), else the public API's ``timeToFirstToken`` (seconds, ``observations_converters.ts``)
    x 1000; ``None`` when not recorded. A first token before the start, or a time that is no ISO
    text, is not recorded, with a line in ``problems``."""
    try:
        first, start = observation_time(obs.get("completionStartTime")), observation_time(obs.get("startTime"))
    except ValueError:
        first = start = None
        if obs.get("completionStartTime") not in (None, ""):
            problems.append(f"completionStartTime: {obs['completionStartTime']!r} is not an ISO-8601 time; "
                            "time to first token not recorded")
    if first is not None and start is not None:
        ms = (first - start).total_seconds() * 1000
        if ms >= 0:
            return ms
        problems.append(f"completionStartTime is {-ms:,.0f} ms before startTime; time to first token not recorded")
        return None
    seconds = obs.get("timeToFirstToken")
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= 0 and first is None:
        return float(seconds) * 1000
    return None


def add_extras(call: LLMCall, obs: Mapping[str, Any], trace: Mapping[str, Any]) -> None:
    """What a generation holds beyond the messages: Langfuse's ``toolCalls`` / ``toolCallNames``
    (those the output did not record, :func:`merge_tool_calls`), model parameters as ``gen_ai.request.*``, cost (USD) as ``langfuse.cost.*``,
    environment (the observation's, else the trace's), time to first token (:func:`first_token_ms`),
    version, prompt (name, version, id), Langfuse's model id, trace name / tags / release, the scores of the trace and of
    this observation (``ctxviewer.scores``) and the keys not mapped (``ctxviewer.unmapped``)."""
    merge_tool_calls(call, _tool_calls(obs.get("toolCalls"), obs.get("toolCallNames")))
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
    if ENVIRONMENT_KEY not in call.attributes and pm._str(trace.get("environment")):
        call.attributes[ENVIRONMENT_KEY] = trace["environment"]  # the trace's, the call naming none
    ttft = first_token_ms(obs, call.problems)
    if ttft is not None:
        call.attributes[FIRST_TOKEN_KEY] = ttft
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
