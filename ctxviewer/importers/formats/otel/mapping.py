"""Span -> model call under the OpenTelemetry GenAI semantic conventions: one
:class:`~ctxviewer.importers.common.llm_call.LLMCall` per model-call span, whatever container the
span came from, made a :class:`~ctxviewer.model.trace.RequestTrace` by the one normaliser
(:func:`ctxviewer.importers.common.llm_call.build_trace`).

A span is a model call ("chat span") when its
``gen_ai.operation.name`` is ``chat``, ``generate_content`` or ``text_completion`` (or Semantic
Kernel's ``chat.completions``, ``text.completions`` and their ``streaming_`` forms), or -- when it
has no operation name -- when it carries ``gen_ai.input.messages``, the deprecated
``gen_ai.prompt`` (JSON or OpenLLMetry-indexed ``gen_ai.prompt.{i}.*``), or Vercel AI SDK
``ai.prompt.messages`` on an ``ai.*.doGenerate`` / ``doStream`` span. Other spans (``execute_tool``,
``invoke_agent``, workflows) are skipped; a file with none (and no rejected span) yields one problem.

Mapping (attribute names of the OTel GenAI semantic conventions, and the older forms real
instrumentations write):

* ``gen_ai.system_instructions`` -> a ``policy`` item (trusted, role ``system``, id ``system``); a
  ``system`` (or ``developer``) message in ``gen_ai.input.messages`` -> also a ``policy`` item.
* ``gen_ai.input.messages`` -> one item per message, id ``msg-{i}`` (``i`` = 0-based index in the
  attribute, also ``source.turn``): the last ``user`` message, whatever its parts, is the ``user`` item and
  ``trace.user_request``; other user, assistant and tool messages are ``history`` (untrusted, role
  kept). Assistant ``tool_call`` parts keep their call JSON in the content; ``tool_call_response``
  parts show the response. Binary parts show a placeholder (see :func:`ctxviewer.importers.common.messages.part_text`).
* ``gen_ai.tool.definitions`` (fallback ``llm.request.functions.{i}.*``) -> one ``tool`` item per
  definition, after the messages; id = tool name (``name#2``, ``name#3``, ... when the name repeats
  or is another item's id: :func:`~ctxviewer.importers.common.llm_call.unique_id`), content = compact JSON of the definition;
  untrusted (only policy is trusted, ch. 3.5: tool descriptions are data).
  A list of tool names (Mastra) -> definitions by name only (:func:`by_name_only`).
* ``gen_ai.output.messages`` (fallback deprecated ``gen_ai.completion``) -> ``Response`` of the first
  choice and its ``tool_call`` parts as ``ToolCall`` (arguments exactly as sent; an object becomes
  compact JSON); fallback ``gen_ai.completion.{i}.tool_calls`` / ``function_call``. The first
  choice's own ``finish_reason``, else the first of ``gen_ai.response.finish_reasons``, else Semantic
  Kernel's singular ``gen_ai.response.finish_reason`` (``"stop,length"``, ``'["Stop"]'``) -> the
  response's finish reason (:mod:`~ctxviewer.importers.common.finish_reasons`).
* ``gen_ai.usage.*`` -> ``Usage``; ``gen_ai.request.model``, ``gen_ai.provider.name`` (legacy
  ``gen_ai.system``) -> ``Endpoint``; ``gen_ai.request.max_tokens`` -> ``reserved_output_tokens``;
  resource ``service.name`` -> ``service``; ``gen_ai.conversation.id`` -> ``session_id``; span start ->
  ``created``; other ``gen_ai.request.*`` parameters, ``gen_ai.operation.name``,
  ``gen_ai.usage.total_tokens`` (or OpenLLMetry's ``llm.usage.total_tokens``: :data:`TOTAL_KEYS`), the span name (``otel.span.name``) and parent
  (``otel.parent_span_id``) -> ``trace.attributes``; the span's status and times -> the status
  attributes of :func:`~ctxviewer.importers.common.llm_call.build_trace`.
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

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.choices import one_response_items
from ctxviewer.importers.common.field_account import unmapped_attribute, unmapped_attribute_keys
from ctxviewer.importers.common.finish_reasons import first_finish_reason
from ctxviewer.importers.common.framework_tools import framework_tool_definitions
from ctxviewer.importers.common.llm_call import LLMCall, status_attributes
from ctxviewer.importers.common.spans.span import Span, trace_id_for
from ctxviewer.importers.common.usage_rules import RULE as GEMINI_RULE
from ctxviewer.importers.common.usage_rules import thinking_in_total
from ctxviewer.importers.formats.otel import gemini_events as ge
from ctxviewer.importers.formats.otel.events import UNREAD_EVENTS
from ctxviewer.model.trace import Usage

ACCOUNTING_RULE = "item text only; per-item counts not recorded by the source"
"""Recorded as ``Endpoint.accounting_rule``: OTel spans carry no per-item token counts, so the
counts are ctxviewer's (each item's provenance names the encoding)."""


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

TOTAL_KEYS = ("gen_ai.usage.total_tokens", "llm.usage.total_tokens")
"""The call's total tokens, in order of preference: the GenAI name, then OpenLLMetry's
``SpanAttributes.LLM_USAGE_TOTAL_TOKENS`` (its google-generativeai / vertexai instrumentations write
Gemini's ``total_token_count`` there, the only place its thinking tokens show:
:func:`~ctxviewer.importers.common.usage_rules.thinking_in_total`). Kept on the trace under its own name."""

_HANDLED = frozenset({"gen_ai.request.model", "gen_ai.request.max_tokens"})

READ = (
    "gen_ai.request.", "gen_ai.prompt.", "gen_ai.completion.", "llm.request.functions.", "gen_ai.usage.",
    "ai.usage.", "llm.usage.total_tokens", "gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.system", "gen_ai.system_instructions",
    "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion",
    "gen_ai.response.finish_reasons", "gen_ai.response.finish_reason", "gen_ai.response.id", "gen_ai.response.model", "gen_ai.tool.definitions",
    "gen_ai.conversation.id", "gen_ai.agent.name", "agent.name", "ai.model.id", "ai.model.provider", "ai.operationId",
    "ai.prompt", "ai.prompt.messages", "ai.prompt.tools", "ai.response.finishReason", "ai.response.text",
    "ai.response.toolCalls", "ai.response.id", "ai.response.model", "ai.response.object",
    "user.id", "enduser.id", "session.id", "metadata.usage_object", "input.value",
    "output.value", "operation.name", "ctxviewer.span_kind", "model_request_parameters", "logfire.truncated",
    "llm.request.type", UNREAD_EVENTS, ge.ELIDED_KEY, ge.NOTES_KEY)
"""The chat-span attributes this mapping and :mod:`.group` read (exact names, and prefixes ending
in ``.``; OpenLLMetry's ``llm.request.type`` decides that a span is no rerank or embedding:
:func:`~ctxviewer.importers.common.spans.conventions.non_generative`); any other attribute of a chat span is named in ``ctxviewer.unmapped``
(:func:`~ctxviewer.importers.common.field_account.unmapped_attribute_keys`)."""

KEEP = ("gen_ai.cost.", "ai.telemetry.metadata.", "ai.telemetry.functionId", "traceloop.workflow.name",
        "traceloop.association.properties.", "openai.response.system_fingerprint",
        "gen_ai.openai.response.system_fingerprint", "openai.response.service_tier", "ai.settings.",
        "gen_ai.agent.", "gen_ai.response.time_to_first_chunk", "gen_ai.data_source.id", "ai.response.timestamp",
        "ai.schema", "ai.response.providerMetadata", "gen_ai.is_streaming", "llm.is_streaming",
        "gen_ai.openai.api_base", "metadata.applied_guardrails", "litellm.call_id", "gcp.vertex.agent.")
"""Chat-span attributes kept on the trace verbatim (cost, the application's telemetry metadata,
workflow names, response fingerprints, agent fields, settings, whether the call streamed, the API
base URL, LiteLLM's call id and guardrails applied, Google ADK's invocation, session and event
ids): read, so never named as unmapped."""

_READ_ALL = READ + KEEP


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


def _name(attrs: Mapping[str, Any], problems: list[str] | None, *keys: str) -> str | None:
    """The first of ``keys`` set, as a name (model, provider, response id): a string, or a number
    written as one; an array, object or boolean is no name (OTel attribute values may be arrays)
    and is ``None``, with a message naming the attribute appended to ``problems`` (new-user finding
    F12: ``['gpt-4o']`` was stored as the model, and its price was then not known)."""
    k = _first_key(attrs, *keys)
    if k is None:
        return None
    value = attrs[k]
    if isinstance(value, (list, tuple, dict, bool)):
        if problems is not None:
            problems.append(f"{k}: {value!r} is not a name (a {type(value).__name__}); shown as not recorded")
        return None
    return _str(value)


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
    return _inclusive(Usage(**values), problems, _anthropic(attrs))


def _anthropic(attrs: Mapping[str, Any]) -> bool:
    """Whether the span's call went to an Anthropic model (``gen_ai.provider.name`` / ``gen_ai.system``
    ``anthropic``, or a Claude model name at any provider: Bedrock, Vertex)."""
    provider = str(attrs.get("gen_ai.provider.name") or attrs.get("gen_ai.system") or "").lower()
    model = str(attrs.get("gen_ai.request.model") or attrs.get("gen_ai.response.model") or "").lower()
    return "anthropic" in provider or "claude" in model


def _inclusive(usage: Usage, problems: list[str] | None, anthropic: bool = True) -> Usage:
    """``usage`` with ``input_tokens`` including the cache, as the semconv defines it
    (``gen_ai.usage.input_tokens`` SHOULD include cached tokens): when the cache read alone exceeds
    the input, the instrumentation wrote Anthropic's own convention (input excludes cache reads and
    writes) -- "input 50 · cached 3,000" cannot be, and priced nothing -- so, for a call to an
    Anthropic model (``anthropic``: :func:`_anthropic`), the input becomes input + cache read + cache
    creation, said in ``problems``; for any other provider the usage is kept and the contradiction
    said. Any other usage is kept as reported."""
    inp, read, made = usage.input_tokens, usage.cached_input_tokens, usage.cache_creation_input_tokens
    if inp is None or read is None or read <= inp:
        return usage
    if not anthropic:  # no convention explains it: kept as reported, said
        if problems is not None:
            problems.append(f"gen_ai.usage.input_tokens ({inp:,}) is below the cache read ({read:,}), which it "
                            "should include; both kept as reported")
        return usage
    total = inp + read + (made or 0)
    if problems is not None:
        problems.append(f"gen_ai.usage.input_tokens ({inp:,}) is below the cache read ({read:,}): read as Anthropic's "
                        f"convention (input without the cache); input taken as {total:,}, the semconv's inclusive count")
    return replace(usage, input_tokens=total)


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
    if attrs.get("gen_ai.output.messages") is not None:  # one response's items written one per message: merged
        n = attrs.get("gen_ai.request.choice.count")
        choices = isinstance(n, (int, float, str)) and str(n).isdigit() and int(n) > 1
        return one_response_items(_message_list(attrs, "gen_ai.output.messages", problems), choices)
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


def call_from_span(span: Span, problems: list[str] | None = None) -> LLMCall:
    """The model call one chat span's own attributes record (module docstring); what it learns
    from the other spans of its trace is added by :func:`.group.enrich_call`. Raises
    ``ValueError``, ``TypeError`` or ``KeyError`` on attribute values of an impossible shape.

    Recoverable bad values (a token count that is not one, a message attribute that is not a
    list) are imported as not recorded; each appends a message naming its attribute to ``problems``."""
    a = span.attributes
    call = LLMCall(trace_id=trace_id_for(span), source_format="otel",
                   accounting_rule=ACCOUNTING_RULE, check_usage=False)
    call.system = gm.parse_parts(a.get("gen_ai.system_instructions")) or None
    call.messages = [dict(m, role=None) if m.get("role") == "" else m for m in _input_messages(a, problems) or []]
    call.tools = span_tools(a) or []
    outputs = _output_messages(a, problems)
    reason = first_finish_reason(a)  # gen_ai.response.finish_reasons, else Semantic Kernel's singular
    first = outputs[0] if outputs else None
    if first is not None:  # the first choice's own finish reason wins over the span's list
        reason = _str(first.get("finish_reason")) or reason
        first = {k: v for k, v in first.items() if k != "finish_reason"}
    # choices: the first is the response; the others are kept (importers.common.choices), never dropped
    call.output = [first, *(outputs or [])[1:]] if first is not None else None
    call.finish_reason = _str(reason)
    if not (first and gm.tool_call_parts(first)):  # LiteLLM / OpenLLMetry legacy indexed completion attributes
        call.output_tool_calls = [c for m in gm.indexed_messages(a, "gen_ai.completion") or []
                                  for c in gm.tool_call_parts(m)]
    call.response_model = _name(a, problems, "gen_ai.response.model", "ai.response.model")
    call.response_id = _name(a, problems, "gen_ai.response.id", "ai.response.id")
    if call.output is None and a.get("ai.response.object") not in (None, ""):  # Vercel generateObject
        obj = a["ai.response.object"]
        call.output = [{"role": "assistant", "parts": [{"type": "text", "content": obj if isinstance(obj, str)
                                                        else gm.compact_json(obj)}]}]
    call.provider = _name(a, problems, "gen_ai.provider.name", "gen_ai.system", "ai.model.provider")
    call.model = _name(a, problems, "gen_ai.request.model", "ai.model.id")
    call.service = _str(span.resource.get("service.name"))
    call.session_id = _str(a.get("gen_ai.conversation.id"))
    call.user_id = _str(_first(a, "user.id", "enduser.id"))
    call.created, call.ended = span.start, span.end
    if span.start is not None and span.end is None and not span.end_unreadable:
        call.ended_recorded = False
    call.status, call.status_message = span.status, span.status_message
    params = call.attributes
    params.update((k, v) for k, v in a.items() if k.startswith("gen_ai.request.") and k not in _HANDLED)
    if "gen_ai.operation.name" in a:
        params["gen_ai.operation.name"] = a["gen_ai.operation.name"]
    total_key = next((k for k in TOTAL_KEYS if a.get(k) not in (None, "")), TOTAL_KEYS[0])
    total = _tokens(a.get(total_key), total_key, problems)
    if total is not None:
        params[total_key] = total
    if span.name:
        params["otel.span.name"] = span.name
    if span.parent_id:
        params["otel.parent_span_id"] = span.parent_id
    if span.status == "error":  # read by checks/spans.py (span ended in error)
        params["otel.status_code"] = span.status
        if span.status_message:
            params["otel.status_message"] = span.status_message
    if span.start is not None and span.end is None and not span.end_unreadable:  # read by checks/spans.py (span never ended)
        params["otel.span.ended"] = False
    params.update(status_attributes(call))  # the span's own status, before what other spans add (group)
    call.max_tokens = _tokens(a.get("gen_ai.request.max_tokens"), "gen_ai.request.max_tokens", problems)
    call.usage = usage_from(a, problems)  # problems in attribute order: messages, total, max tokens, usage
    thought = thinking_in_total(call.usage, total, call.provider, call.model)
    if thought is not None:
        call.usage = thought
        params["ctxviewer.usage_rule"] = GEMINI_RULE
    params.update((k, v) for k, v in a.items() if k.startswith(KEEP) and isinstance(v, (str, int, float, bool)))
    unread = a.get(UNREAD_EVENTS)
    params.update(unmapped_attribute([*unmapped_attribute_keys(a, _READ_ALL),
                                      *(unread if isinstance(unread, list) else [])]))
    ge.mark_not_captured(call, a, problems)  # google-genai's "<elided>" event bodies: content not captured
    return call


def by_name_only(value: Any) -> list[dict[str, Any]] | None:
    """A ``gen_ai.tool.definitions`` that lists tool names, not definitions (Mastra's agent span:
    its ``availableTools``, ``["weatherTool"]``), as definitions ``{"name": ...}`` that record the
    name only (no description, no schema: :mod:`.group` names them in
    :data:`~ctxviewer.model.source_notes.TOOLS_BY_NAME_KEY`, and the tool review says the schema
    is not recorded); ``None`` for any other value."""
    names = gm.parse_structured(value)
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        return None
    if any(isinstance(gm.parse_structured(n), Mapping) for n in names):  # Vercel's list of JSON definitions
        return None
    return [{"name": n} for n in names]


def span_tools(a: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The tool definitions a span's attributes ``a`` record: ``gen_ai.tool.definitions`` (or
    Vercel's ``ai.prompt.tools``), else OpenLLMetry's ``llm.request.functions.{i}.*``, else Pydantic
    AI's ``model_request_parameters`` (:func:`~ctxviewer.importers.common.framework_tools.framework_tool_definitions`);
    ``None`` when none does."""
    raw = _first(a, "gen_ai.tool.definitions", "ai.prompt.tools")
    defs = gm.parse_tool_definitions(raw)
    if not defs:  # no definition objects: a list of names, else as parsed ([] = none offered)
        defs = by_name_only(raw) or defs
    return (defs if defs is not None else gm.indexed_functions(a) or framework_tool_definitions(a)) or None
