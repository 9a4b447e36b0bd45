"""Multi-span traces: what one chat span's trace learns from the other spans of the file.

* **Status and completeness** -- ``otel.status_code`` (``ok`` / ``error`` / ``unset``) and
  ``otel.status_message`` as the span recorded them; ``ctxviewer.completeness``: ``ended``,
  ``never ended`` (a start and no end: also ``otel.span.ended = False``) or ``times not
  recorded``; ``ctxviewer.duration_ms`` from the span's times.
* **Session** -- ``gen_ai.conversation.id``, else ``session.id``, on the span or its nearest
  ancestor, is ``RequestTrace.session_id``.
* **Agent** -- ``gen_ai.agent.name`` (or OpenInference ``agent.name``, Pydantic AI ``agent_name``)
  on the span or its nearest ancestor (an ``invoke_agent`` span) is recorded as the call's
  ``gen_ai.agent.name``, with ``ctxviewer.agent_from = "span NAME (ID)"`` when inherited
  (:func:`agent_attributes`; the trace list's Agent / operation column).
* **Inherited system instructions** -- a chat span without any system/policy item whose ancestor
  (an ``invoke_agent`` span, say) carries ``gen_ai.system_instructions`` shows them as a policy
  item (id ``system``) marked ``ctxviewer.system_inherited_from = "span NAME (ID)"``.
* **Tool executions** -- each ``execute_tool`` span is recorded on the chat call it fed (the first
  chat span of the same trace starting at or after it, one under the same parent first) as
  ``ctxviewer.fed_by``; an ``execute_tool`` span that fed no chat span in the file is kept as a
  trace of its own (its call and result), with a warning.
* **Content not captured** -- a chat span with no message content (capture is opt-in:
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``) imports with
  ``ctxviewer.content = "not captured"`` and a warning, never silently with zero items.

Spans whose parent is not in the file are kept like any other, whatever the input order. No Qt here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from ctxviewer.importers.otel import messages as gm
from ctxviewer.importers.otel.mapping import unique_id
from ctxviewer.importers.otel.span import Span
from ctxviewer.model.span_facts import agent_name
from ctxviewer.model.trace import ContextItem, Endpoint, Kind, Policy, RequestTrace, Status, ToolCall, Trust


def _ancestors(span: Span, by_id: Mapping[str, Span]) -> list[Span]:
    out, seen = [], set()
    cur = by_id.get(span.parent_id or "")
    while cur is not None and cur.span_id not in seen:
        seen.add(cur.span_id)
        out.append(cur)
        cur = by_id.get(cur.parent_id or "")
    return out


def status_attributes(span: Span) -> dict[str, Any]:
    """``otel.status_code``, ``otel.status_message``, ``ctxviewer.completeness``,
    ``ctxviewer.duration_ms`` (and ``otel.span.ended = False`` for an open span)."""
    a: dict[str, Any] = {}
    if span.status is not None:
        a["otel.status_code"] = span.status
    if span.status_message:
        a["otel.status_message"] = span.status_message
    if span.start is None and span.end is None:
        a["ctxviewer.completeness"] = "times not recorded"
    elif span.end is None:
        a["ctxviewer.completeness"] = "never ended"
        a["otel.span.ended"] = False
    else:
        a["ctxviewer.completeness"] = "ended"
        if span.start is not None:
            a["ctxviewer.duration_ms"] = (span.end - span.start).total_seconds() * 1000
    return a


def agent_attributes(chain: Sequence[tuple[Mapping[str, Any], str]]) -> dict[str, Any]:
    """The agent of a model call: ``{"gen_ai.agent.name": NAME}`` from the first element of
    ``chain`` -- ``(attributes, label)`` pairs, the call's own span first, then its ancestors,
    nearest first -- that names one (:func:`ctxviewer.model.span_facts.agent_name`), plus
    ``ctxviewer.agent_from`` = that element's label when it is an ancestor; ``{}`` when none does."""
    for n, (attrs, label) in enumerate(chain):
        name = agent_name(attrs)
        if name:
            return {"gen_ai.agent.name": name, **({"ctxviewer.agent_from": label} if n else {})}
    return {}


def enrich(span: Span, trace: RequestTrace, by_id: Mapping[str, Span]) -> tuple[RequestTrace, list[str]]:
    """``trace`` (built from chat ``span``) with status, session, inherited instructions and the
    content-capture note (module docstring), and the warnings that raised."""
    warnings: list[str] = []
    attrs = dict(trace.attributes)
    attrs.update(status_attributes(span))
    chain = [span] + _ancestors(span, by_id)
    session = trace.session_id
    for s in chain:
        session = session or gm.parse_structured(s.attributes.get("gen_ai.conversation.id") or s.attributes.get("session.id"))
    attrs.update(agent_attributes([(s.attributes, f"span {s.name or '?'} ({s.span_id})") for s in chain]))
    items = list(trace.items)
    if not any(i.kind is Kind.POLICY for i in items):
        for anc in chain[1:]:
            parts = gm.parse_parts(anc.attributes.get("gen_ai.system_instructions"))
            if parts:
                text = gm.message_text({"parts": parts})
                policy_id = unique_id("system", {it.id for it in items})  # a tool may be called "system"
                items.insert(0, ContextItem(kind=Kind.POLICY, id=policy_id, content=text, trust=Trust.TRUSTED,
                                            role="system"))
                items = [replace(it, position=n) for n, it in enumerate(items, 1)]
                attrs["ctxviewer.system_inherited_from"] = f"span {anc.name or '?'} ({anc.span_id})"
                break
    content_keys = ("gen_ai.input.messages", "gen_ai.prompt", "ai.prompt", "gen_ai.system_instructions")
    if not items and not any(k.startswith(content_keys) for k in span.attributes):
        attrs["ctxviewer.content"] = "not captured"
        warnings.append("no message content captured on this span (content capture is opt-in: "
                        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); usage and metadata only")
    from ctxviewer.importers.llm_call import tool_argument_warnings

    warnings += tool_argument_warnings(trace.tool_calls)
    for key in gm.role_keyed_prompts(span.attributes):
        warnings.append(f"{key}: indexed prompt keyed by role; kept as a {key.rsplit('.', 1)[1]} message")
    return replace(trace, items=tuple(items), attributes=attrs,
                   session_id=None if session is None else str(session)), warnings


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
                                 content=result if isinstance(result, str) else gm.compact_json(result)))
    attrs: dict[str, Any] = {"gen_ai.operation.name": a.get("gen_ai.operation.name") or "execute_tool",
                             "ctxviewer.span_kind": "execute_tool"}
    for k in ("gen_ai.tool.type", "gen_ai.tool.description"):
        if a.get(k) is not None:
            attrs[k] = a[k]
    if span.name:
        attrs["otel.span.name"] = span.name
    attrs.update(status_attributes(span))
    name = a.get("gen_ai.tool.name")
    calls = (ToolCall(name=str(name or ""), arguments=gm.arguments_string(gm.parse_structured(args))
                      if not isinstance(args, str) else args,
                      id=None if a.get("gen_ai.tool.call.id") is None else str(a["gen_ai.tool.call.id"])),)
    return RequestTrace(trace_id=trace_id, created=span.start, endpoint=Endpoint(), policy=Policy(),
                        user_request=None, items=tuple(items), service=span.resource.get("service.name"),
                        session_id=a.get("gen_ai.conversation.id"), tool_calls=calls, source_format="otel",
                        attributes=attrs)
