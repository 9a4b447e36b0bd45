"""The request a replay sends: the stored body when it was kept and fits the endpoint, else rebuilt
from the items.

:func:`plan_request` decides:

1. the stored body (``SerializedRequest.content``) when it is a JSON object of the endpoint's shape
   (:func:`body_shape`: ``input`` -> Responses; ``messages`` with a top-level ``system``,
   ``max_tokens`` and Anthropic content blocks or an ``anthropic`` provider -> Messages; other
   ``messages`` -> Chat Completions, which OpenAI-compatible servers speak too). Its bytes are
   sent unchanged unless a setting must change: the endpoint's ``model``, an override
   (temperature, seed, max tokens), or ``stream`` (set to false: the answer is read whole); each
   change is named in :attr:`RequestPlan.changed`;
2. else the items (:func:`ctxviewer.replay.conversation.conversation_of`, rendered by
   :func:`ctxviewer.replay.shapes.render`), with the recorded settings (:func:`recorded_params`).

Temperature, seed and top_p are sent as recorded (the stored body's, else the trace's
``gen_ai.request.*`` attributes or ``llm.invocation_parameters``) unless overridden; max tokens
as recorded, else the trace's reserved output B_out. A trace whose record says it cannot be
replayed exactly (``exact_replay`` false, redacted fields) is sent as recorded, and
:attr:`RequestPlan.inexact` says why and which fields. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from ctxviewer.model.trace import RequestTrace
from ctxviewer.replay.conversation import conversation_of
from ctxviewer.replay.endpoints import EndpointConfig, EndpointError
from ctxviewer.replay.shapes import render

PARAMS = ("temperature", "seed", "top_p")
"""The sampling settings carried from the recording (or overridden)."""
_MAX_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


@dataclass(frozen=True)
class RequestPlan:
    """The request to send and how it was made."""

    body: bytes
    """The exact bytes to POST (UTF-8 JSON)."""
    source: str
    """``"stored body"`` or ``"rebuilt from the items"``."""
    changed: tuple[str, ...]
    """Fields of the stored body that were changed (``model``, ``temperature``, ``stream``, ...)."""
    notes: tuple[str, ...]
    """What was assumed or could not be carried, in words."""
    inexact: str | None
    """Why the replay is not the recorded request, or ``None`` when it is byte for byte."""

    @property
    def doc(self) -> dict[str, Any]:
        """The body parsed."""
        value: dict[str, Any] = json.loads(self.body)
        return value


def shape_family(kind: str) -> str:
    """``chat``, ``responses`` or ``messages`` for an endpoint kind."""
    return {"openai-responses": "responses", "anthropic-messages": "messages"}.get(kind, "chat")


def body_shape(doc: Any, provider: str | None) -> str | None:
    """``chat`` / ``responses`` / ``messages`` for a stored body (module docstring), ``None`` for
    anything else."""
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("input"), (list, str)) and "messages" not in doc:
        return "responses"
    msgs = doc.get("messages")
    if not isinstance(msgs, list):
        return None
    blocks = {b.get("type") for m in msgs if isinstance(m, dict) and isinstance(m.get("content"), list)
              for b in m["content"] if isinstance(b, dict)}
    if (provider or "").lower() == "anthropic" or "system" in doc or blocks & {"tool_use", "tool_result"}:
        return "messages"
    return "chat"


def unpaired_tools(doc: Mapping[str, Any], family: str) -> list[str]:
    """Where a stored body breaks the provider's tool pairing rule, which the provider refuses:
    a Chat ``tool`` message that answers no preceding ``tool_calls`` id (``"messages[8]"``), an
    Anthropic ``tool_use`` with no ``tool_result`` in the next turn. Empty when none."""
    out: list[str] = []
    raw = doc.get("messages")
    msgs: list[Any] = raw if isinstance(raw, list) else []
    ids: set[Any] = set()
    for i, m in enumerate(msgs):
        if not isinstance(m, dict):
            continue
        if family == "chat":
            ids |= {c.get("id") for c in m.get("tool_calls") or [] if isinstance(c, dict)}
            if m.get("role") == "tool" and m.get("tool_call_id") not in ids:
                out.append(f"messages[{i}]")
        elif family == "messages" and isinstance(m.get("content"), list):
            uses = {b.get("id") for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}
            nxt = msgs[i + 1].get("content") if i + 1 < len(msgs) and isinstance(msgs[i + 1], dict) else None
            got = {b.get("tool_use_id") for b in nxt if isinstance(b, dict)} if isinstance(nxt, list) else set()
            if uses - got:
                out.append(f"messages[{i}]")
    return out


def recorded_params(trace: RequestTrace, doc: Mapping[str, Any] | None) -> tuple[dict[str, Any], int | None]:
    """``(settings, max_tokens)`` as recorded: :data:`PARAMS` found in the stored body, else in the
    trace's attributes; max tokens likewise, else the reserved output B_out; ``None`` if none."""
    attrs = trace.attributes
    inv = attrs.get("llm.invocation_parameters")
    sources: list[Mapping[str, Any]] = [doc or {}, inv if isinstance(inv, Mapping) else {},
                                        {k.removeprefix("gen_ai.request."): v for k, v in attrs.items()
                                         if isinstance(k, str) and k.startswith("gen_ai.request.")}]
    params: dict[str, Any] = {}
    max_tokens: int | None = None
    for src in reversed(sources):  # the stored body last, so it wins
        params.update({k: src[k] for k in PARAMS if isinstance(src.get(k), (int, float)) and not isinstance(src.get(k), bool)})
        for k in _MAX_KEYS:
            if type(src.get(k)) is int:
                max_tokens = src[k]
    return params, max_tokens if max_tokens is not None else trace.reserved_output_tokens


def _inexact(trace: RequestTrace, source: str) -> str | None:
    req = trace.request
    if req.redacted_fields:
        noun = "field" if len(req.redacted_fields) == 1 else "fields"
        return (f"cannot be replayed exactly: {noun} {', '.join(req.redacted_fields)} redacted in the record "
                "(sent as the log kept them)")
    if req.exact_replay is False:
        return "cannot be replayed exactly: the record says so (exact_replay false)"
    if source != "stored body":
        return "the serialized request was not kept: rebuilt from the items, not byte for byte the original"
    return None


def plan_request(trace: RequestTrace, ep: EndpointConfig, overrides: Mapping[str, Any] | None = None,
                 *, from_items: bool = False) -> RequestPlan:
    """The :class:`RequestPlan` for replaying ``trace`` on ``ep`` (module docstring). ``overrides`` maps
    ``temperature`` / ``seed`` / ``top_p`` / ``max_tokens`` to the values to send instead;
    ``from_items`` rebuilds from the items even when a body was kept (a what-if, a position
    variant). Raises :class:`~ctxviewer.replay.endpoints.EndpointError` when no model is known."""
    overrides = dict(overrides or {})
    model = ep.model or trace.endpoint.model
    doc: Any = None
    if trace.request.content is not None and not from_items:
        try:
            doc = json.loads(trace.request.content)
        except ValueError:
            doc = None
    notes = []
    broken = unpaired_tools(doc, shape_family(ep.kind)) if isinstance(doc, dict) else []
    if broken:
        notes.append(f"the stored body breaks the provider's tool-call pairing at {', '.join(broken[:5])}"
                     f"{' …' if len(broken) > 5 else ''} (the provider refuses it); rebuilt from the items")
    if body_shape(doc, trace.endpoint.provider) == shape_family(ep.kind) and not broken:
        changed = []
        new = dict(doc)
        want = {**({"model": ep.model} if ep.model else {}), **{k: v for k, v in overrides.items() if k in PARAMS}}
        if "max_tokens" in overrides:
            key = next((k for k in _MAX_KEYS if k in new), "max_output_tokens" if ep.kind == "openai-responses" else "max_tokens")
            want[key] = overrides["max_tokens"]
        if new.get("stream") is True:
            want["stream"] = False
        for k, v in want.items():
            if new.get(k) != v:
                new[k] = v
                changed.append(k)
        assert trace.request.content is not None
        body = (json.dumps(new, ensure_ascii=False) if changed else trace.request.content).encode("utf-8")
        notes = ["stream set to false: the answer is read whole"] if "stream" in changed else []
        return RequestPlan(body, "stored body", tuple(changed), tuple(notes), _inexact(trace, "stored body"))
    if model is None:
        raise EndpointError(f"endpoint {ep.name}: no model configured and trace {trace.trace_id} records none; "
                            "set model in its [endpoint] table")
    if trace.request.content is not None and not from_items and not broken:
        notes.append(f"the stored body is not a {shape_family(ep.kind)} request; rebuilt from the items for {ep.kind}")
    params, max_tokens = recorded_params(trace, doc if isinstance(doc, dict) else None)
    params.update({k: v for k, v in overrides.items() if k in PARAMS})
    if "max_tokens" in overrides:
        max_tokens = overrides["max_tokens"]
    conv = conversation_of(trace)
    rendered, shape_notes = render(conv, ep.kind, model, max_tokens, params)
    return RequestPlan(json.dumps(rendered, ensure_ascii=False).encode("utf-8"), "rebuilt from the items", (),
                       tuple(notes + list(conv.notes) + shape_notes), _inexact(trace, "items"))
