"""Langfuse trace downloads (``{trace, observations[]}``, UI "download trace" / public API) ->
one :class:`~ctxviewer.model.trace.RequestTrace` per model call.

Format (langfuse ``fern/apis/server/definition/commons.yml`` ``TraceWithFullDetails`` /
``Observation``). A model call is a ``GENERATION`` observation that has no
``GENERATION`` child (Vercel's outer ``ai.generateText`` wraps its ``doGenerate`` call).

* When the original span attributes were kept (``metadata.attributes``) and carry OpenInference
  messages (``llm.input_messages.*``), the call is mapped by
  :func:`ctxviewer.importers.common.openinference_attrs.call_from_attributes`.
* Otherwise ``input`` (a JSON string or value) is read message by message, whatever the SDK put
  there: OpenAI ``{role, content, tool_calls}``, OTel parts ``{role, parts}``, Vercel content
  parts, Responses items (``function_call``...), LangChain dicts, Pydantic AI's pre-1.37 event
  dicts (``event.name``); ``{"prompt": ...}`` is one user message. ``output`` likewise (a
  ChatCompletion, a Responses object, a ``gen_ai.choice`` body, a message, a list of Vercel tool
  calls, or text).
* Tool definitions: ``toolDefinitions`` (a map of tool name -> definition, or a list), else ``input.tools`` / ``modelParameters.tools`` /
  ``gen_ai.tool.definitions`` / ``ai.prompt.tools`` / ``llm.tools.*`` attributes.
* System instructions: ``gen_ai.system_instructions`` of the call, else of its nearest ancestor
  observation -- then shown on the call marked as inherited from that observation; tool
  definitions likewise (the nearest ancestor recording any: an ``AGENT`` observation or the
  conversation span above the generations; :mod:`ctxviewer.importers.common.inherit`).
* Usage: the original attributes when they carry ``gen_ai.usage.*`` (OTel rule), else
  ``usageDetails``: Langfuse keeps cache reads and writes out of ``input`` (``total`` is the sum
  of all keys), so normalised input = ``input`` + ``input_cache_read`` (or
  ``prompt_details.cache_read``) + ``input_cache_creation``; reasoning from ``output_reasoning``
  / ``completion_details.reasoning``; else the deprecated ``usage``, else ``inputUsage`` / ``outputUsage``.
* ``level: ERROR`` + ``statusMessage`` -> status error; ``level: WARNING`` -> ``langfuse.level``
  and the ``statusMessage`` of any other level -> ``langfuse.status_message`` (the span line says
  a warning, never an error); ``startTime`` / ``endTime``; session id
  from ``trace.sessionId``, else ``gen_ai.conversation.id`` / ``session.id`` attributes, else the
  LangChain callback's ``metadata.thread_id``; provider also from ``metadata.ls_provider``.
* Agent: ``gen_ai.agent.name`` / ``agent_name`` (Pydantic AI) / ``agent.name`` on the call or its
  nearest ancestor observation, or the name of the nearest ``AGENT`` observation that records no
  operation (the OpenAI Agents SDK names it after the agent) -> ``gen_ai.agent.name`` (with
  ``ctxviewer.agent_from`` when inherited); ``gen_ai.operation.name`` of the call is kept.
* Finish reason: the output's, else ``gen_ai.response.finish_reasons`` or Semantic Kernel's
  ``gen_ai.response.finish_reason`` (:mod:`~ctxviewer.importers.common.finish_reasons`), else ``ai.response.finishReason``.
* Koog writes assistant tool calls as a message's JSON *content*; they become tool-call parts.
* ``TOOL`` observations (and ``tool.*`` spans) are recorded on the next call under the same
  parent as ``ctxviewer.fed_by``; a proposed call with no recorded verdict takes the one its tool
  observation shows, matched by tool-call id, else by tool name and order (:mod:`.tool_runs`).

* Beyond the messages (:mod:`.extras`): Langfuse's ``toolCalls`` / ``toolCallNames`` the output did not record,
  none, model parameters, cost, environment, the trace's name / tags / release, the scores and
  corrections of the trace and of the observation (``ctxviewer.scores``), and every observation
  key not mapped named in ``ctxviewer.unmapped``.
* An input message that names no role keeps it "not recorded" (``None``), never an invented
  assistant turn; provider blocks in an output (an Anthropic ``Message`` or its content blocks,
  a Gemini response) are converted by the shared part readers.

Trace id = the observation id.

A package: this module reads the messages and makes the calls; :mod:`.extras` what a
generation holds beyond them; :mod:`.api_page` a saved page of the public API's trace or
observation list; :mod:`.runs` every observation as a step of the run (the run
tree, ``load_runs``); :mod:`.ancestors` the observations above a generation; :mod:`.usage_details` its usage;
:mod:`.tool_entries` its tool definitions; :mod:`.tool_runs` the verdicts its tool observations show; :mod:`.rows` table rows in the API's shape, :mod:`.blob_files` and
:mod:`.blob` the blob-storage export (``langfuse-blob``). May import: :mod:`ctxviewer.importers.common`,
:mod:`ctxviewer.importers.contract`, :mod:`ctxviewer.model`; never another format. A new
observation field goes into :mod:`.extras` (and its ``MAPPED`` tree). No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import head_text, read_text
from ctxviewer.importers.common.finish_reasons import first_finish_reason
from ctxviewer.importers.common.foreign_parts import foreign_part
from ctxviewer.importers.common.inherit import Ancestor, inherit
from ctxviewer.importers.common.langchain_messages import langchain_message
from ctxviewer.importers.common.llm_call import LLMCall, agent_attributes, build_trace
from ctxviewer.importers.common.openinference_attrs import call_from_attributes
from ctxviewer.importers.common.peek import cut_short
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record, RunRecord
from ctxviewer.importers.formats.langfuse.ancestors import ancestor_system, ancestors
from ctxviewer.importers.formats.langfuse.api_page import is_page, page_records, sniff_page
from ctxviewer.importers.formats.langfuse.extras import add_extras, json_value, metadata, with_prompt_policy
from ctxviewer.importers.formats.langfuse.runs import observation_time, run_span
from ctxviewer.importers.formats.langfuse.tool_entries import content_tool_calls, definition_in, tools_of
from ctxviewer.importers.formats.langfuse.tool_runs import by_start, observation_run, with_observed_verdicts
from ctxviewer.importers.formats.langfuse.usage_details import usage, usage_problems
from ctxviewer.model.run import RunSpan
from ctxviewer.model.source_notes import WARNING_KEYS
from ctxviewer.model.span_facts import agent_name
from ctxviewer.model.trace import Usage

_json = json_value


def attributes(obs: Mapping[str, Any]) -> dict[str, Any]:
    """The original span attributes Langfuse kept in ``metadata.attributes`` (``{}`` if none)."""
    md = _json(obs.get("metadata"))
    attrs = _json(md.get("attributes")) if isinstance(md, Mapping) else None
    return dict(attrs) if isinstance(attrs, Mapping) else {}


def message(m: Any, default_role: str | None = "assistant") -> gm.Message:
    """One input/output message of any shape Langfuse SDKs store (see module docstring). A
    message that names no role gets ``default_role`` (an output's is the assistant's; an input's
    is not recorded, ``None``, never invented)."""
    if not isinstance(m, Mapping):
        return {"role": "user", "parts": [{"type": "text", "content": "" if m is None else str(m)}]}
    if "parts" in m:
        return gm.normalise_message(m)
    if m.get("type") in ("function_call", "function_call_output", "reasoning", "message") and "role" not in m:
        return pm.responses_item(m)
    if m.get("lc") is not None or (m.get("type") in ("human", "ai", "system", "tool") and "role" not in m):
        return langchain_message(m)
    if "event.name" in m:  # Pydantic AI / semconv <= 1.36 event bodies
        ev = str(m["event.name"])
        role = m.get("role") or ev.removeprefix("gen_ai.").removesuffix(".message")
        return pm.openai_message(dict(m, role="assistant" if role == "choice" else role))
    content = m.get("content")
    calls = content_tool_calls(content)
    if calls is not None:  # Koog: tool calls as JSON content; the role is kept as written
        return {"role": m.get("role"), "parts": pm.openai_message({"tool_calls": calls})["parts"]}
    if isinstance(content, list) and any(isinstance(p, Mapping) and p.get("type") in ("tool-call", "tool-result")
                                         for p in content):
        return gm.normalise_message(m)
    if isinstance(content, list) and m.get("role") == "assistant" and any(
            isinstance(p, Mapping) and p.get("type") in ("output_text",) for p in content):
        return pm.responses_item(dict(m, type="message"))
    extra = m.get("additional_kwargs")
    if isinstance(extra, Mapping) and extra.get("tool_calls") and not m.get("tool_calls"):
        m = dict(m, tool_calls=extra["tool_calls"])
    return pm.openai_message(dict(m, role=m.get("role") or default_role))


def input_messages(value: Any) -> list[gm.Message]:
    """An observation ``input`` as messages."""
    data = _json(value)
    if isinstance(data, Mapping):
        if isinstance(data.get("messages"), list):
            data = data["messages"]
        elif "prompt" in data or "system" in data:
            out: list[gm.Message] = []
            if data.get("system"):
                out.append({"role": "system", "parts": [{"type": "text", "content": str(data["system"])}]})
            if data.get("prompt") is not None:
                out.append({"role": "user", "parts": [{"type": "text", "content": str(data["prompt"])}]})
            return out
        else:
            data = [data]
    if isinstance(data, str):
        return [{"role": "user", "parts": [{"type": "text", "content": data}]}]
    return [message(m, None) for m in data or [] if definition_in(m) is None] if isinstance(data, list) else []


def _blocks(data: list[Any]) -> bool:
    """Whether ``data`` is one message's content blocks (typed blocks or Gemini parts, no role)."""
    return bool(data) and all(isinstance(b, Mapping) and "role" not in b and (
        b.get("type") in ("text", "tool_use", "server_tool_use", "thinking", "redacted_thinking", "image")
        or foreign_part(b) is not None) for b in data)


def output_messages(value: Any) -> tuple[list[gm.Message] | None, str | None]:
    """An observation ``output`` as (output messages, response id)."""
    data = _json(value)
    if data is None or data == "":
        return None, None
    if isinstance(data, str):
        return [{"role": "assistant", "parts": [{"type": "text", "content": data}]}], None
    if isinstance(data, Mapping):
        if isinstance(data.get("choices"), list):
            return [dict(message(c.get("message") or {}), finish_reason=c.get("finish_reason"))
                    for c in data["choices"] if isinstance(c, Mapping)], pm._str(data.get("id"))
        if isinstance(data.get("output"), list):
            out = pm.responses_output(data["output"])
            out["finish_reason"] = data.get("status")
            return [out], pm._str(data.get("id"))
        if isinstance(data.get("message"), Mapping):  # gen_ai.choice body
            return [dict(message(data["message"]), finish_reason=data.get("finish_reason"))], None
        if data.get("type") == "message" and isinstance(data.get("content"), list):  # an Anthropic Message
            return [dict(pm.anthropic_message(data), finish_reason=data.get("stop_reason"))], pm._str(data.get("id"))
        if isinstance(data.get("candidates"), list):  # a Gemini GenerateContentResponse
            return [{"role": "assistant", "finish_reason": c.get("finishReason", c.get("finish_reason")),
                     "parts": [pm.openai_part(p) for p in ((c.get("content") or {}).get("parts") or [])]}
                    for c in data["candidates"] if isinstance(c, Mapping)], pm._str(data.get("responseId"))
        return [message(data)], None
    if isinstance(data, list):
        if _blocks(data):  # the content blocks of one answer (Anthropic, Gemini parts)
            return [{"role": "assistant", "parts": [pm.openai_part(b) for b in data]}], None
        if data and all(isinstance(c, Mapping) and "toolCallId" in c for c in data):
            parts = [{"type": "tool_call", "id": c.get("toolCallId"), "name": c.get("toolName"),
                      "arguments": c.get("input", c.get("args"))} for c in data]
            return [{"role": "assistant", "parts": parts}], None
        return [message(m) for m in data], None
    return None, None


def _time(obs: Mapping[str, Any], key: str, problems: list[str]) -> datetime | None:
    """The observation's ``key`` time (:func:`.runs.observation_time`); one it refuses is not
    recorded, with a line in ``problems``."""
    try:
        return observation_time(obs.get(key))
    except ValueError as exc:
        problems.append(f"{key}: {exc}; the time is imported as not recorded, the observation is kept")
        return None


def call_from_observation(obs: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]],
                          trace: Mapping[str, Any]) -> LLMCall:
    """One generation observation as an :class:`LLMCall` (see module docstring)."""
    attrs = attributes(obs)
    oid = str(obs.get("id"))
    if any(k.startswith(("llm.input_messages", "llm.output_messages")) for k in attrs):
        call = call_from_attributes(attrs, oid, "langfuse")
        if not call.messages:
            call.messages = input_messages(obs.get("input"))
    else:
        call = LLMCall(trace_id=oid, source_format="langfuse", messages=input_messages(obs.get("input")))
        call.output, call.response_id = output_messages(obs.get("output"))
        call.tools = tools_of(obs, attrs)
        call.usage = usage(obs, attrs)
    call.source_format = "langfuse"
    if call.output is None:
        call.output, rid = output_messages(obs.get("output"))
        call.response_id = call.response_id or rid
    if not call.tools:
        call.tools = tools_of(obs, attrs)
    if call.usage == Usage():
        call.usage = usage(obs, attrs)
    call.problems += usage_problems(obs, attrs)
    call.finish_reason = call.finish_reason or first_finish_reason(attrs) or pm._str(attrs.get("ai.response.finishReason"))
    call.model = call.model or pm._str(attrs.get("gen_ai.request.model")) or pm._str(obs.get("model"))
    call.response_model = call.response_model or pm._str(attrs.get("gen_ai.response.model")) or pm._str(obs.get("model"))
    md = metadata(obs)
    call.provider = call.provider or pm._str(attrs.get("gen_ai.provider.name") or attrs.get("gen_ai.system")
                                             or attrs.get("ai.model.provider") or attrs.get("llm.provider")
                                             or md.get("ls_provider"))
    sys_parts = gm.parse_parts(attrs.get("gen_ai.system_instructions"))
    if sys_parts and not any(m.get("role") in ("system", "developer") for m in call.messages):
        call.system = sys_parts
    inherit(call, [Ancestor(f"{p.get('type')} {p.get('name')} ({p.get('id')})",
                            ancestor_system(p, attributes(p), input_messages), tools_of(p, attributes(p)) or None)
                   for p in ancestors(obs, by_id)])
    call.created, call.ended = _time(obs, "startTime", call.problems), _time(obs, "endTime", call.problems)
    if obs.get("level") == "ERROR":
        call.status, call.status_message = "error", pm._str(obs.get("statusMessage")) or "error"
    else:  # WARNING is no error: kept with its message, shown on the span line (trace_header.span_line)
        if call.ended is not None:
            call.status = "ok"
        level_key, message_key = WARNING_KEYS
        call.attributes.update({k: v for k, v in ((level_key, obs.get("level")),
                                                  (message_key, pm._str(obs.get("statusMessage"))))
                                if v and (k != level_key or v == "WARNING")})
    call.session_id = pm._str(trace.get("sessionId") or attrs.get("gen_ai.conversation.id") or attrs.get("session.id")
                              or md.get("thread_id"))
    call.user_id = pm._str(trace.get("userId"))
    call.attributes.update({"langfuse.trace_id": trace.get("id") or obs.get("traceId"),
                            "langfuse.observation.name": obs.get("name")})
    if pm._str(attrs.get("gen_ai.operation.name")):
        call.attributes["gen_ai.operation.name"] = pm._str(attrs.get("gen_ai.operation.name"))
    call.attributes.update(agent_attributes(_agent_chain(obs, by_id)))
    if obs.get("parentObservationId"):
        call.attributes["langfuse.parent_observation_id"] = obs["parentObservationId"]
    add_extras(call, obs, trace)
    return call


def _agent_chain(obs: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], str]]:
    """``(attributes, label)`` of ``obs`` and its ancestors, nearest first, for
    :func:`~ctxviewer.importers.common.llm_call.agent_attributes`; an ``AGENT`` observation recording no
    agent name and no operation names its agent by its own name (OpenAI Agents SDK)."""
    chain: list[tuple[Mapping[str, Any], str]] = []
    seen: set[str] = set()
    cur: Mapping[str, Any] | None = obs
    while cur is not None and str(cur.get("id")) not in seen:
        seen.add(str(cur.get("id")))
        attrs = attributes(cur)
        if cur.get("type") == "AGENT" and not agent_name(attrs) and not attrs.get("gen_ai.operation.name") \
                and pm._str(cur.get("name")):
            attrs = {"gen_ai.agent.name": cur.get("name")}
        chain.append((attrs, f"{cur.get('type')} {cur.get('name')} ({cur.get('id')})"))
        cur = by_id.get(str(cur.get("parentObservationId")))
    return chain


def _is_tool(o: Mapping[str, Any]) -> bool:
    return o.get("type") == "TOOL" or str(o.get("name") or "").startswith("tool.")


class LangfuseImporter:
    """The ``langfuse`` importer (see module docstring)."""

    name = "langfuse"
    records_omissions = False
    description = "Langfuse trace downloads ({trace, observations[]}) and public API pages ({data, meta})"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` for an object with ``trace`` and ``observations``
        keys, or a public API page of traces or observations (:func:`.api_page.sniff_page`); else 0."""
        text = head_text(head)
        download = text.lstrip().startswith("{") and '"observations"' in text and '"trace"' in text
        return SPECIFIC if download or sniff_page(text) else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per model-call generation, by start time; warnings as problems, the last one
        per observation whose ``parentObservationId`` names none in the file."""
        for record in self.load_runs(path):
            if not isinstance(record, RunSpan):
                yield record

    def load_runs(self, path: Path) -> Iterator[RunRecord]:
        """:meth:`load`'s records, then every observation as a step of the run
        (:func:`ctxviewer.importers.formats.langfuse.runs.run_span`)."""
        file = str(path)
        try:
            doc = json.loads(read_text(path))
        except ValueError as exc:
            raise ImportFailed(f"{path}: not JSON: {exc}{cut_short(exc)}") from None
        trace = doc.get("trace") if isinstance(doc, Mapping) else None
        if not isinstance(trace, Mapping) and is_page(doc):  # GET /api/public/traces or /observations saved
            yield from page_records(file, doc, trace_records)
            return
        if not isinstance(trace, Mapping):
            raise ImportFailed(f"{path}: not a Langfuse trace download (no trace object)")
        found = [o for o in list(trace.get("observations") or []) + list(doc.get("observations") or [])
                 if isinstance(o, Mapping)]
        yield from trace_records(file, trace, found)


def trace_records(file: str, trace: Mapping[str, Any], observations: list[Mapping[str, Any]],
                  named: Callable[[Mapping[str, Any]], str] | None = None) -> Iterator[RunRecord]:
    """The records of one Langfuse trace: one :class:`~ctxviewer.model.trace.RequestTrace` per
    model-call generation (by start time), the problems (in ``file``),
    then every observation as a step of the run (:func:`.runs.run_span`); ``named(o)`` names an
    observation's record in a problem (default ``"observation ID"``; a row names its file and line). ``trace`` is the public
    API's ``TraceWithFullDetails`` (``id``, ``sessionId``, ``userId``, ``scores`` ...) and
    ``observations`` its ``Observation`` objects, whatever they were read from: a trace download,
    a blob-storage export row or a ClickHouse row (:mod:`.rows` makes those into this shape), so an
    observation maps one way whatever its source. A later observation of the same id replaces an
    earlier one."""
    label = named or (lambda o: f"observation {o.get('id')}")
    seen: dict[str, Mapping[str, Any]] = {}
    for o in observations:
        seen[str(o.get("id"))] = o
    obs = sorted(seen.values(), key=lambda o: str(o.get("startTime") or ""))
    parents = {str(o.get("parentObservationId")) for o in obs if o.get("type") == "GENERATION"
               and o.get("parentObservationId") != o.get("id")}  # one naming itself is no parent (said below)
    gens = [o for o in obs if o.get("type") == "GENERATION" and str(o.get("id")) not in parents]
    if not gens:
        yield ImportProblem(file, "whole file" if named is None else f"trace {trace.get('id')}",
                            f"no GENERATION observations ({len(obs)} other observation(s))")
        return
    calls = []
    for o in gens:
        try:
            calls.append((o, call_from_observation(o, seen, trace)))
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            yield ImportProblem(file, label(o), f"cannot map observation: {exc}", dropped=1)
    for t in (o for o in obs if _is_tool(o)):
        later = [c for o, c in calls if o.get("parentObservationId") == t.get("parentObservationId")
                 and str(o.get("startTime") or "") >= str(t.get("startTime") or "")]
        if later:
            later[0].attributes.setdefault("ctxviewer.fed_by", []).append(f"tool {t.get('name')} ({t.get('id')})")
    runs = by_start([(o, r) for o, r in ((o, observation_run(o, attributes(o))) for o in obs) if r is not None])
    traced: dict[str, str] = {}
    built = [(o, call, *build_trace(call)) for o, call in calls]
    proposed = {id(o): {c.name for c in rt.tool_calls if c.name} for o, _c, rt, _w in built}  # per generation
    for o, call, rt, warnings in built:
        rt = with_prompt_policy(rt, o)
        if rt.tool_calls and runs:
            rt = replace(rt, tool_calls=with_observed_verdicts(rt.tool_calls, o, gens, runs, proposed))
        warnings += [f"input message {i} names no role; kept with its role not recorded (not an assistant turn)"
                     for i, m in enumerate(call.messages) if m.get("role") is None]
        traced[str(o.get("id"))] = rt.trace_id
        yield rt
        for w in warnings:
            yield ImportProblem(file, label(o), w)
    for o in obs:
        if o.get("parentObservationId") is not None and o.get("parentObservationId") == o.get("id"):
            yield ImportProblem(file, label(o), f"observation {o.get('id')} ({o.get('type')} {o.get('name')}) names "
                                                "itself as its parent (a cycle); imported as a root")
    for o in obs:  # a parent named but not in the file: said so, like a span's (spans.span.missing_parents)
        parent = o.get("parentObservationId")
        if parent and str(parent) not in seen:
            yield ImportProblem(file, label(o),
                                f"observation {o.get('id')} ({o.get('type')} {o.get('name')}): parent observation "
                                f"{parent} is not in this file; imported without it (what its ancestors record "
                                "-- system instructions, tool results -- is not known)")
    run_id = str(trace.get("id") or "langfuse")
    for o in obs:
        if o.get("id") is not None:
            yield run_span(run_id, o, traced.get(str(o.get("id"))))

IMPORTER = LangfuseImporter()
