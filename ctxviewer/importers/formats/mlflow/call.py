"""One MLflow model-call span -> an :class:`~ctxviewer.importers.common.llm_call.LLMCall`: the
JSON-string attribute values decoded (:func:`decode`), ``mlflow.spanInputs`` / ``mlflow.spanOutputs``
read as the provider's request / response (:func:`ctxviewer.importers.common.exchanges.call_from_exchange`),
LangChain messages, MLflow 2.x ``mlflow.chat.messages``, usage (:func:`mlflow_usage`), times (v3
``*_unix_nano``, v2 ``start_time`` / ``end_time``), status (an empty error message takes the
``exception`` event's), a LangChain autolog span's endpoint (``invocation_params.model``, then
``metadata.ls_model_name``; ``metadata.ls_provider``: :func:`langchain_endpoint`; the response model
``llm_output.model_name``, the finish reason ``generation_info.finish_reason``), and a retriever span's documents (:func:`retrieved_documents`). The
attribute names are ``mlflow/tracing/constant.py``'s ``SpanAttributeKey``. No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.exchanges import call_from_exchange
from ctxviewer.importers.common.langchain_messages import langchain_message, langchain_response_metadata
from ctxviewer.importers.common.llm_call import Document, LLMCall
from ctxviewer.importers.common.values import normalise_id, parse_time, span_status
from ctxviewer.model.trace import Usage

NAME = "mlflow"
READ_ATTRIBUTES = frozenset({"mlflow.spanType", "mlflow.spanInputs", "mlflow.spanOutputs", "mlflow.chat.tools",
                             "mlflow.chat.messages",
                             "mlflow.chat.tokenUsage", "mlflow.llm.model", "mlflow.llm.provider",
                             "mlflow.message.format", "mlflow.traceRequestId"})
"""Span attributes mapped to trace fields (the others are kept verbatim on the trace)."""


def decode(value: Any) -> Any:
    """An MLflow span attribute value: a JSON-encoded string decoded (``"\\"LLM\\""`` -> ``"LLM"``);
    a string that is not JSON, or any other value, as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def mlflow_usage(raw: Any) -> Usage | None:
    """``mlflow.chat.tokenUsage`` (``TokenUsageKey``) as :class:`Usage` (tokens; input includes
    cache: added back when ``total_tokens`` shows it was left out); ``None`` when not an object."""
    u = decode(raw)
    if not isinstance(u, Mapping):
        return None
    inp, out = pm.int_or_none(u.get("input_tokens")), pm.int_or_none(u.get("output_tokens"))
    read, made = pm.int_or_none(u.get("cache_read_input_tokens")), pm.int_or_none(u.get("cache_creation_input_tokens"))
    total = pm.int_or_none(u.get("total_tokens"))
    cache = (read or 0) + (made or 0)
    if inp is not None and out is not None and cache and total == inp + out + cache:
        inp += cache
    return Usage(input_tokens=inp, output_tokens=out, cached_input_tokens=read, cache_creation_input_tokens=made)


def _langchain_messages(value: Any) -> list[gm.Message] | None:
    """LangChain chat-model inputs (``[[{type: "human", content}, ...]]``, one list per prompt: the
    first) or a flat list of LangChain messages as normalised messages; ``None`` for other shapes."""
    if isinstance(value, list) and value and isinstance(value[0], list):
        value = value[0]
    if isinstance(value, list) and value and all(isinstance(m, Mapping) and ("lc" in m or "type" in m) for m in value):
        return [langchain_message(m) for m in value]
    return None


def _generic_call(inputs: Any, outputs: Any, trace_id: str) -> LLMCall:
    """A call whose inputs are not a provider request: LangChain messages, else messages by the
    generic normaliser (``{"messages": [...]}``, a message list, a prompt string), output as text."""
    call = LLMCall(trace_id=trace_id, source_format=NAME)
    source = inputs.get("messages", inputs.get("prompt", inputs)) if isinstance(inputs, Mapping) else inputs
    lc = _langchain_messages(source)
    if lc is not None:
        call.messages, source = lc, None
    if source is not None:
        if isinstance(source, Mapping):
            source = gm.compact_json(source)
        call.messages = gm.parse_messages(source) or []
        call.messages = [m if m.get("role") else {**m, "role": "user"} for m in call.messages]
    gens = outputs.get("generations") if isinstance(outputs, Mapping) else None
    first = gens[0][0] if isinstance(gens, list) and gens and isinstance(gens[0], list) and gens[0] else None
    if isinstance(first, Mapping) and (first.get("message") is not None or first.get("text") is not None):
        msg = first.get("message")  # LangChain LLMResult: generations[0][0] .message (chat) or .text
        call.output = [langchain_message(msg) if isinstance(msg, Mapping) else
                       {"role": "assistant", "parts": [{"type": "text", "content": str(first.get("text"))}]}]
        facts, _ = langchain_response_metadata(msg, "")  # MLflow keeps no field account of span outputs
        info = first.get("generation_info")
        call.output[0]["finish_reason"] = (info.get("finish_reason") if isinstance(info, Mapping) else None) \
            or facts["finish_reason"]
        llm_output = outputs.get("llm_output")
        call.response_id = facts["id"]
        call.response_model = (pm._str(llm_output.get("model_name")) if isinstance(llm_output, Mapping) else None) \
            or facts["model"]
    elif outputs is not None:
        text = outputs if isinstance(outputs, str) else gm.compact_json(outputs)
        call.output = [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]
    return call


def call_from_span(span: Mapping[str, Any], attrs: Mapping[str, Any], trace_id: str,
                   warnings: list[str]) -> LLMCall:
    """One model-call span (attributes already decoded) as an :class:`LLMCall` (see module docstring);
    ``warnings`` gets what could not be read."""
    inputs, outputs = attrs.get("mlflow.spanInputs"), attrs.get("mlflow.spanOutputs")
    fmt = attrs.get("mlflow.message.format")
    try:
        call, notes = call_from_exchange(inputs, outputs if outputs is not None else {}, trace_id,
                                         uri="anthropic" if fmt == "anthropic" else None, fmt=NAME, account=False)
        warnings += notes
        call.trace_id = trace_id
        call.provider = None  # told by the request's shape, not recorded: only mlflow.llm.provider / message.format say it
        if call.output is None and outputs is not None:
            call.output = _generic_call(None, outputs, trace_id).output
        provider_shape = True
    except (ValueError, TypeError, AttributeError):
        call = _generic_call(inputs, outputs, trace_id)
        provider_shape = False
    chat = attrs.get("mlflow.chat.messages")  # MLflow 2.x: the whole chat in OpenAI form, the answer last
    if isinstance(chat, list) and chat and not (provider_shape and call.messages):
        msgs = [pm.openai_message(m) for m in chat if isinstance(m, Mapping)]
        if msgs and msgs[-1].get("role") == "assistant" and len(msgs) > 1:
            said = (call.output or [{}])[0].get("finish_reason")  # the LLMResult's generation_info: not in the chat
            call.messages, call.output = msgs[:-1], [msgs[-1] if not said or msgs[-1].get("finish_reason")
                                                     else {**msgs[-1], "finish_reason": said}]
        else:
            call.messages = msgs
    usage = mlflow_usage(attrs.get("mlflow.chat.tokenUsage"))
    if usage is not None:
        call.usage = usage
    tools = attrs.get("mlflow.chat.tools")
    if isinstance(tools, list) and tools:
        call.tools = pm.openai_tool_definitions(tools)
    params, meta = langchain_endpoint(attrs)
    call.model = pm._str(attrs.get("mlflow.llm.model")) or call.model or pm._str(params.get("model")) \
        or pm._str(params.get("model_name")) or pm._str(meta.get("ls_model_name"))
    call.provider = pm._str(attrs.get("mlflow.llm.provider")) or call.provider or (fmt if isinstance(fmt, str) else None) \
        or pm._str(meta.get("ls_provider"))
    for key, path in (("start_time_unix_nano", "start"), ("end_time_unix_nano", "end")):
        if key not in span and key.replace("_unix_nano", "") in span:  # trace schema v2: start_time / end_time (ns)
            key = key.replace("_unix_nano", "")
        try:
            when = parse_time(span.get(key))
        except ValueError as exc:
            warnings.append(f"{key}: {exc}; {path} not recorded")
            when = None
        if path == "start":
            call.created = when
        else:
            call.ended = when
            call.ended_recorded = when is not None or span.get(key) not in (None, "", 0, "0")
    status = span.get("status")
    if status is None and span.get("status_code") is not None:  # trace schema v2
        status = {"code": span.get("status_code"), "message": span.get("status_message")}
    call.status, call.status_message = span_status(status)
    if call.status == "error" and not call.status_message:  # MLflow leaves the message empty and records an exception event
        call.status_message = _exception_message(span.get("events"))
    call.attributes = {**call.attributes, **{k: v for k, v in attrs.items() if k not in READ_ATTRIBUTES}}
    if span.get("name"):
        call.attributes["mlflow.span.name"] = span["name"]
    if isinstance(span.get("events"), list) and span["events"]:
        call.attributes["mlflow.span.events"] = span["events"]  # exceptions, stream chunks: kept as recorded
    return call


def langchain_endpoint(attrs: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """A LangChain autolog span's ``invocation_params`` (the chat model's request parameters:
    ``model`` / ``model_name``) and ``metadata`` (``ls_model_name``, ``ls_provider``: LangChain's
    ``_get_ls_params``), the attributes MLflow's LangChain callback sets from the run's kwargs;
    ``{}`` for each that is not recorded."""
    params, meta = attrs.get("invocation_params"), attrs.get("metadata")
    return (params if isinstance(params, Mapping) else {}), (meta if isinstance(meta, Mapping) else {})


def _exception_message(events: Any) -> str | None:
    """``exception.type: exception.message`` of the first ``exception`` span event (OTel semconv), or ``None``."""
    for ev in events if isinstance(events, list) else []:
        attrs = ev.get("attributes") if isinstance(ev, Mapping) else None
        if isinstance(attrs, Mapping) and ev.get("name") == "exception":
            kind, message = pm._str(attrs.get("exception.type")), pm._str(attrs.get("exception.message"))
            return ": ".join(x for x in (kind, message) if x) or None
    return None


def span_id_of(span: Mapping[str, Any]) -> str | None:
    """A span's id as hex: ``span_id`` (v3; base64 of the binary id or hex), else ``context.span_id`` (v2, ``0x`` hex)."""
    ctx = span.get("context")
    raw = span.get("span_id", ctx.get("span_id") if isinstance(ctx, Mapping) else None)
    return normalise_id(raw, 8)


def nanos(span: Mapping[str, Any], key: str) -> int | None:
    """A span time ``key`` (``start_time`` / ``end_time``: v3 ``*_unix_nano`` or v2) as Unix nanoseconds; ``None`` if absent or not a number."""
    value = span.get(f"{key}_unix_nano", span.get(key))
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def retrieved_documents(span: Mapping[str, Any], attrs: Mapping[str, Any]) -> list[tuple[Document, Any]]:
    """A ``RETRIEVER`` span's ``mlflow.spanOutputs`` documents (``[{page_content, metadata, id}]``,
    ``mlflow.entities.Document``) as :class:`Document` s (store: the span's name), each with its
    ``metadata``; ``[]`` for other outputs."""
    out = attrs.get("mlflow.spanOutputs")
    docs = out if isinstance(out, list) else []
    return [(Document(id=pm._str(d.get("id")), content=pm._str(d.get("page_content")),
                      store=pm._str(span.get("name"))), d.get("metadata")) for d in docs if isinstance(d, Mapping)]
