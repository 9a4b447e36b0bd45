"""The one normaliser: a model call in normal form (:class:`LLMCall`) -> a
:class:`~ctxviewer.model.trace.RequestTrace` (:func:`build_trace`).

Every importer of model calls -- OpenTelemetry GenAI spans, provider APIs, cassettes,
OpenInference, Langfuse, LangSmith, LiteLLM, promptfoo, Inspect AI -- maps its records to an
:class:`LLMCall` (messages in the OTel GenAI parts shape of :mod:`ctxviewer.importers.common.messages`,
usage already normalised to the OTel rule: input includes cache, output includes reasoning) and
:func:`build_trace` turns it into a trace the same way for all of them:

* ``system`` parts (Anthropic ``system``, Responses ``instructions``, OTel
  ``gen_ai.system_instructions``, also inherited from an ancestor span) -> one ``policy`` item,
  id ``system``, trusted (an inherited one: ``source.store = "inherited from span NAME (ID)"``);
* each message -> one item, id ``msg-{i}`` (``source.turn = i``): role ``system``/``developer`` ->
  ``policy`` (trusted, :data:`POLICY_ROLES`); the last ``user`` message that is not only tool
  results nor a ReAct observation (:attr:`LLMCall.observations`, then named in
  ``ctxviewer.tool_observations``: history) -> ``user`` (and ``trace.user_request``; none: not
  recorded); a ``user`` message of tool results only
  (Anthropic ``tool_result`` blocks, Pydantic AI ``tool_call_response`` parts) -> ``history`` with
  role ``tool``, untrusted data the scanner reads; one of results and words (Claude Code) -> that
  ``tool`` item ``msg-{i}`` and the words as ``msg-{i}.text``; everything else -> ``history``;
* retrieved documents -> ``evidence`` items (id ``doc-{n}``) before the user item, untrusted; a
  document the trace records as dropped before the call (a reranker's:
  :mod:`~ctxviewer.importers.common.retrieved`) is an omitted item there, with that reason and no position;
* tool definitions -> ``tool`` items after the messages, id = tool name (``name#2`` for a repeat
  or another item's id: :func:`unique_id`), content the compact JSON of the definition, untrusted
  (only policy is trusted, ch. 3.5: tool descriptions are data); tools inherited from an ancestor
  (:mod:`~ctxviewer.importers.common.inherit`) are marked as the system item is;
* the first output message -> :class:`~ctxviewer.model.trace.Response` (text parts -> ``text``,
  reasoning parts -> ``reasoning``) and its ``tool_call`` parts ->
  :class:`~ctxviewer.model.trace.ToolCall` (arguments exactly as sent);
* ``trace.attributes``: the call's own attributes (``data:`` URLs and long base64 in them replaced by
  placeholders, :func:`~ctxviewer.importers.common.messages.strip_payloads`), then ``otel.status_code``,
  ``otel.status_message``, ``ctxviewer.completeness`` (``ended``, ``never ended``, ``times not
  recorded``, ``end not recorded``), ``ctxviewer.duration_ms``, ``ctxviewer.system_inherited_from``,
  ``ctxviewer.tools_inherited_from`` and ``ctxviewer.content = "not captured"`` where they apply.

Importers never count tokens: ``ContextItem.tokens`` stays ``None`` (the import pipeline counts).
No Qt here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Mapping, Sequence

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.choices import OTHER_CHOICES_ATTRIBUTE, other_choices, response_of
from ctxviewer.importers.common.image_payloads import IMAGE_PAYLOADS, image_payloads
from ctxviewer.importers.common.retrieved import Document as Document  # re-exported: formats import it from here
from ctxviewer.importers.common.retrieved import doc_items
from ctxviewer.importers.common.retrieved import documents_attribute as documents_attribute
from ctxviewer.model.capture import uncaptured_warning
from ctxviewer.model.placed_data import OBSERVATIONS
from ctxviewer.model.span_facts import agent_name
from ctxviewer.model.trace import (
    ContextItem,
    Endpoint,
    Kind,
    Policy,
    RequestTrace,
    SerializedRequest,
    SourceRef,
    Status,
    ToolCall,
    Trust,
    Usage,
)

POLICY_ROLES = frozenset({"system", "developer"})
"""Roles whose messages are application policy (trusted)."""


@dataclass
class LLMCall:
    """One model call in normal form (see module docstring)."""

    trace_id: str
    """Stable id for the trace (response id, span id, run id, ...)."""
    source_format: str
    """Importer name (``provider-api``, ``openinference``, ...)."""
    messages: list[gm.Message] = field(default_factory=list)
    """Input messages in request order (system messages included where the API puts them there)."""
    system: list[dict[str, Any]] | None = None
    """System instructions given outside the messages; ``None`` if none."""
    system_inherited_from: str | None = None
    """Span / run the system instructions were inherited from (a parent agent span), if any."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """Tool definitions as sent (provider shape)."""
    tools_inherited_from: str | None = None
    """Span / run the tool definitions were inherited from (an ancestor agent span), if any."""
    output: list[gm.Message] | None = None
    """Output messages (one per choice); ``None`` if not recorded."""
    output_field: str = "gen_ai.output.messages"
    """The source's field :attr:`output` was read from, named in warnings about it (LangSmith
    ``outputs.choices``, Inspect ``output.choices``; OTel GenAI ``gen_ai.output.messages``)."""
    documents: list[Document] = field(default_factory=list)
    """Retrieved documents that fed this call."""
    observations: frozenset[int] = frozenset()
    """Indexes in :attr:`messages` of user messages that are only a tool's output sent back (a ReAct
    ``Observation:``: :mod:`~ctxviewer.importers.common.react_observations`): history, never the user request."""
    usage: Usage = field(default_factory=Usage)
    """Reported usage, normalised (input includes cache, output includes reasoning)."""
    model: str | None = None
    provider: str | None = None
    response_model: str | None = None
    response_id: str | None = None
    finish_reason: str | None = None
    created: datetime | None = None
    """Start of the call (aware UTC)."""
    ended: datetime | None = None
    """End of the call (aware UTC); ``None`` if not recorded or never ended."""
    status: str | None = None
    """``ok``, ``error``, ``unset`` or ``None`` (not recorded)."""
    status_message: str | None = None
    ended_recorded: bool | None = None
    """False when the source says the call never ended (an open span); ``None`` if unknown."""
    latency_ms: float | None = None
    """The call's duration as a source records it without its start and end (promptfoo's
    ``latencyMs``), milliseconds; used when the times do not give one."""
    session_id: str | None = None
    user_id: str | None = None
    service: str | None = None
    max_tokens: int | None = None
    request_body: str | None = None
    """The serialized request body as recorded, if any."""
    content_captured: bool | None = None
    """False when the source recorded no message content (OTel capture off), True when it did;
    ``None``: judged from the call (no messages and no system instructions is "not captured")."""
    content_capture_note: str | None = None
    """The warning when no content was captured, in the source's words (``None``: "no message
    content captured"), before what is recorded (:func:`~ctxviewer.model.capture.uncaptured_warning`)."""
    output_tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """``tool_call`` parts recorded beside the output messages (OpenLLMetry's indexed
    ``gen_ai.completion.{i}.tool_calls``): the proposed calls when the first output message has none."""
    accounting_rule: str | None = None
    """How the source's token counts relate to the items (``Endpoint.accounting_rule``)."""
    check_usage: bool = True
    """Warn about usage that contradicts itself (reasoning above output, cache above input);
    False for OTel GenAI spans, whose figures are the instrumentation's, kept as reported."""
    problems: list[str] = field(default_factory=list)
    """Source values the mapping could not read (a usage count, a time): not recorded, warned first."""
    attributes: dict[str, Any] = field(default_factory=dict)
    """Other fields to keep verbatim (request parameters, names, costs)."""


def _item(kind: Kind, item_id: str, content: str | None, role: str | None, trust: Trust,
          turn: int | None = None, source: SourceRef | None = None) -> ContextItem:
    return ContextItem(kind=kind, id=item_id, content=content, status=Status.RETAINED, tokens=None,
                       trust=trust, role=role,
                       source=source if source is not None else (SourceRef(turn=turn) if turn is not None else None))


def unique_id(base: str, taken: set[str]) -> str:
    """``base``, or else the first of ``base#2``, ``base#3``, ... not in ``taken`` (the item ids
    used so far, which it joins). A tool definition's item is named by its tool name, which may
    repeat or equal another item's id (a tool called ``system`` or ``msg-0``); item ids are unique
    within a trace."""
    tid, n = base, 1
    while tid in taken:
        n += 1
        tid = f"{base}#{n}"
    taken.add(tid)
    return tid


def message_item(index: int, role: str | None, text: str, *, is_user_request: bool) -> ContextItem:
    """Input message ``index`` as a context item ``msg-<index>``: a system or developer message is
    trusted policy (:data:`POLICY_ROLES`), the last user turn the user request, anything else
    untrusted history (the message's turn recorded as its source)."""
    if role in POLICY_ROLES:
        return _item(Kind.POLICY, f"msg-{index}", text, role, Trust.TRUSTED, index)
    if is_user_request:
        return _item(Kind.USER, f"msg-{index}", text, role, Trust.UNTRUSTED, index)
    return _item(Kind.HISTORY, f"msg-{index}", text, role, Trust.UNTRUSTED, index)


def agent_attributes(chain: Sequence[tuple[Mapping[str, Any], str]]) -> dict[str, Any]:
    """The agent of a model call: ``{"gen_ai.agent.name": NAME}`` from the first element of
    ``chain`` -- ``(attributes, label)`` pairs, the call's own span (or observation) first, then
    its ancestors, nearest first -- that names one (:func:`ctxviewer.model.span_facts.agent_name`),
    plus ``ctxviewer.agent_from`` = that element's label when it is an ancestor; ``{}`` when none does."""
    for n, (attrs, label) in enumerate(chain):
        name = agent_name(attrs)
        if name:
            return {"gen_ai.agent.name": name, **({"ctxviewer.agent_from": label} if n else {})}
    return {}


def _is_result(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") == "tool_call_response"


def _tool_results(msg: Mapping[str, Any]) -> list[Any]:
    """The tool-result parts (``tool_call_response``) of a message, in order."""
    return [p for p in msg.get("parts") or [] if _is_result(p)]


def _only_tool_results(msg: Mapping[str, Any]) -> bool:
    return bool(msg.get("parts")) and len(_tool_results(msg)) == len(msg.get("parts") or [])


def _pending_after(pending: int, role: str | None, msg: Mapping[str, Any]) -> int:
    """Proposed tool calls still unanswered after message ``msg`` (read as ``role``): an assistant
    message adds its calls; a tool result answers one (all of them for a user message of results)."""
    if role == "assistant":
        return pending + len(gm.tool_call_parts(msg))
    if role == "tool":
        return max(0, pending - max(1, len(_tool_results(msg))))
    return pending


def _only_tool_calls(msg: Mapping[str, Any]) -> bool:
    """True for a message whose parts are all proposed tool calls (``tool_call``). Read as the model's
    (Koog writes them with role ``tool``) only when no proposed call is waiting for its result
    (:func:`_pending_after`): a tool output that is, or forges, JSON of tool calls answers the call
    before it and stays a tool result, untrusted and scanned."""
    parts = msg.get("parts") or []
    return bool(parts) and len(gm.tool_call_parts(msg)) == len(parts)


def _is_user_request(msg: Mapping[str, Any]) -> bool:
    return msg.get("role") == "user" and not _only_tool_results(msg)


def build_items(call: LLMCall) -> tuple[list[ContextItem], str | None]:
    """The items of ``call`` in final order with positions 1..n, and the user request text."""
    items: list[ContextItem] = []
    if call.system:
        items.append(_item(Kind.POLICY, "system", gm.message_text({"parts": call.system}), "system", Trust.TRUSTED,
                           source=_inherited(call.system_inherited_from)))
    msgs = call.messages
    last_user = max((i for i, m in enumerate(msgs) if _is_user_request(m) and i not in call.observations), default=None)
    user_request: str | None = None
    docs_at = last_user if last_user is not None else len(msgs)
    pending = 0  # proposed calls no tool result has answered yet: a role-tool message then is a result
    for i, msg in enumerate(msgs):
        if i == docs_at:
            items.extend(doc_items(call.documents))
        role = msg.get("role")
        role = None if role is None else str(role)
        if role in ("user", "human") and _only_tool_results(msg):
            role = "tool"  # Anthropic's and Pydantic AI's tool results ride in a user message: a tool's output
        elif role == "tool" and _only_tool_calls(msg) and not pending:
            role = "assistant"  # Koog's Langfuse export writes the model's tool calls with role tool: no result
        elif role in ("user", "human") and _tool_results(msg):  # results and words in one message (Claude Code)
            words = gm.message_text({**msg, "parts": [p for p in msg.get("parts") or [] if not _is_result(p)]})
            items += [_item(Kind.HISTORY, f"msg-{i}", gm.message_text({**msg, "parts": _tool_results(msg)}), "tool",
                            Trust.UNTRUSTED, i), replace(message_item(i, role, words, is_user_request=i == last_user),
                                                         id=f"msg-{i}.text")]
            user_request = words if i == last_user else user_request
            pending = _pending_after(pending, "tool", msg)
            continue
        pending = _pending_after(pending, role, msg)
        text = gm.message_text(msg)
        if i == last_user:
            user_request = text
        items.append(message_item(i, role, text, is_user_request=i == last_user))
    if docs_at >= len(msgs):
        items.extend(doc_items(call.documents))
    taken = {it.id for it in items}
    for n, d in enumerate(call.tools):
        tid = unique_id(gm.tool_name(d) or f"tool-{n}", taken)
        items.append(_item(Kind.TOOL, tid, gm.compact_json(d), None, Trust.UNTRUSTED,
                           source=_inherited(call.tools_inherited_from)))
    sent = [it for it in items if it.status is Status.RETAINED]
    at = {id(it): n for n, it in enumerate(sent, 1)}
    return [replace(it, position=at.get(id(it))) for it in items], user_request


def _inherited(label: str | None) -> SourceRef | None:
    """An item's source when it was inherited from an ancestor: ``"inherited from span NAME (ID)"``."""
    return SourceRef(store=f"inherited from {label}") if label else None


def completeness(call: LLMCall) -> str:
    """``ended``, ``never ended`` or ``times not recorded`` for the call's span."""
    if call.ended_recorded is False:
        return "never ended"
    if call.ended is None and call.latency_ms is not None:
        return "ended"  # its duration is recorded: it ended, at a time not recorded
    if call.created is None and call.ended is None:
        return "times not recorded"
    return "ended" if call.ended is not None else "end not recorded"


def status_attributes(call: LLMCall) -> dict[str, Any]:
    """The call's status as trace attributes, in this order: ``otel.status_code`` (when recorded),
    ``otel.status_message`` (when not empty), ``ctxviewer.completeness`` (:func:`completeness`) and
    ``ctxviewer.duration_ms`` (end minus start, in milliseconds, when both are recorded; else the
    recorded :attr:`LLMCall.latency_ms`)."""
    attrs: dict[str, Any] = {}
    if call.status is not None:
        attrs["otel.status_code"] = call.status
    if call.status_message:
        attrs["otel.status_message"] = call.status_message
    attrs["ctxviewer.completeness"] = completeness(call)
    if call.created is not None and call.ended is not None:
        attrs["ctxviewer.duration_ms"] = (call.ended - call.created).total_seconds() * 1000
    elif call.latency_ms is not None:
        attrs["ctxviewer.duration_ms"] = float(call.latency_ms)
    return attrs


def tool_argument_warnings(tool_calls: tuple[ToolCall, ...]) -> list[str]:
    """A warning per tool call whose arguments are missing, not JSON, or not a JSON object (kept raw)."""
    import json

    out = []
    for tc in tool_calls:
        where = f"tool call {tc.name or '?'}" + (f" ({tc.id})" if tc.id else "")
        if tc.arguments is None:
            out.append(f"{where}: arguments missing; kept as not recorded")
            continue
        try:
            value = json.loads(tc.arguments)
        except ValueError:
            out.append(f"{where}: arguments are not valid JSON; kept raw as sent")
            continue
        if not isinstance(value, dict):
            out.append(f"{where}: arguments are not a JSON object; kept raw as sent")
    return out


def _finite(value: Any) -> bool:
    """False for a float NaN / ±Infinity anywhere in ``value`` (lists and dicts walked)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True


def build_trace(call: LLMCall) -> tuple[RequestTrace, list[str]]:
    """The :class:`RequestTrace` of ``call`` and the warnings it raised, the whole call's first:
    usage that contradicts itself (with :attr:`LLMCall.check_usage`), no message content
    captured, then each tool call whose arguments are missing or not a JSON object (see the
    module docstring for the mapping). An attribute holding a NaN or an infinity (OTLP
    ``doubleValue: "Infinity"``; JSON cannot write it) is left out with a warning naming its key."""
    from ctxviewer.importers.common.provider_messages import usage_warnings

    items, user_request = build_items(call)
    n = call.attributes.get("gen_ai.request.choice.count")
    choices = isinstance(n, (int, float, str)) and str(n).isdigit() and int(n) > 1  # the outputs are choices
    response, tool_calls = response_of(call.output, call.output_tool_calls, call.finish_reason,
                                       call.response_model, call.response_id, choices)
    warnings = list(call.problems) + (usage_warnings(call.usage) if call.check_usage else [])
    others, said = other_choices(call.output, choices, call.output_field)
    attrs_extra: dict[str, Any] = {}
    if others and said:  # never dropped in silence: a second choice may propose a destructive call
        attrs_extra, warnings = {OTHER_CHOICES_ATTRIBUTE: others}, [*warnings, said]
    attrs: dict[str, Any] = {k: gm.strip_payloads(v) for k, v in call.attributes.items()}  # no base64 kept
    for key in [k for k, v in attrs.items() if not _finite(v)]:  # JSON has no NaN / Infinity: export could not write it
        warnings.append(f"{key}: {attrs.pop(key)!r} is not a finite number; left out (not recorded)")
    attrs.update(status_attributes(call))  # a key the call's attributes already hold keeps its place
    if call.system_inherited_from:
        attrs["ctxviewer.system_inherited_from"] = call.system_inherited_from
    if call.tools_inherited_from and call.tools:
        attrs["ctxviewer.tools_inherited_from"] = call.tools_inherited_from
    if call.observations:  # the items build_items made history, not the user request
        attrs[OBSERVATIONS] = [f"msg-{i}" for i in sorted(call.observations)]
    if "ctxviewer.documents" not in attrs:  # rows a fold of sent documents wrote already name the items
        attrs.update(documents_attribute(call.documents))
    attrs.update(attrs_extra)
    if not call.request_body:  # the window finds an image's bytes in the body, or here
        kept = image_payloads([*call.messages, *(call.output or [])])
        if kept:
            attrs[IMAGE_PAYLOADS] = kept
    captured = call.content_captured if call.content_captured is not None else bool(call.messages or call.system)
    if not captured:
        attrs["ctxviewer.content"] = "not captured"
        if "ctxviewer.content_note" not in attrs:  # a mapping that set the note has warned already
            warnings.append(uncaptured_warning(call.content_capture_note, call.usage, response, tool_calls))
    warnings += tool_argument_warnings(tool_calls)
    trace = RequestTrace(
        trace_id=call.trace_id,
        created=call.created,
        endpoint=Endpoint(provider=call.provider, model=call.model, accounting_rule=call.accounting_rule),
        policy=Policy(),
        user_request=user_request,
        items=tuple(items),
        service=call.service,
        session_id=call.session_id,
        user_id=call.user_id,
        reserved_output_tokens=call.max_tokens,
        usage=call.usage,
        request=SerializedRequest(content=call.request_body) if call.request_body else SerializedRequest(),
        response=response,
        tool_calls=tool_calls,
        source_format=call.source_format,
        attributes=attrs,
    )
    return trace, warnings
