"""Span -> trace mapping under the OpenTelemetry GenAI semantic conventions: one
:class:`~ctxviewer.model.trace.RequestTrace` per model-call span, whatever container the span came from.

A span is a model call ("chat span") when its
``gen_ai.operation.name`` is ``chat``, ``generate_content`` or ``text_completion``, or -- when it
has no operation name -- when it carries ``gen_ai.input.messages``, the deprecated
``gen_ai.prompt`` (JSON or OpenLLMetry-indexed ``gen_ai.prompt.{i}.*``), or Vercel AI SDK
``ai.prompt.messages`` on an ``ai.*.doGenerate`` / ``doStream`` span. Other spans (``execute_tool``,
``invoke_agent``, workflows) are skipped; a file with none (and no rejected span) yields one problem.

Mapping (OTel GenAI semconv attribute names; FORMATS.md section 1):

* ``gen_ai.system_instructions`` -> a ``policy`` item (trusted, role ``system``, id ``system``); a
  ``system`` (or ``developer``) message in ``gen_ai.input.messages`` -> also a ``policy`` item.
* ``gen_ai.input.messages`` -> one item per message, id ``msg-{i}`` (``i`` = 0-based index in the
  attribute, also ``source.turn``): the last ``user`` message is the ``user`` item and
  ``trace.user_request``; other user, assistant and tool messages are ``history`` (untrusted, role
  kept). Assistant ``tool_call`` parts keep their call JSON in the content; ``tool_call_response``
  parts show the response. Binary parts show a placeholder (see :func:`.messages.part_text`).
* ``gen_ai.tool.definitions`` (fallback ``llm.request.functions.{i}.*``) -> one ``tool`` item per
  definition, after the messages; id = tool name (``name#2``, ``name#3``, ... when the name repeats
  or is another item's id: :func:`unique_id`), content = compact JSON of the definition;
  untrusted (only policy is trusted, ch. 3.5: tool descriptions are data).
* ``gen_ai.output.messages`` (fallback deprecated ``gen_ai.completion``) -> ``Response`` of the first
  choice and its ``tool_call`` parts as ``ToolCall`` (arguments exactly as sent; an object becomes
  compact JSON); fallback ``gen_ai.completion.{i}.tool_calls`` / ``function_call``.
* ``gen_ai.usage.*`` -> ``Usage``; ``gen_ai.request.model``, ``gen_ai.provider.name`` (legacy
  ``gen_ai.system``) -> ``Endpoint``; ``gen_ai.request.max_tokens`` -> ``reserved_output_tokens``;
  resource ``service.name`` -> ``service``; ``gen_ai.conversation.id`` -> ``session_id``; span start ->
  ``created``; other ``gen_ai.request.*`` parameters -> ``trace.attributes``.
* A token count that is negative, fractional, boolean or not a number, and a
  ``gen_ai.input.messages`` / ``gen_ai.output.messages`` that is not a list, is imported as not
  recorded, with one problem naming the span and the attribute.
* ``trace_id`` = ``"{otel trace id}:{span id}"``; a span without ids (flat attribute map) gets
  ``"attrs-{sha256 of its attributes, 16 hex}"``.

OTel records neither omitted items nor priorities nor the context capacity: every item is
``retained`` at positions 1..n, priorities and capacity stay ``None``. Nor does it record per-item
token counts: items leave this importer with ``tokens=None`` and no encoding; the import pipeline
(:mod:`ctxviewer.pipeline.importing`) counts them and marks them ``counted`` with its encoding. No Qt here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ctxviewer.importers.otel import messages as gm
from ctxviewer.importers.otel.span import Span
from ctxviewer.model.trace import (
    ContextItem,
    Endpoint,
    Kind,
    Policy,
    RequestTrace,
    Response,
    SourceRef,
    Status,
    ToolCall,
    Trust,
    Usage,
)

CHAT_OPERATIONS = frozenset({"chat", "generate_content", "text_completion"})
"""``gen_ai.operation.name`` values of a model call (semconv ``gen_ai.operation.name``)."""

ACCOUNTING_RULE = "item text only; per-item counts not recorded by the source"
"""Recorded as ``Endpoint.accounting_rule``: OTel spans carry no per-item token counts, so the
counts are ctxviewer's (each item's provenance names the encoding)."""

POLICY_ROLES = frozenset({"system", "developer"})

_USAGE_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "ai.usage.inputTokens",
                     "ai.usage.promptTokens"),
    "output_tokens": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                      "ai.usage.outputTokens", "ai.usage.completionTokens"),
    "cached_input_tokens": ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cached_tokens",
                            "gen_ai.usage.cache_read_input_tokens", "ai.usage.cachedInputTokens"),
    "cache_creation_input_tokens": ("gen_ai.usage.cache_creation.input_tokens",
                                    "gen_ai.usage.cache_creation_input_tokens"),
    "reasoning_tokens": ("gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens",
                         "ai.usage.reasoningTokens"),
}
"""Usage field -> attribute names in order of preference (standard first, then seen non-standard)."""

_HANDLED = frozenset({"gen_ai.request.model", "gen_ai.request.max_tokens"})


def is_chat_span(attrs: Mapping[str, Any]) -> bool:
    """True if a span's attributes describe one model call (see module docstring for the rule)."""
    op = attrs.get("gen_ai.operation.name")
    if op is not None:
        return str(op) in CHAT_OPERATIONS
    if "gen_ai.input.messages" in attrs or "gen_ai.prompt" in attrs:
        return True
    if any(k.startswith("gen_ai.prompt.") for k in attrs):
        return True
    op_id = str(attrs.get("ai.operationId") or "")
    return "ai.prompt.messages" in attrs and op_id.endswith((".doGenerate", ".doStream"))


def token_count(value: Any) -> int | None:
    """A token-count attribute value as a non-negative ``int``; ``None`` / ``""`` -> ``None``.

    Accepts integers, integral floats (``27.0``) and numeric strings (``"412"``, ``"27.0"``).
    Raises ``ValueError`` for a negative or non-integral number, a boolean, or anything else.
    """
    if value is None or value == "":
        return None
    n = value
    if isinstance(value, str):
        for conv in (int, float):
            try:
                n = conv(value.strip())
                break
            except ValueError:
                continue
    if (isinstance(n, bool) or not isinstance(n, (int, float)) or n < 0
            or (isinstance(n, float) and not n.is_integer())):  # NaN and infinities are not integers
        raise ValueError(f"{value!r} is not a token count")
    return int(n)


def _tokens(value: Any, attr: str, problems: list[str] | None) -> int | None:
    """:func:`token_count` of ``value``; a bad value becomes ``None`` and a problem naming ``attr``."""
    try:
        return token_count(value)
    except ValueError as exc:
        if problems is not None:
            problems.append(f"{attr}: {exc}; shown as not recorded")
        return None


def _str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _first_key(attrs: Mapping[str, Any], *keys: str) -> str | None:
    for k in keys:
        if attrs.get(k) not in (None, ""):
            return k
    return None


def _first(attrs: Mapping[str, Any], *keys: str) -> Any:
    k = _first_key(attrs, *keys)
    return None if k is None else attrs[k]


def usage_from(attrs: Mapping[str, Any], problems: list[str] | None = None) -> Usage:
    """Provider-reported usage from ``gen_ai.usage.*`` (semconv names first, then the non-standard
    ``gen_ai.usage.reasoning_tokens`` / ``cached_tokens`` and Vercel ``ai.usage.*``); LiteLLM's
    ``metadata.usage_object`` (a Python-repr OpenAI usage dict) fills cached and reasoning tokens
    when no attribute has them. All in tokens; ``None`` = not reported. A value that is not a token
    count (:func:`token_count`) is ``None`` and appends a message naming the attribute to ``problems``."""
    values: dict[str, int | None] = {}
    for f, keys in _USAGE_KEYS.items():
        k = _first_key(attrs, *keys)
        values[f] = None if k is None else _tokens(attrs[k], k, problems)
    extra = gm.parse_structured(attrs.get("metadata.usage_object"))
    if isinstance(extra, Mapping):
        for f, details, key in (("cached_input_tokens", "prompt_tokens_details", "cached_tokens"),
                                ("reasoning_tokens", "completion_tokens_details", "reasoning_tokens")):
            d = extra.get(details)
            if values[f] is None and isinstance(d, Mapping):
                values[f] = _tokens(d.get(key), f"metadata.usage_object {details}.{key}", problems)
    return Usage(**values)


def _item(kind: Kind, item_id: str, content: str, role: str | None, trust: Trust,
          turn: int | None = None) -> ContextItem:
    return ContextItem(
        kind=kind, id=item_id, content=content, status=Status.RETAINED,
        trust=trust, role=role,
        source=SourceRef(turn=turn) if turn is not None else None,
    )


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


def _message_list(attrs: Mapping[str, Any], key: str, problems: list[str] | None) -> list[gm.Message] | None:
    """The semconv message list ``attrs[key]``; a value that is not a list is ``None`` (not
    recorded) and appends a problem naming ``key``."""
    try:
        return gm.parse_message_list(attrs[key])
    except ValueError as exc:
        if problems is not None:
            problems.append(f"{key}: {exc}")
        return None


def _input_messages(attrs: Mapping[str, Any], problems: list[str] | None = None) -> list[gm.Message] | None:
    if attrs.get("gen_ai.input.messages") is not None:
        return _message_list(attrs, "gen_ai.input.messages", problems)
    for key in ("gen_ai.prompt", "ai.prompt.messages"):
        if attrs.get(key) is not None:
            return gm.parse_messages(attrs[key])
    return gm.indexed_messages(attrs, "gen_ai.prompt")


def _output_messages(attrs: Mapping[str, Any], problems: list[str] | None = None) -> list[gm.Message] | None:
    if attrs.get("gen_ai.output.messages") is not None:
        return _message_list(attrs, "gen_ai.output.messages", problems)
    if attrs.get("gen_ai.completion") is not None:
        return gm.parse_messages(attrs["gen_ai.completion"])
    if attrs.get("ai.response.text") is not None or attrs.get("ai.response.toolCalls") is not None:
        parts: list[dict[str, Any]] = []
        if attrs.get("ai.response.text") not in (None, ""):
            parts.append({"type": "text", "content": attrs["ai.response.text"]})
        for c in gm.parse_structured(attrs.get("ai.response.toolCalls")) or []:
            if isinstance(c, Mapping):
                parts.append({"type": "tool_call", "id": c.get("toolCallId"), "name": c.get("toolName"),
                              "arguments": c.get("input", c.get("args"))})
        msg: gm.Message = {"role": "assistant", "parts": parts}
        if attrs.get("ai.response.finishReason") is not None:
            msg["finish_reason"] = attrs["ai.response.finishReason"]
        return [msg]
    return gm.indexed_messages(attrs, "gen_ai.completion")


def build_items(attrs: Mapping[str, Any], problems: list[str] | None = None) -> tuple[list[ContextItem], str | None]:
    """The items of one chat span in final order, and the user request text (``None`` if no user
    message was recorded). Positions are assigned by :func:`build_trace`. A malformed
    ``gen_ai.input.messages`` counts as not recorded and appends a message to ``problems``."""
    items: list[ContextItem] = []
    sys_parts = gm.parse_parts(attrs.get("gen_ai.system_instructions"))
    if sys_parts:
        text = gm.message_text({"parts": sys_parts})
        items.append(_item(Kind.POLICY, "system", text, "system", Trust.TRUSTED))
    messages = _input_messages(attrs, problems) or []
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    user_request: str | None = None
    for i, msg in enumerate(messages):
        role = _str(msg.get("role"))
        text = gm.message_text(msg)
        if i == last_user:
            user_request = text
        items.append(message_item(i, role, text, is_user_request=i == last_user))
    defs = gm.parse_tool_definitions(_first(attrs, "gen_ai.tool.definitions", "ai.prompt.tools"))
    if defs is None:
        defs = gm.indexed_functions(attrs)
    taken = {it.id for it in items}
    for n, d in enumerate(defs or []):
        tid = unique_id(gm.tool_name(d) or f"tool-{n}", taken)
        items.append(_item(Kind.TOOL, tid, gm.compact_json(d), None, Trust.UNTRUSTED))  # only policy is trusted (ch. 3.5); tool descriptions are data
    return items, user_request


def response_from(attrs: Mapping[str, Any],
                  problems: list[str] | None = None) -> tuple[Response | None, tuple[ToolCall, ...]]:
    """Response (first choice of ``gen_ai.output.messages``) and its proposed tool calls. A
    malformed ``gen_ai.output.messages`` counts as not recorded and appends a message to ``problems``."""
    outputs = _output_messages(attrs, problems)
    reasons = gm.parse_structured(attrs.get("gen_ai.response.finish_reasons"))
    reason = reasons[0] if isinstance(reasons, list) and reasons else _str(reasons)
    first = outputs[0] if outputs else None
    calls = gm.tool_call_parts(first) if first else []
    if not calls:  # LiteLLM / OpenLLMetry legacy indexed completion attributes
        for m in gm.indexed_messages(attrs, "gen_ai.completion") or []:
            calls.extend(gm.tool_call_parts(m))
    tool_calls = tuple(
        ToolCall(name=str(c.get("name") or ""), arguments=gm.arguments_string(c.get("arguments")),
                 id=_str(c.get("id")))
        for c in calls
    )
    model, rid = _str(attrs.get("gen_ai.response.model")), _str(attrs.get("gen_ai.response.id"))
    if first is None and reason is None and model is None and rid is None:
        return None, tool_calls
    text = None
    if first is not None:
        texts = [str(p.get("content") or "") for p in first["parts"] if p.get("type") == "text"]
        text = "".join(texts) if texts else None
        reason = _str(first.get("finish_reason")) or reason
    return Response(text=text, finish_reason=_str(reason), model=model, id=rid), tool_calls


def trace_id_for(span: Span) -> str:
    """``"{trace id}:{span id}"``; without ids, ``"attrs-"`` + 16 hex of the attributes' sha256."""
    if span.trace_id or span.span_id:
        return f"{span.trace_id or '-'}:{span.span_id or '-'}"
    canon = json.dumps(span.attributes, sort_keys=True, ensure_ascii=False, default=str)
    return "attrs-" + hashlib.sha256(canon.encode("utf-8")).hexdigest()[:16]


def build_trace(span: Span, problems: list[str] | None = None) -> RequestTrace:
    """Map one chat span to a :class:`RequestTrace` (module docstring). Raises ``ValueError``,
    ``TypeError`` or ``KeyError`` on attribute values of an impossible shape.

    Recoverable bad values (a token count that is not one, a message attribute that is not a list)
    are imported as not recorded; each appends a message naming its attribute to ``problems``."""
    a = span.attributes
    items, user_request = build_items(a, problems)
    items = [replace(it, position=n) for n, it in enumerate(items, 1)]
    response, tool_calls = response_from(a, problems)
    params = {k: v for k, v in a.items() if k.startswith("gen_ai.request.") and k not in _HANDLED}
    if "gen_ai.operation.name" in a:
        params["gen_ai.operation.name"] = a["gen_ai.operation.name"]
    total = _tokens(a.get("gen_ai.usage.total_tokens"), "gen_ai.usage.total_tokens", problems)
    if total is not None:
        params["gen_ai.usage.total_tokens"] = total
    if span.name:
        params["otel.span.name"] = span.name
    if span.parent_id:
        params["otel.parent_span_id"] = span.parent_id
    if span.status == "error":  # read by checks/spans.py (span ended in error)
        params["otel.status_code"] = span.status
        if span.status_message:
            params["otel.status_message"] = span.status_message
    if span.start is not None and span.end is None:  # read by checks/spans.py (span never ended)
        params["otel.span.ended"] = False
    return RequestTrace(
        trace_id=trace_id_for(span),
        created=span.start,
        endpoint=Endpoint(
            provider=_str(_first(a, "gen_ai.provider.name", "gen_ai.system", "ai.model.provider")),
            model=_str(_first(a, "gen_ai.request.model", "ai.model.id")),
            accounting_rule=ACCOUNTING_RULE,
        ),
        policy=Policy(),
        user_request=user_request,
        items=tuple(items),
        service=_str(span.resource.get("service.name")),
        session_id=_str(a.get("gen_ai.conversation.id")),
        user_id=_str(_first(a, "user.id", "enduser.id")),
        reserved_output_tokens=_tokens(a.get("gen_ai.request.max_tokens"), "gen_ai.request.max_tokens", problems),
        usage=usage_from(a, problems),
        response=response,
        tool_calls=tool_calls,
        source_format="otel",
        attributes=params,
    )
