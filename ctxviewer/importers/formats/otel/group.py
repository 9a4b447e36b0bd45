"""Multi-span traces: what one chat span's model call learns from the other spans of the file.

(The span's own status and times -- ``otel.status_code``, ``otel.status_message``,
``ctxviewer.completeness``, ``ctxviewer.duration_ms``, ``otel.span.ended = False`` for a span
that never ended -- come with its own attributes: :func:`.mapping.call_from_span`.)

* **Session** -- ``gen_ai.conversation.id``, else ``session.id``, else OpenLLMetry's
  ``traceloop.association.properties.session_id``, on the span or its nearest ancestor, is
  ``RequestTrace.session_id``; ``user.id`` (else ``enduser.id``, else the association property
  ``user_id``) likewise ``user_id``.
* **Agent** -- ``gen_ai.agent.name`` (or OpenInference ``agent.name``, Pydantic AI ``agent_name``)
  on the span or its nearest ancestor (an ``invoke_agent`` span) is recorded as the call's
  ``gen_ai.agent.name``, with ``ctxviewer.agent_from = "span NAME (ID)"`` when inherited
  (:func:`ctxviewer.importers.common.llm_call.agent_attributes`; the trace list's Agent / operation column).
* **Inherited system instructions and tools** -- a chat span without any system/policy item whose
  ancestor (an ``invoke_agent`` span, say) carries ``gen_ai.system_instructions`` shows them as a
  policy item (id ``system``; a tool definition named ``system`` becomes ``system#2``) marked
  ``ctxviewer.system_inherited_from = "span NAME (ID)"``; a chat span recording no tool
  definitions takes its nearest ancestor's (``gen_ai.tool.definitions``, Pydantic AI's
  ``model_request_parameters``...: :func:`.mapping.span_tools`), marked
  ``ctxviewer.tools_inherited_from`` (:mod:`ctxviewer.importers.common.inherit`). Tools the span
  that records them lists by name only (Mastra: :func:`.mapping.by_name_only`) are named in
  ``ctxviewer.tools_by_name_only`` (:data:`~ctxviewer.model.source_notes.TOOLS_BY_NAME_KEY`).
* **Tool executions** -- each ``execute_tool`` span is recorded on the chat call it fed (the first
  chat span of the same trace starting at or after it, one under the same parent first) as
  ``ctxviewer.fed_by``; an ``execute_tool`` span that fed no chat span in the file is kept as a
  trace of its own (its call and result), with a warning. A proposed call with no recorded verdict
  takes the one its execution shows (the span with its ``gen_ai.tool.call.id``: blocked when it
  ended in a refusal, else permitted; :mod:`ctxviewer.importers.common.tool_outcome`).
* **Content not captured** -- a chat span with no message content (capture is opt-in:
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``; Google ADK's ``call_llm`` spans have their own
  switch, ``ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS``: :data:`.adk.NOT_CAPTURED`, and Semantic Kernel's
  spans theirs, ``SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE``:
  :data:`.semantic_kernel.NOT_CAPTURED`) imports with
  ``ctxviewer.content = "not captured"`` and a warning, never silently with zero items.

Spans whose parent is not in the file are kept like any other, whatever the input order. No Qt here.
"""

from __future__ import annotations

from typing import Any, Mapping

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.inherit import Ancestor, inherit
from ctxviewer.importers.common.llm_call import LLMCall, agent_attributes, status_attributes
from ctxviewer.importers.common.spans.span import Span
from ctxviewer.importers.common.tool_outcome import tool_run, with_run_verdicts
from ctxviewer.importers.formats.otel import adk, semantic_kernel
from ctxviewer.importers.formats.otel.mapping import by_name_only, span_tools
from ctxviewer.model.capture import uncaptured_what
from ctxviewer.model.source_notes import TOOLS_BY_NAME_KEY
from ctxviewer.model.trace import ContextItem, Endpoint, Kind, Policy, RequestTrace, Status, ToolCall
from ctxviewer.util.json_escapes import decode_escapes

CONTENT_KEYS = ("gen_ai.input.messages", "gen_ai.prompt", "ai.prompt", "gen_ai.system_instructions")
"""Attribute names (prefixes) that carry message content: a chat span with none of them and no
item captured no content."""

TRACELOOP_SESSION = "traceloop.association.properties.session_id"
TRACELOOP_USER = "traceloop.association.properties.user_id"
"""OpenLLMetry's association properties (``Traceloop.set_association_properties({"session_id": ...,
"user_id": ...})``): the session and user when no GenAI / OTel attribute names them."""

NOT_CAPTURED = ("no message content captured on this span (content capture is opt-in: "
                "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)")
"""The warning for a chat span whose content was not captured, before what it records
(:func:`~ctxviewer.model.capture.uncaptured_warning`: usage and metadata, or its output only)."""


def ancestors(span: Span, by_id: Mapping[str, Span]) -> list[Span]:
    """The spans above ``span`` in ``by_id`` (span id -> span), nearest first; a cycle stops the walk."""
    out, seen = [], set()
    cur = by_id.get(span.parent_id or "")
    while cur is not None and cur.span_id not in seen:
        seen.add(cur.span_id)
        out.append(cur)
        cur = by_id.get(cur.parent_id or "")
    return out


def tool_status_attributes(span: Span) -> dict[str, Any]:
    """The status attributes of a tool-execution span: those of a model call
    (:func:`ctxviewer.importers.common.llm_call.status_attributes`), and ``otel.span.ended =
    False`` for a span with a start and no end."""
    never_ended = span.start is not None and span.end is None and not span.end_unreadable
    attrs = status_attributes(LLMCall(trace_id=span.span_id or "", source_format="otel", created=span.start,
                                      ended=span.end, ended_recorded=False if never_ended else None,
                                      status=span.status, status_message=span.status_message))
    if never_ended:
        attrs["otel.span.ended"] = False
    return attrs


def enrich_call(call: LLMCall, span: Span, by_id: Mapping[str, Span]) -> list[str]:
    """Add to ``call`` (built from chat ``span`` by :func:`.mapping.call_from_span`) what the
    other spans say -- session, agent, inherited system instructions -- and whether content was
    captured (module docstring). Returns the warnings about the span's own attributes (prompts
    keyed by role)."""
    chain = [span] + ancestors(span, by_id)
    session = call.session_id
    for s in chain:
        session = session or gm.parse_structured(s.attributes.get("gen_ai.conversation.id") or s.attributes.get("session.id")
                                                 or s.attributes.get(TRACELOOP_SESSION))
    call.session_id = None if session is None else str(session)
    if call.user_id is None:  # the same rule for the user: its own, else its nearest ancestor's
        user = next((u for u in (s.attributes.get("user.id") or s.attributes.get("enduser.id") for s in chain[1:]) if u), None)
        user = user or next((s.attributes[TRACELOOP_USER] for s in chain if s.attributes.get(TRACELOOP_USER)), None)
        call.user_id = None if user is None else str(gm.parse_structured(user))
    call.attributes.update(agent_attributes([(s.attributes, f"span {s.name or '?'} ({s.span_id})") for s in chain]))
    own_tools = "gen_ai.tool.definitions" in span.attributes  # recorded, even as []: the call offered none
    inherit(call, [Ancestor(f"span {anc.name or '?'} ({anc.span_id})",
                            gm.parse_parts(anc.attributes.get("gen_ai.system_instructions")) or None,
                            None if own_tools else span_tools(anc.attributes)) for anc in chain[1:]])
    recording = next((s for s in chain if "gen_ai.tool.definitions" in s.attributes or span_tools(s.attributes)), None)
    named = by_name_only(recording.attributes.get("gen_ai.tool.definitions")) if recording is not None else None
    if named and call.tools:  # the tools the call offered, recorded by name only: their schemas are not recorded
        call.attributes[TOOLS_BY_NAME_KEY] = [d["name"] for d in named]
    no_items = not call.system and not call.messages and not call.tools
    unreadable = [k for k, shapes in (("gen_ai.input.messages", (list,)), ("gen_ai.system_instructions", (list, Mapping)))
                  if k in span.attributes and not isinstance(gm.parse_structured(span.attributes[k]), shapes)]
    if unreadable and not call.system and not call.messages:  # recorded, but nothing of it could be read
        call.content_captured = False  # the mapping warned why; the header says it (no second warning)
        besides = "the span records its output only" if call.output or call.output_tool_calls else uncaptured_what(call.usage)
        call.attributes["ctxviewer.content_note"] = f"{', '.join(unreadable)}: recorded but not readable as messages; {besides}"
    else:
        call.content_captured = not (no_items and not any(k.startswith(CONTENT_KEYS) for k in span.attributes))
        call.content_capture_note = (adk.NOT_CAPTURED if adk.is_adk_call(span.attributes) else semantic_kernel.NOT_CAPTURED
                                     if semantic_kernel.is_sk_call(span.attributes, span.scope) else NOT_CAPTURED)
    return [f"{key}: indexed prompt keyed by role; kept as a {key.rsplit('.', 1)[1]} message"
            for key in gm.role_keyed_prompts(span.attributes)]


def fed_call(tool: Span, chats: list[Span]) -> Span | None:
    """The chat span a tool-execution span fed (module docstring), or ``None``."""
    same = [c for c in chats if c.trace_id is not None and c.trace_id == tool.trace_id]
    later = [c for c in same if c.start is None or tool.start is None or c.start >= tool.start]
    later.sort(key=lambda c: (c.parent_id != tool.parent_id, c.start is None, c.start or tool.start))
    return later[0] if later else None


def tool_trace(span: Span, trace_id: str) -> RequestTrace:
    """A lone ``execute_tool`` span (it fed no chat span in the file) as a trace: the proposed
    call (``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``) and its
    result (``gen_ai.tool.call.result``) as a ``tool`` history item."""
    a = span.attributes
    args = next((a[k] for k in ("gen_ai.tool.call.arguments", "input.value", "input") if a.get(k) is not None), None)
    result = next((a[k] for k in ("gen_ai.tool.call.result", "output.value", "output") if a.get(k) is not None), None)
    items = []
    if result is not None:
        items.append(ContextItem(kind=Kind.HISTORY, id="tool-result", position=1, role="tool", status=Status.RETAINED,
                                 content=decode_escapes(result) if isinstance(result, str) else gm.compact_json(result)))
    attrs: dict[str, Any] = {"gen_ai.operation.name": a.get("gen_ai.operation.name") or "execute_tool",
                             "ctxviewer.span_kind": "execute_tool"}
    for k in ("gen_ai.tool.type", "gen_ai.tool.description"):
        if a.get(k) is not None:
            attrs[k] = a[k]
    if span.name:
        attrs["otel.span.name"] = span.name
    attrs.update(tool_status_attributes(span))
    name = a.get("gen_ai.tool.name")
    calls: tuple[ToolCall, ...] = (ToolCall(name=str(name or ""), arguments=gm.arguments_string(gm.parse_structured(args))
                      if not isinstance(args, str) else args,
                      id=None if a.get("gen_ai.tool.call.id") is None else str(a["gen_ai.tool.call.id"])),)
    run = tool_run(span)
    if run is not None and run.call_id is not None:
        calls = with_run_verdicts(calls, {run.call_id: [run]})
    return RequestTrace(trace_id=trace_id, created=span.start, endpoint=Endpoint(), policy=Policy(),
                        user_request=None, items=tuple(items), service=span.resource.get("service.name"),
                        session_id=a.get("gen_ai.conversation.id"), tool_calls=calls, source_format="otel",
                        attributes=attrs)
