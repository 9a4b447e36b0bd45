"""Plain-JSON form of a :class:`~ctxviewer.model.RequestTrace` (the native trace format's record).

``trace_to_dict`` and ``trace_from_dict`` are exact inverses for every trace the model can hold.
The dict uses only JSON types; enums are their string values, ``created`` is ISO-8601 UTC with a
``Z`` suffix, ``budget`` maps category names (``sys``, ``hist``, ``memory``, ``evidence``,
``tools``, ``user``, ``out``) to tokens. Missing keys mean "not recorded" (``None``).

Errors: :func:`trace_from_dict` raises :class:`TraceFormatError` naming the JSON path of the
offending field (``items[3].status: 'kept' is not one of retained, omitted``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable, TypeVar

from .model import (
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
    TokenProvenance,
    TokenSource,
    ToolCall,
    ToolCheck,
    ToolVerdict,
    Trust,
    Usage,
    ValidationResult,
)

E = TypeVar("E")


class TraceFormatError(ValueError):
    """A trace record is malformed. ``path`` is the JSON path of the bad field ("" for the root)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None and v != () and v != {}}


def format_created(dt: datetime | None) -> str | None:
    """ISO-8601 UTC with ``Z`` and millisecond precision, e.g. ``2026-11-02T09:14:05.120Z``."""
    if dt is None:
        return None
    dt = dt.astimezone(timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_created(value: Any, path: str = "created") -> datetime | None:
    """Parse an ISO-8601 time into aware UTC. Naive times are taken as UTC.

    Raises :class:`TraceFormatError` if ``value`` is not an ISO-8601 string.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise TraceFormatError(path, f"expected an ISO-8601 string, got {type(value).__name__}")
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise TraceFormatError(path, f"{value!r} is not an ISO-8601 time") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def _source_to_dict(s: SourceRef | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return _drop_none(
        {"store": s.store, "document_id": s.document_id, "url": s.url, "turn": s.turn}
    ) or None


def item_to_dict(it: ContextItem) -> dict[str, Any]:
    """JSON form of one context item."""
    p = it.tokens_provenance
    return _drop_none(
        {
            "kind": it.kind.value,
            "id": it.id,
            "status": it.status.value,
            "position": it.position,
            "priority": it.priority,
            "trust": it.trust.value,
            "tokens": it.tokens,
            "tokens_provenance": None if p is None else _drop_none({"source": p.source.value, "encoding": p.encoding}),
            "omission_reason": it.omission_reason,
            "role": it.role,
            "source": _source_to_dict(it.source),
            "content": it.content,
        }
    )


def trace_to_dict(t: RequestTrace) -> dict[str, Any]:
    """JSON form of a request trace (one line of the native JSON Lines format)."""
    ep = t.endpoint
    return _drop_none(
        {
            "trace_id": t.trace_id,
            "created": format_created(t.created),
            "service": t.service,
            "session_id": t.session_id,
            "user_id": t.user_id,
            "replay_of": t.replay_of,
            "endpoint": _drop_none(
                {
                    "provider": ep.provider,
                    "model": ep.model,
                    "capacity": ep.capacity,
                    "limit_mode": ep.limit_mode.value if ep.limit_mode else None,
                    "max_input_tokens": ep.max_input_tokens,
                    "max_output_tokens": ep.max_output_tokens,
                    "encoding": ep.encoding,
                    "accounting_rule": ep.accounting_rule,
                }
            ),
            "policy": _drop_none(
                {"id": t.policy.id, "version": t.policy.version, "available": t.policy.available}
            ),
            "user_request": t.user_request,
            "budget": {c.value: v for c, v in t.budget.items()},
            "reserved_output_tokens": t.reserved_output_tokens,
            "input_tokens": t.input_tokens,
            "safety_margin": t.safety_margin,
            "usage": _drop_none(
                {
                    "input_tokens": t.usage.input_tokens,
                    "output_tokens": t.usage.output_tokens,
                    "cached_input_tokens": t.usage.cached_input_tokens,
                    "cache_creation_input_tokens": t.usage.cache_creation_input_tokens,
                    "reasoning_tokens": t.usage.reasoning_tokens,
                }
            ),
            "request": _drop_none(
                {
                    "content": t.request.content,
                    "sha256": t.request.sha256,
                    "exact_replay": t.request.exact_replay,
                    "redacted_fields": list(t.request.redacted_fields) or None,
                }
            ),
            "response": _drop_none(
                {
                    "text": t.response.text,
                    "finish_reason": t.response.finish_reason,
                    "model": t.response.model,
                    "id": t.response.id,
                }
            )
            if t.response
            else None,
            "tool_calls": [
                _drop_none(
                    {
                        "name": c.name,
                        "arguments": c.arguments,
                        "id": c.id,
                        "verdict": c.verdict.value if c.verdict else None,
                        "decided_by": c.decided_by,
                        "checks": [
                            _drop_none(
                                {"check": k.check, "passed": k.passed, "rule": k.rule, "detail": k.detail}
                            )
                            for k in c.checks
                        ]
                        or None,
                    }
                )
                for c in t.tool_calls
            ]
            or None,
            "validations": [
                _drop_none({"check": v.check, "passed": v.passed, "detail": v.detail})
                for v in t.validations
            ]
            or None,
            "source_format": t.source_format,
            "attributes": dict(t.attributes) or None,
            "items": [item_to_dict(i) for i in t.items],
        }
    )


# ---------------------------------------------------------------- reading


def _obj(v: Any, path: str) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise TraceFormatError(path, f"expected an object, got {type(v).__name__}")
    return v


def _opt(d: dict[str, Any], key: str, typ: type | tuple[type, ...], path: str) -> Any:
    v = d.get(key)
    if v is None:
        return None
    if typ is int and isinstance(v, bool):
        raise TraceFormatError(f"{path}.{key}".lstrip("."), "expected an integer, got a boolean")
    if typ in (int, (int, float)) and isinstance(v, bool):
        raise TraceFormatError(f"{path}.{key}".lstrip("."), "expected a number, got a boolean")
    if not isinstance(v, typ):
        want = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise TraceFormatError(f"{path}.{key}".lstrip("."), f"expected {want}, got {type(v).__name__}")
    if typ is int and isinstance(v, int) and v < 0:
        raise TraceFormatError(f"{path}.{key}".lstrip("."), f"token counts cannot be negative ({v})")
    return v


def _enum(cls: Callable[[str], E], v: Any, path: str, *, required: bool = False) -> E | None:
    if v is None:
        if required:
            raise TraceFormatError(path, "is required")
        return None
    try:
        return cls(v)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)  # type: ignore[attr-defined]
        raise TraceFormatError(path, f"{v!r} is not one of {allowed}") from None


def item_from_dict(d: Any, path: str) -> ContextItem:
    """Parse one item. Raises :class:`TraceFormatError` (with ``path``) when malformed."""
    d = _obj(d, path)
    kind = _enum(Kind, d.get("kind"), f"{path}.kind", required=True)
    item_id = d.get("id")
    if not isinstance(item_id, str) or not item_id:
        raise TraceFormatError(f"{path}.id", "is required (a non-empty string)")
    src = _obj(d.get("source"), f"{path}.source")
    source = (
        SourceRef(
            store=_opt(src, "store", str, f"{path}.source"),
            document_id=_opt(src, "document_id", str, f"{path}.source"),
            url=_opt(src, "url", str, f"{path}.source"),
            turn=_opt(src, "turn", int, f"{path}.source"),
        )
        if src
        else None
    )
    assert kind is not None
    ppath = f"{path}.tokens_provenance"
    prov = _obj(d.get("tokens_provenance"), ppath)
    default_trust = Trust.TRUSTED if kind is Kind.POLICY else Trust.UNTRUSTED
    return ContextItem(
        kind=kind,
        id=item_id,
        content=_opt(d, "content", str, path),
        status=_enum(Status, d.get("status", "retained"), f"{path}.status") or Status.RETAINED,
        tokens=_opt(d, "tokens", int, path),
        position=_opt(d, "position", int, path),
        priority=_opt(d, "priority", (int, float), path),
        trust=_enum(Trust, d.get("trust"), f"{path}.trust") or default_trust,
        source=source,
        omission_reason=_opt(d, "omission_reason", str, path),
        role=_opt(d, "role", str, path),
        tokens_provenance=TokenProvenance(_enum(TokenSource, prov.get("source"), f"{ppath}.source", required=True),  # type: ignore[arg-type]
                                          _opt(prov, "encoding", str, ppath)) if prov else None,
    )


def trace_from_dict(d: Any) -> RequestTrace:
    """Parse the JSON form back into a :class:`RequestTrace`.

    Required: ``trace_id`` (non-empty string) and ``items`` (a list, may be empty). Everything else
    may be missing and is then ``None`` (not recorded). Raises :class:`TraceFormatError`.
    """
    d = _obj(d, "")
    trace_id = d.get("trace_id")
    if not isinstance(trace_id, str) or not trace_id:
        raise TraceFormatError("trace_id", "is required (a non-empty string)")
    ep = _obj(d.get("endpoint"), "endpoint")
    pol = _obj(d.get("policy"), "policy")
    us = _obj(d.get("usage"), "usage")
    rq = _obj(d.get("request"), "request")
    budget_raw = _obj(d.get("budget"), "budget")
    budget: dict[Category, int] = {}
    for k in budget_raw:
        cat = _enum(Category, k, f"budget.{k}", required=True)
        assert cat is not None
        budget[cat] = _opt(budget_raw, k, int, "budget")
    items_raw = d.get("items", [])
    if not isinstance(items_raw, list):
        raise TraceFormatError("items", "expected a list")
    items = tuple(item_from_dict(x, f"items[{n}]") for n, x in enumerate(items_raw))
    seen: set[str] = set()
    for n, it in enumerate(items):
        if it.id in seen:
            raise TraceFormatError(f"items[{n}].id", f"duplicate item id {it.id!r}")
        seen.add(it.id)
    resp = d.get("response")
    response = None
    if resp is not None:
        r = _obj(resp, "response")
        response = Response(
            text=_opt(r, "text", str, "response"),
            finish_reason=_opt(r, "finish_reason", str, "response"),
            model=_opt(r, "model", str, "response"),
            id=_opt(r, "id", str, "response"),
        )
    calls = []
    for n, c in enumerate(d.get("tool_calls") or []):
        p = f"tool_calls[{n}]"
        c = _obj(c, p)
        name = c.get("name")
        if not isinstance(name, str) or not name:
            raise TraceFormatError(f"{p}.name", "is required")
        checks = tuple(
            ToolCheck(
                check=str(_obj(k, f"{p}.checks[{m}]").get("check") or ""),
                passed=_opt(k, "passed", bool, f"{p}.checks[{m}]"),
                rule=_opt(k, "rule", str, f"{p}.checks[{m}]"),
                detail=_opt(k, "detail", str, f"{p}.checks[{m}]"),
            )
            for m, k in enumerate(c.get("checks") or [])
        )
        calls.append(
            ToolCall(
                name=name,
                arguments=_opt(c, "arguments", str, p),
                id=_opt(c, "id", str, p),
                checks=checks,
                verdict=_enum(ToolVerdict, c.get("verdict"), f"{p}.verdict"),
                decided_by=_opt(c, "decided_by", str, p),
            )
        )
    validations = []
    for n, v in enumerate(d.get("validations") or []):
        p = f"validations[{n}]"
        v = _obj(v, p)
        passed = v.get("passed")
        if not isinstance(passed, bool):
            raise TraceFormatError(f"{p}.passed", "is required (true or false)")
        validations.append(
            ValidationResult(check=str(v.get("check") or ""), passed=passed, detail=_opt(v, "detail", str, p))
        )
    redacted = rq.get("redacted_fields") or []
    if not isinstance(redacted, list) or not all(isinstance(x, str) for x in redacted):
        raise TraceFormatError("request.redacted_fields", "expected a list of strings")
    attrs = _obj(d.get("attributes"), "attributes")
    return RequestTrace(
        trace_id=trace_id,
        created=parse_created(d.get("created")),
        service=_opt(d, "service", str, ""),
        session_id=_opt(d, "session_id", str, ""),
        user_id=_opt(d, "user_id", str, ""),
        replay_of=_opt(d, "replay_of", str, ""),
        endpoint=Endpoint(
            provider=_opt(ep, "provider", str, "endpoint"),
            model=_opt(ep, "model", str, "endpoint"),
            capacity=_opt(ep, "capacity", int, "endpoint"),
            limit_mode=_enum(LimitMode, ep.get("limit_mode"), "endpoint.limit_mode"),
            max_input_tokens=_opt(ep, "max_input_tokens", int, "endpoint"),
            max_output_tokens=_opt(ep, "max_output_tokens", int, "endpoint"),
            encoding=_opt(ep, "encoding", str, "endpoint"),
            accounting_rule=_opt(ep, "accounting_rule", str, "endpoint"),
        ),
        policy=Policy(
            id=_opt(pol, "id", str, "policy"),
            version=_opt(pol, "version", str, "policy"),
            available=_opt(pol, "available", bool, "policy"),
        ),
        user_request=_opt(d, "user_request", str, ""),
        items=items,
        budget=budget,
        reserved_output_tokens=_opt(d, "reserved_output_tokens", int, ""),
        input_tokens=_opt(d, "input_tokens", int, ""),
        safety_margin=_opt(d, "safety_margin", int, ""),
        usage=Usage(
            input_tokens=_opt(us, "input_tokens", int, "usage"),
            output_tokens=_opt(us, "output_tokens", int, "usage"),
            cached_input_tokens=_opt(us, "cached_input_tokens", int, "usage"),
            cache_creation_input_tokens=_opt(us, "cache_creation_input_tokens", int, "usage"),
            reasoning_tokens=_opt(us, "reasoning_tokens", int, "usage"),
        ),
        request=SerializedRequest(
            content=_opt(rq, "content", str, "request"),
            sha256=_opt(rq, "sha256", str, "request"),
            exact_replay=_opt(rq, "exact_replay", bool, "request"),
            redacted_fields=tuple(redacted),
        ),
        response=response,
        tool_calls=tuple(calls),
        validations=tuple(validations),
        source_format=_opt(d, "source_format", str, ""),
        attributes=attrs,
    )
