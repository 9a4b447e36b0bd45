"""The account of every field of a provider API exchange (:mod:`.exchanges`): the request and
response keys :func:`~.exchanges.call_from_exchange` did not map, named ``request.KEY`` /
``response.KEY`` (usage details ``response.usage.KEY``), per API.

Request parameters are kept as ``gen_ai.request.*`` attributes (:func:`request_attributes`), a few
response fields as ``gen_ai.response.*`` (:data:`RESPONSE_KEPT`). The request body is also kept whole
as the trace's serialized request, so a key named here is still in the record; it is named because
nothing *reads* it (no item, field or attribute shows it). The HTTP records' keys other than URI,
method, body and status (``headers``: never imported, they may hold API keys) are named
``http.request.KEY`` / ``http.response.KEY`` (:func:`http_unmapped`). A usage
detail holding ``0`` carries nothing and is not named (OpenAI writes ``audio_tokens: 0`` on every
call). The keys read, per API (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages), are
the ones the API reference documents that change what was sent or answered. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common.field_account import mapped, unmapped_keys
from ctxviewer.importers.common.request_params import request_parameters

_USER = ("user", "safety_identifier")
REQUEST_CONTENT = {
    "openai-chat": ("model", "messages", "tools", "max_tokens", "max_completion_tokens", "stream_options", *_USER),
    "openai-responses": ("model", "instructions", "input", "tools", "max_output_tokens", "previous_response_id",
                         "reasoning", *_USER),
    "anthropic": ("model", "system", "messages", "tools", "max_tokens"),
}
"""The request keys read as content or model fields per API (``stream_options`` only asks for the
usage chunk, which is read; ``user`` / ``safety_identifier`` are the trace's user id); every other scalar parameter is kept as an attribute
(:func:`~.request_params.request_parameters`) and the objects of :data:`REQUEST_OBJECTS` too."""

REQUEST_OBJECTS = ("tool_choice", "response_format", "text", "thinking", "metadata", "stop", "modalities",
                   "prediction", "audio", "include", "logit_bias")
"""Request parameters that are objects or lists, kept verbatim as ``gen_ai.request.KEY`` (the
answer's shape, thinking budget, caller metadata, forced tool...): a reader of the call looks for them."""


def request_attributes(api: str, request: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The request parameters of one exchange as attributes (OTel names where one exists, else
    ``gen_ai.request.KEY``) and the request keys not read at all, as ``request.KEY`` in body order."""
    content = REQUEST_CONTENT[api]
    params, read = request_parameters({k: v for k, v in request.items() if k not in content}, "gen_ai.request")
    for key in REQUEST_OBJECTS:
        value = request.get(key)
        if key not in read and isinstance(value, (Mapping, list)) and value:
            params[f"gen_ai.request.{key}"] = value
            read.append(key)
    return params, unmapped_keys(request, mapped(*content, *read), "request.")


_USAGE_READ = ("usage.prompt_tokens", "usage.completion_tokens", "usage.total_tokens", "usage.input_tokens",
               "usage.output_tokens", "usage.prompt_tokens_details.cached_tokens",
               "usage.input_tokens_details.cached_tokens", "usage.completion_tokens_details.reasoning_tokens",
               "usage.output_tokens_details.reasoning_tokens", "usage.cache_read_input_tokens",
               "usage.cache_creation_input_tokens", "usage.cache_creation")

RESPONSE_READ = {
    "openai-chat": mapped(*_USAGE_READ, "id", "model", "choices", "created", "object", "system_fingerprint",
                          "service_tier", "error"),
    "openai-responses": mapped(*_USAGE_READ, "id", "model", "output", "status", "created_at", "completed_at", "object",
                               "service_tier", "error", "incomplete_details", "previous_response_id"),
    "anthropic": mapped(*_USAGE_READ, "id", "model", "content", "role", "stop_reason", "stop_sequence", "type",
                        "error", "usage.service_tier"),
}
"""The response keys read per API. ``object`` / ``type`` only tag the body's kind (``chat.completion``,
``response``, ``message``), which the API told already; ``usage.total_tokens`` is input + output for
both OpenAI APIs (nothing more to read); ``usage.cache_creation`` splits the cache writes by
lifetime (5 min / 1 h), all counted in ``cache_creation_input_tokens``."""

RESPONSE_KEPT = ("system_fingerprint", "service_tier", "stop_sequence", "incomplete_details")
"""Response keys kept as ``gen_ai.response.KEY`` attributes (OTel semconv names the first two
``openai.response.*``; kept under one prefix for all providers)."""


def _zero(value: Any) -> bool:
    return value == 0 and not isinstance(value, bool)


def _nonzero(d: Any) -> Any:
    """``d`` (a usage object) without its ``0`` counts, nested objects included."""
    if not isinstance(d, Mapping):
        return d
    return {k: _nonzero(v) for k, v in d.items() if not _zero(v)}


def response_unmapped(api: str, request: Mapping[str, Any], response: Any) -> list[str]:
    """The response keys of one exchange of ``api`` (``openai-chat``, ``openai-responses``,
    ``anthropic``) not read, as ``response.KEY`` in body order (usage details holding 0 left out).
    A Responses API response echoes the request's settings (``temperature``, ``tools``, ``text``...):
    one equal to what ``request`` sent is read (the request's value is kept); the rest -- the
    server's defaults for settings not sent -- are named."""
    if not isinstance(response, Mapping):
        return []
    body = dict(response)
    if api == "openai-responses":  # the settings it echoes: read where they are what the request sent
        body = {k: v for k, v in body.items() if k not in request or request[k] != v}
    if isinstance(body.get("usage"), Mapping):
        body["usage"] = _nonzero(body["usage"])
    return unmapped_keys(body, RESPONSE_READ[api], "response.")


HTTP_READ = mapped("uri", "url", "method", "body", "status", "status_code")
"""The keys of an HTTP record (cassette request/response) read; ``headers`` are never imported (they
may hold API keys) and are named as left out."""


def http_unmapped(record: Any, side: str) -> list[str]:
    """The keys of one HTTP record (``side`` ``request`` / ``response``) not read, as
    ``http.request.KEY`` / ``http.response.KEY`` (``status.message``: the reason phrase)."""
    if not isinstance(record, Mapping) or not ("body" in record or "method" in record or "uri" in record):
        return []
    out = unmapped_keys(record, HTTP_READ, f"http.{side}.")
    status = record.get("status")
    if isinstance(status, Mapping):
        out += [f"http.{side}.status.{k}" for k, v in status.items() if k != "code" and v not in (None, "")]
    return out
