"""LiteLLM ``StandardLoggingPayload`` (what LiteLLM callbacks, GCS and Pub/Sub loggers receive):
one :class:`~ctxviewer.model.trace.RequestTrace` per payload.

Fields (BerriAI/litellm ``litellm/types/utils.py`` ``StandardLoggingPayload``):
``model`` + ``custom_llm_provider``; ``messages`` (OpenAI request shape; system = role system);
``model_parameters.tools`` the tool definitions; ``response`` an OpenAI ChatCompletion (choices,
tool calls); usage from ``response.usage`` (OpenAI rule: prompt includes cached), else the
top-level ``prompt_tokens`` / ``completion_tokens``, with cached/reasoning details from
``metadata.usage_object``; ``startTime``/``endTime`` as epoch seconds or ``"YYYY-MM-DD HH:MM:SS"``
strings (UTC); ``status`` ``failure`` with ``error_str`` -> status error (its zero counts, when no
response recorded usage, are not recorded usage: kept as ``litellm.prompt_tokens`` /
``litellm.completion_tokens``); a field recorded in a shape that cannot be read is named
(:func:`payload_problems`). ``trace_id`` (groups
retries) is kept as an attribute. ``model_map_information`` (LiteLLM's model map entry for the
deployment): its ``max_input_tokens`` is the context window LiteLLM applied, kept as the
source's window (:mod:`ctxviewer.model.source_window`: eq. 3.1 assumes it when the trace records
no capacity) with ``model_map_key``; ``max_output_tokens`` is kept as
``litellm.model_map.max_output_tokens``; the rest of the entry (LiteLLM's prices per token and
feature flags for the model) is LiteLLM's catalogue, not a fact of the call, and is not kept.
``hidden_params``' ``api_base``, ``response_cost``,
``litellm_model_name`` and ``model_id`` are kept as ``litellm.hidden_params.KEY``. Accepts one
payload, a list, or JSON Lines. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import load_documents, sniff_document
from ctxviewer.importers.common.field_account import is_empty, mapped, unmapped_attribute, unmapped_keys
from ctxviewer.importers.common.llm_call import LLMCall, build_trace
from ctxviewer.importers.common.request_params import request_parameters
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record
from ctxviewer.model.source_window import SOURCE_WINDOW_ATTRIBUTE, source_window
from ctxviewer.model.trace import Usage


def is_payload(doc: Any) -> bool:
    """True for a StandardLoggingPayload object."""
    return isinstance(doc, Mapping) and "call_type" in doc and "messages" in doc and (
        "custom_llm_provider" in doc or "model_parameters" in doc)


def _time(value: Any) -> datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return datetime.fromtimestamp(value, tz=timezone.utc)
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
    return None


def call_from_payload(p: Mapping[str, Any], fallback_id: str) -> LLMCall:
    """One payload as an :class:`LLMCall` (see module docstring)."""
    response = p.get("response")
    resp: Mapping[str, Any] = response if isinstance(response, Mapping) else {}
    params = p.get("model_parameters") or {}
    msgs = gm.parse_structured(p.get("messages"))
    call = LLMCall(trace_id=str(p.get("id") or fallback_id), source_format="litellm",
                   model=pm._str(p.get("model")), provider=pm._str(p.get("custom_llm_provider")),
                   messages=[pm.openai_message(m) for m in msgs] if isinstance(msgs, list) else [],
                   tools=pm.openai_tool_definitions(params.get("tools")),
                   response_model=pm._str(resp.get("model")), response_id=pm._str(resp.get("id")))
    choices = [c for c in resp.get("choices") or [] if isinstance(c, Mapping)]
    call.output = [dict(pm.openai_message(c.get("message") or {}), finish_reason=c.get("finish_reason"))
                   for c in choices] or None
    call.output_field = "response.choices"
    usage = pm.openai_chat_usage(resp.get("usage")) if resp.get("usage") else Usage(
        input_tokens=pm.int_or_none(p.get("prompt_tokens")), output_tokens=pm.int_or_none(p.get("completion_tokens")))
    extra = gm.parse_structured((p.get("metadata") or {}).get("usage_object"))
    if isinstance(extra, Mapping):
        more = pm.openai_chat_usage(extra)
        usage = Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                      cached_input_tokens=usage.cached_input_tokens if usage.cached_input_tokens is not None
                      else more.cached_input_tokens,
                      reasoning_tokens=usage.reasoning_tokens if usage.reasoning_tokens is not None
                      else more.reasoning_tokens)
    call.usage = usage
    if _failed_without_usage(p):  # LiteLLM writes 0 for a call that never got an answer: not recorded, not 0
        call.usage = Usage()
        call.attributes.update({f"litellm.{k}": p[k] for k in ("prompt_tokens", "completion_tokens") if p.get(k) is not None})
    if p.get("messages") is not None and not isinstance(msgs, list):
        call.content_captured = False  # recorded, but not as messages: the warning names the field
        call.attributes["ctxviewer.content_note"] = "messages: recorded but not readable as messages"
    call.created, call.ended = _time(p.get("startTime")), _time(p.get("endTime"))
    if p.get("status") == "failure" or p.get("error_str"):
        call.status, call.status_message = "error", pm._str(p.get("error_str")) or "failure"
    elif p.get("status") == "success":
        call.status = "ok"
    call.max_tokens = pm.int_or_none(params.get("max_tokens") or params.get("max_completion_tokens"))
    call.user_id = pm._str(p.get("end_user"))
    for k in KEPT:
        if not is_empty(p.get(k)):
            call.attributes[f"litellm.{k}"] = p[k]
    call.attributes.update(request_parameters({k: v for k, v in params.items() if k != "tools"},
                                              "litellm.model_parameters")[0])
    call.attributes.update(_model_map(p.get("model_map_information")))
    hidden = p.get("hidden_params")
    for k in HIDDEN_KEPT:
        value = hidden.get(k) if isinstance(hidden, Mapping) else None
        if not is_empty(value) and isinstance(value, (str, int, float)):
            call.attributes[f"litellm.hidden_params.{k}"] = value
    call.attributes.update(unmapped_attribute(unmapped_keys(p, MAPPED)))
    return call


def payload_problems(p: Mapping[str, Any]) -> list[str]:
    """What of payload ``p`` is recorded in a shape that cannot be read, each naming its field:
    ``messages`` that is no list of messages, ``response.choices`` that is no list, and a
    top-level ``prompt_tokens`` / ``completion_tokens`` that is no token count (new user nu2 #8:
    such a record imported as "ok" with only OpenTelemetry's "content not captured")."""
    out: list[str] = []
    msgs = gm.parse_structured(p.get("messages"))
    if msgs is not None and not isinstance(msgs, list):
        out.append(f"messages: expected a list of messages, got {_shape(msgs)}; the request's messages are not recorded")
    resp = p.get("response")
    if isinstance(resp, Mapping) and resp.get("choices") is not None and not isinstance(resp.get("choices"), list):
        out.append(f"response.choices: expected a list, got {_shape(resp['choices'])}; the response is not recorded")
    if not (isinstance(resp, Mapping) and resp.get("usage")):
        out += pm.bad_counts({k: p.get(k) for k in ("prompt_tokens", "completion_tokens")}, "payload")
    return [o.replace("payload.", "", 1) for o in out]


def _shape(value: Any) -> str:
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return "an object" if isinstance(value, Mapping) else f"a {type(value).__name__}"


def _failed_without_usage(p: Mapping[str, Any]) -> bool:
    """True for a failed call whose counts are LiteLLM's zeros (no response, no usage): a request
    the provider refused (a 429, a timeout) used nothing that was recorded (nu2 #11)."""
    failed = p.get("status") == "failure" or bool(p.get("error_str"))
    resp = p.get("response")
    counts = [p.get(k) for k in ("prompt_tokens", "completion_tokens")]
    return failed and not (isinstance(resp, Mapping) and resp.get("usage")) and all(c in (0, None) for c in counts)


def _model_map(info: Any) -> dict[str, Any]:
    """Attributes of LiteLLM's model map entry (module docstring): the source's context window
    (``max_input_tokens``, a positive int) and ``litellm.model_map.*``; empty when not recorded."""
    entry = info.get("model_map_value") if isinstance(info, Mapping) else None
    if not isinstance(entry, Mapping):
        return {}
    key = pm._str(info.get("model_map_key")) or pm._str(entry.get("key"))
    out: dict[str, Any] = {}
    window = source_window(entry.get("max_input_tokens"),
                           f"LiteLLM model map recorded in the trace: {key}" if key else
                           "LiteLLM model map recorded in the trace")
    if window is not None:
        out[SOURCE_WINDOW_ATTRIBUTE] = window
    if key:
        out["litellm.model_map.key"] = key
    max_out = entry.get("max_output_tokens")
    if isinstance(max_out, int) and not isinstance(max_out, bool) and max_out > 0:
        out["litellm.model_map.max_output_tokens"] = max_out
    return out


HIDDEN_KEPT = ("api_base", "response_cost", "litellm_model_name", "model_id")
"""``hidden_params`` keys kept as ``litellm.hidden_params.KEY`` attributes (scalars only)."""

KEPT = ("trace_id", "call_type", "stream", "response_cost", "model_group", "api_base", "cache_hit", "model_id",
        "request_tags", "saved_cache_cost", "response_time", "total_tokens", "completionStartTime", "error_information")
"""Payload keys kept as ``litellm.KEY`` attributes."""

MAPPED = mapped("id", "model", "custom_llm_provider", "messages", "model_parameters", "response", "prompt_tokens",
                "completion_tokens", "metadata.usage_object", "startTime", "endTime", "status", "error_str",
                "end_user", "model_map_information", *(f"hidden_params.{k}" for k in HIDDEN_KEPT), *KEPT)
"""The payload keys mapped or kept (``model_map_information``: its window and key, the rest of it
left out as catalogue data: module docstring); the rest are named in ``ctxviewer.unmapped``."""


class LiteLLMImporter:
    """The ``litellm`` importer (see module docstring)."""

    name = "litellm"
    records_omissions = False
    description = "LiteLLM StandardLoggingPayload (callback / GCS / Pub/Sub logs)"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` when the first document (or its first element) is a
        StandardLoggingPayload; else 0."""
        doc = sniff_document(head)
        if isinstance(doc, list) and doc:
            doc = doc[0]
        return SPECIFIC if is_payload(doc) else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per payload, in file order."""
        file = str(path)
        payloads = []
        for record, doc in load_documents(path):
            for i, p in enumerate(doc if isinstance(doc, list) else [doc]):
                if is_payload(p):
                    payloads.append((record if not isinstance(doc, list) else f"{record}[{i}]", p))
        if not payloads:
            raise ImportFailed(f"{path}: no LiteLLM StandardLoggingPayload objects")
        for record, p in payloads:
            try:
                trace, warnings = build_trace(call_from_payload(p, f"{path.name}#{record}"))
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                yield ImportProblem(file, record, f"cannot map payload: {exc}", dropped=1)
                continue
            yield trace
            for w in payload_problems(p) + warnings:
                yield ImportProblem(file, record, w)


IMPORTER = LiteLLMImporter()
