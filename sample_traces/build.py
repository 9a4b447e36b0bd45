"""Helpers that turn sample content into :class:`~ctxviewer.model.trace.RequestTrace` objects.

Every item's ``tokens`` is the cl100k_base count of its ``content``; positions are assigned over
the retained items in final order; the serialized request is the OpenAI Chat Completions body the
support assistant would have sent, built from the retained items only.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from ctxviewer.model.trace import (
    Category,
    ContextItem,
    Endpoint,
    Kind,
    LimitMode,
    Policy,
    RequestTrace,
    Response,
    SerializedRequest,
    SourceRef,
    Status,
    Trust,
    Usage,
)

from .fitting import ENCODING, ntok

MODEL = "gpt-4o-mini-2024-07-18"
SERVICE = "support-assistant"
POLICY_ID = "support-policy"
POLICY_VERSION = "2026-10-03"
ACCOUNTING = (
    "cl100k_base count of each item's text; chat-template and tool-schema framing are covered "
    "by the safety margin"
)
PRIO_REQUIRED = 100.0
"""Priority of the required items (policy and user request); optional items rank below it."""


def utc(text: str) -> datetime:
    """Parse ``YYYY-MM-DDTHH:MM:SS[.fff]`` as an aware UTC time."""
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def endpoint(capacity: int) -> Endpoint:
    """The support assistant's endpoint with an application-level shared capacity ``capacity``."""
    return Endpoint(
        provider="openai",
        model=MODEL,
        capacity=capacity,
        limit_mode=LimitMode.SHARED,
        encoding=ENCODING,
        accounting_rule=ACCOUNTING,
    )


def policy(version: str = POLICY_VERSION, available: bool = True) -> Policy:
    """The support policy reference (id ``support-policy``)."""
    return Policy(id=POLICY_ID, version=version, available=available)


def item(
    kind: Kind,
    item_id: str,
    content: str,
    priority: float,
    *,
    source: SourceRef | None = None,
    role: str | None = None,
    omitted: str | None = None,
) -> ContextItem:
    """A context item whose token count is measured from ``content``.

    ``omitted`` is the omission reason; when given the item is ``omitted``, else ``retained``.
    Only the policy is trusted; everything else is untrusted data (chapter 3.5).
    """
    assert "«" not in content and "»" not in content, f"unresolved optional phrase in {item_id}"
    return ContextItem(
        kind=kind,
        id=item_id,
        content=content,
        status=Status.OMITTED if omitted else Status.RETAINED,
        tokens=ntok(content),
        priority=priority,
        trust=Trust.TRUSTED if kind is Kind.POLICY else Trust.UNTRUSTED,
        source=source,
        omission_reason=omitted,
        role=role,
    )


def finalize(items: Iterable[ContextItem]) -> tuple[ContextItem, ...]:
    """Number the retained items 1..n in order; omitted items get ``position=None``."""
    out: list[ContextItem] = []
    pos = 0
    for it in items:
        if it.status is Status.RETAINED:
            pos += 1
            out.append(_replace(it, position=pos))
        else:
            out.append(_replace(it, position=None))
    ids = [i.id for i in out]
    assert len(ids) == len(set(ids)), f"duplicate item ids: {ids}"
    return tuple(out)


def _replace(it: ContextItem, **kw: Any) -> ContextItem:
    from dataclasses import replace

    return replace(it, **kw)


def _document(it: ContextItem) -> str:
    src = it.source or SourceRef()
    attrs = f'id="{src.document_id or it.id}" source="{src.store or "unknown"}" trust="untrusted"'
    return f"<document {attrs}>\n{it.content}\n</document>"


def messages(items: Iterable[ContextItem]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Chat messages and tool definitions built from the retained items, in order."""
    msgs: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    for it in items:
        if it.status is not Status.RETAINED:
            continue
        if it.kind is Kind.TOOL:
            tools.append({"type": "function", "function": json.loads(it.content or "{}")})
        elif it.kind is Kind.POLICY:
            msgs.append({"role": "system", "content": it.content})
        elif it.kind in (Kind.EVIDENCE, Kind.SUMMARY, Kind.MEMORY):
            msgs.append({"role": "user", "content": _document(it)})
        else:
            msgs.append({"role": it.role or "user", "content": it.content})
    return msgs, tools


def request_body(
    items: Iterable[ContextItem],
    max_tokens: int,
    *,
    user: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The Chat Completions request body as sent (model, messages, tools, parameters)."""
    msgs, tools = messages(items)
    body: dict[str, Any] = {"model": MODEL, "messages": msgs}
    if tools:
        body["tools"] = tools
        body["tool_choice"] = "auto"
    body["max_tokens"] = max_tokens
    body["temperature"] = 0.2
    if user:
        body["user"] = user
    body.update(extra or {})
    return body


def serialized(body: Mapping[str, Any], redacted: tuple[str, ...] = ()) -> SerializedRequest:
    """The serialized request; exact replay is possible only when nothing was redacted."""
    text = json.dumps(body, ensure_ascii=False, indent=1)
    return SerializedRequest(
        content=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        exact_replay=not redacted,
        redacted_fields=redacted,
    )


def provider_usage(body: Mapping[str, Any], items: Iterable[ContextItem], output: str, cached: int = 0) -> Usage:
    """Usage as the provider would report it: item text plus per-message and per-tool framing."""
    text_tokens = sum(i.tokens or 0 for i in items if i.status is Status.RETAINED)
    framing = 4 * len(body["messages"]) + 3 + 9 * len(body.get("tools", []))
    return Usage(
        input_tokens=text_tokens + framing,
        output_tokens=ntok(output),
        cached_input_tokens=cached,
        reasoning_tokens=None,
    )


def response(trace_id: str, text: str, finish: str = "stop") -> Response:
    """A response with a deterministic provider id derived from ``trace_id``."""
    rid = "chatcmpl-" + hashlib.sha256(trace_id.encode()).hexdigest()[:24]
    return Response(text=text, finish_reason=finish, model=MODEL, id=rid)


def budget(**kw: int) -> dict[Category, int]:
    """Declared budget from keyword categories: ``budget(sys=800, hist=1200, ...)``."""
    return {Category(k): v for k, v in kw.items()}


def trace(
    trace_id: str,
    created: str,
    capacity: int,
    items: Iterable[ContextItem],
    *,
    session_id: str,
    user_id: str,
    reserved_output: int,
    safety_margin: int | None,
    declared: Mapping[Category, int],
    answer: str,
    redacted: tuple[str, ...] = (),
    finish: str = "stop",
    extra_body: Mapping[str, Any] | None = None,
    pol: Policy | None = None,
    **kw: Any,
) -> RequestTrace:
    """Assemble a complete trace: positions, serialized request, usage, response.

    ``input_tokens`` is the application's count: the sum of the retained items' tokens.
    """
    final = finalize(items)
    users = [i for i in final if i.kind is Kind.USER]
    assert len(users) == 1, trace_id
    body = request_body(final, reserved_output, user=kw.pop("body_user", user_id), extra=extra_body)
    return RequestTrace(
        trace_id=trace_id,
        created=utc(created),
        endpoint=endpoint(capacity),
        policy=pol or policy(),
        user_request=users[0].content,
        items=final,
        service=SERVICE,
        session_id=session_id,
        user_id=user_id,
        budget=dict(declared),
        reserved_output_tokens=reserved_output,
        input_tokens=sum(i.tokens or 0 for i in final if i.status is Status.RETAINED),
        safety_margin=safety_margin,
        usage=provider_usage(body, final, answer),
        request=serialized(body, redacted),
        response=response(trace_id, answer, finish),
        source_format="native",
        **kw,
    )
