"""Provider API exchanges -- one HTTP request and its response to OpenAI Chat Completions, OpenAI
Responses or Anthropic Messages -- as model calls (:func:`call_from_exchange`) and traces
(:func:`load_exchanges`), for every format that records such exchanges (the ``provider-api``
JSON files, HTTP cassettes).

The API is told by the request URI (``/chat/completions``, ``/responses``, ``/messages``), else by
the body shapes. A request or response may be the bare body or an HTTP record (``{method, uri,
body, status}``, the body JSON or a JSON string). A streamed Chat Completions response (SSE
``data:`` chunks or a list of chunks) is reassembled; its usage comes from the final chunk with
empty ``choices``, and a stream without one reports usage as not reported. An HTTP status >= 400
marks the trace ``otel.status_code = error`` with the provider's error message. Message and usage
rules: :mod:`.provider_messages`; the trace: :func:`.llm_call.build_trace`. No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.exchange_account import (
    RESPONSE_KEPT,
    http_unmapped,
    request_attributes,
    response_unmapped,
)
from ctxviewer.importers.common.field_account import unmapped_attribute
from ctxviewer.importers.common.llm_call import LLMCall, build_trace
from ctxviewer.importers.contract import ImportProblem, Record
from ctxviewer.model.source_notes import CACHE_1H_KEY, SERVER_TOOL_TYPES, SERVER_TOOLS_KEY

SHARED_PARAMS = ("temperature", "top_p", "tool_choice", "stream", "seed", "parallel_tool_calls")
"""The request parameters kept from a provider body inside another format (MLflow span inputs)."""


def api_of(uri: str | None, req: Any, resp: Any) -> str | None:
    """``openai-chat``, ``openai-responses`` or ``anthropic`` for one exchange; ``None`` if unknown."""
    u = uri or ""
    if "/chat/completions" in u:
        return "openai-chat"
    if u.rstrip("/").endswith("/responses") or "/responses?" in u:
        return "openai-responses"
    if "anthropic" in u or u.rstrip("/").endswith("/messages"):
        return "anthropic"
    r = resp if isinstance(resp, Mapping) else {}
    q = req if isinstance(req, Mapping) else {}
    if "choices" in r or (isinstance(resp, list) and resp and isinstance(resp[0], Mapping) and "choices" in resp[0]):
        return "openai-chat"
    if r.get("object") == "response" or "input" in q or "instructions" in q:
        return "openai-responses"
    if r.get("type") == "message" or ("system" in q and "messages" in q):
        return "anthropic"
    if "messages" in q:
        return "openai-chat"
    return None


def sse_events(text: str) -> list[Any] | None:
    """The JSON ``data:`` payloads of a server-sent-events body, in order (``[DONE]`` dropped);
    ``None`` when ``text`` is not SSE."""
    if "data:" not in text[:200]:
        return None
    out = []
    for line in text.splitlines():
        if line.startswith("data:"):
            payload = line[5:].strip()
            if payload and payload != "[DONE]":
                try:
                    out.append(json.loads(payload))
                except ValueError:
                    continue
    return out


def http_body(record: Any) -> Any:
    """The JSON body of an HTTP record (``{body}``, ``{body: {string}}``) or the record itself."""
    if isinstance(record, Mapping) and ("body" in record or "method" in record or "uri" in record):
        body = record.get("body")
        if isinstance(body, Mapping) and set(body) <= {"string", "encoding"}:
            body = body.get("string")
        return pm.json_body(body)
    return pm.json_body(record)


def _status(record: Any) -> int | None:
    if not isinstance(record, Mapping):
        return None
    s = record.get("status", record.get("status_code"))
    if isinstance(s, Mapping):
        s = s.get("code")
    try:
        return int(s) if s is not None else None
    except (TypeError, ValueError):
        return None


def _epoch(value: Any) -> datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return datetime.fromtimestamp(value, tz=timezone.utc)
    return None


def _anthropic_stream(events: list[Any]) -> dict[str, Any]:
    """Anthropic SSE events as one Message-shaped dict (usage: input from ``message_start``,
    output from the last ``message_delta``)."""
    msg: dict[str, Any] = {"content": []}
    for ev in events:
        if not isinstance(ev, Mapping):
            continue
        t = ev.get("type")
        if t == "message_start":
            msg.update({k: v for k, v in (ev.get("message") or {}).items() if k != "content"})
        elif t == "content_block_start":
            msg["content"].append(dict(ev.get("content_block") or {}))
        elif t == "content_block_delta" and msg["content"]:
            d, blk = ev.get("delta") or {}, msg["content"][-1]
            if d.get("type") == "text_delta":
                blk["text"] = (blk.get("text") or "") + (d.get("text") or "")
            elif d.get("type") == "input_json_delta":
                blk["_json"] = (blk.get("_json") or "") + (d.get("partial_json") or "")
            elif d.get("type") == "thinking_delta":
                blk["thinking"] = (blk.get("thinking") or "") + (d.get("thinking") or "")
        elif t == "message_delta":
            msg.update({k: v for k, v in (ev.get("delta") or {}).items() if v is not None})
            u = dict(msg.get("usage") or {})
            u.update(ev.get("usage") or {})
            msg["usage"] = u
    for blk in msg["content"]:
        if "_json" in blk:
            raw = blk.pop("_json")
            try:
                blk["input"] = json.loads(raw) if raw else {}
            except ValueError:
                blk["input"] = raw
    return msg


def call_from_exchange(request: Any, response: Any, trace_id: str, uri: str | None = None,
                       fmt: str = "provider-api", account: bool = True) -> tuple[LLMCall, list[str]]:
    """One exchange as an :class:`LLMCall` and warnings. ``request``/``response`` are the HTTP
    records or bare bodies (JSON, JSON strings, SSE text). With ``account`` (the exchange is the
    whole record) request parameters are kept as ``gen_ai.request.*`` and the keys not read named in
    ``ctxviewer.unmapped`` (:mod:`.exchange_account`); without it (a body inside another format,
    which accounts for its record itself) only :data:`SHARED_PARAMS` are kept. Raises
    ``ValueError`` when the API cannot be told or the request body is not a JSON object."""
    req, resp = http_body(request), http_body(response)
    status = _status(response)
    uri = uri or (request.get("uri") or request.get("url") if isinstance(request, Mapping) else None)
    warnings: list[str] = []
    events = sse_events(resp) if isinstance(resp, str) else (resp if isinstance(resp, list) else None)
    api = api_of(uri, req, resp)
    if api is None:
        raise ValueError("not an OpenAI or Anthropic API exchange (no messages, input or choices)")
    if not isinstance(req, Mapping):
        raise ValueError("request body is not a JSON object")
    if events is not None:
        resp = pm.assemble_chat_stream(events) if api == "openai-chat" else (
            _anthropic_stream(events) if api == "anthropic" else (events[-1].get("response") if events and isinstance(events[-1], Mapping) else {}))
        if api == "openai-chat" and "usage" not in (resp or {}):
            warnings.append("stream without a final usage chunk: usage not reported")
    r: Mapping[str, Any] = resp if isinstance(resp, Mapping) else {}
    call = LLMCall(trace_id=str(r.get("id") or trace_id), source_format=fmt,
                   model=pm._str(req.get("model")), response_model=pm._str(r.get("model")),
                   response_id=pm._str(r.get("id")),
                   request_body=json.dumps(req, ensure_ascii=False))
    call.max_tokens = pm.int_or_none(req.get("max_tokens", req.get("max_completion_tokens", req.get("max_output_tokens"))))
    call.tools = pm.openai_tool_definitions(req.get("tools"))
    if api == "openai-chat":
        call.provider = "openai"
        call.messages = [pm.openai_message(m) for m in req.get("messages") or []]
        choices = [c for c in r.get("choices") or [] if isinstance(c, Mapping)]
        call.output = [dict(pm.openai_message(c.get("message") or {}), finish_reason=c.get("finish_reason"))
                       for c in choices] or None
        call.output_field = "response.choices"  # the choices warning names the exchange's own field
        call.usage = pm.openai_chat_usage(r.get("usage"))
        warnings += pm.bad_counts(r.get("usage"), "usage")
        call.created = _epoch(r.get("created"))
    elif api == "openai-responses":
        call.provider = "openai"
        call.system, call.messages = pm.responses_input(req.get("instructions"), req.get("input"))
        if r.get("output") is not None:
            out = pm.responses_output(r.get("output"))
            has_call = any(p.get("type") == "tool_call" for p in out["parts"])
            out["finish_reason"] = "tool_calls" if has_call else r.get("status")
            call.output = [out]
            ran = [{k: v for k, v in (("type", o.get("type")), ("id", o.get("id")), ("status", o.get("status")),
                                      ("query", (o.get("action") or {}).get("query") if isinstance(o.get("action"), Mapping)
                                       else None)) if v is not None}
                   for o in r["output"] if isinstance(o, Mapping) and o.get("type") in SERVER_TOOL_TYPES]
            if ran:
                call.attributes[SERVER_TOOLS_KEY] = ran
        call.usage = pm.openai_chat_usage(r.get("usage"))
        warnings += pm.bad_counts(r.get("usage"), "usage")
        call.created = _epoch(r.get("created_at"))
        call.ended = _epoch(r.get("completed_at"))
        if req.get("previous_response_id"):
            call.attributes["openai.previous_response_id"] = req["previous_response_id"]
            warnings.append(f"previous_response_id {req['previous_response_id']}: earlier turns are held "
                            "server-side and are not in this request")
        if req.get("reasoning"):
            call.attributes["openai.request.reasoning"] = req["reasoning"]
    else:
        call.provider = "anthropic"
        call.system = pm.anthropic_system(req.get("system"))
        call.messages = [pm.anthropic_message(m) for m in req.get("messages") or []]
        if r.get("content") is not None:
            out = pm.anthropic_message({"role": r.get("role") or "assistant", "content": r.get("content")})
            out["finish_reason"] = r.get("stop_reason")
            call.output = [out]
        call.usage = pm.anthropic_usage(r.get("usage"))
        hour = r["usage"].get("cache_creation") if isinstance(r.get("usage"), Mapping) else None
        one_hour = pm.int_or_none(hour.get("ephemeral_1h_input_tokens")) if isinstance(hour, Mapping) else None
        if one_hour:
            call.attributes[CACHE_1H_KEY] = one_hour
        warnings += pm.bad_counts(r.get("usage"), "usage")
    if status is not None:
        call.attributes["http.response.status_code"] = status
        if status >= 400:
            err = r.get("error")
            call.status = "error"
            call.status_message = (err.get("message") if isinstance(err, Mapping) else pm._str(err)) or f"HTTP {status}"
        else:
            call.status = "ok"
    if not account:
        call.attributes.update({f"gen_ai.request.{k}": req[k] for k in SHARED_PARAMS if req.get(k) is not None})
        return call, warnings
    params, unmapped = request_attributes(api, req)
    call.attributes.update(params)
    call.user_id = _user_of(req)
    for k in RESPONSE_KEPT:
        if r.get(k) not in (None, "", {}):
            call.attributes[f"gen_ai.response.{k}"] = r[k]
    unmapped = http_unmapped(request, "request") + unmapped + http_unmapped(response, "response")
    call.attributes.update(unmapped_attribute(unmapped + response_unmapped(api, req, r)))
    return call, warnings


def _user_of(req: Mapping[str, Any]) -> str | None:
    """The end user the request names: OpenAI ``user`` / ``safety_identifier``, Anthropic
    ``metadata.user_id``; ``None`` if none."""
    meta = req.get("metadata")
    for v in (req.get("user"), req.get("safety_identifier"), meta.get("user_id") if isinstance(meta, Mapping) else None):
        if isinstance(v, str) and v:
            return v
    return None


def load_exchanges(path: Path, pairs: Iterator[tuple[str, Any, Any]], fmt: str) -> Iterator[Record]:
    """Traces (and warnings as problems) for ``(record, request, response)`` triples."""
    file = str(path)
    found = 0
    for record, req, resp in pairs:
        try:
            call, warnings = call_from_exchange(req, resp, f"{path.name}#{record}", fmt=fmt)
            trace, more = build_trace(call)
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            yield ImportProblem(file, record, str(exc), dropped=1)
            continue
        found += 1
        yield trace
        for w in warnings + more:
            yield ImportProblem(file, record, w)
    if not found:
        yield ImportProblem(file, "whole file", "no request/response exchanges found")


