"""The public builder: candidates in, the request and its selection record (a RequestTrace) out.

    builder = Builder("gpt-4o", capacity=8000, reserved_output_tokens=1200)
    result = builder.build(candidates, policy_version="v3", caps={Category.EVIDENCE: 3000})
    result.request          # the chat body to send
    result.selection()      # the chapter's record: policy_version, retained, omitted, input_tokens, ...
    result.trace            # the same record as the trace database stores it (RequestTrace)

The builder keeps its per-encoding counts between calls, so building again with other limits,
caps or priorities (a what-if, a slider) re-trims from cached counts. No Qt here.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

from ctxviewer.builder.candidates import BuildError, Candidate
from ctxviewer.builder.rules import ChatRule, CountingRule, TextRule
from ctxviewer.builder.trim import Trim, trim
from ctxviewer.model.trace import (
    Category,
    ContextItem,
    Endpoint,
    Kind,
    LimitMode,
    Policy,
    RequestTrace,
    SerializedRequest,
    Status,
    TokenProvenance,
    TokenSource,
    Trust,
)


@dataclass(frozen=True)
class BuildResult:
    """A built request and its selection record."""

    request: Any
    """The serialized request (a chat body dict for :class:`ChatRule`, a string for :class:`TextRule`)."""
    trace: RequestTrace
    """The selection record as the trace database stores it: items in final order, retained and
    omitted with reasons, input tokens, reserved output tokens, policy version."""
    trim: Trim
    candidates: tuple[Candidate, ...]

    @property
    def input_tokens(self) -> int:
        """Input tokens of the request by the endpoint's rule."""
        return self.trim.input_tokens

    def selection(self) -> dict[str, Any]:
        """The chapter's selection record (section 3.3): ``policy_version``, ``retained``,
        ``omitted`` (with ``reason``), ``input_tokens``, ``reserved_output_tokens``."""
        t = self.trace
        return {
            "policy_version": t.policy.version,
            "retained": [{"kind": i.kind.value, "id": i.id} for i in t.retained],
            "omitted": [{"kind": i.kind.value, "id": i.id, "reason": i.omission_reason} for i in t.omitted],
            "input_tokens": t.input_tokens,
            "reserved_output_tokens": t.reserved_output_tokens,
        }


class Builder:
    """Builds requests for one endpoint by the chapter 3.3 rules (see :mod:`.trim`).

    ``capacity`` (C, tokens) defaults to the model's profile; ``reserved_output_tokens`` is B_out.
    ``rule`` is ``"chat"`` (default: the endpoint's chat accounting), ``"text"`` (one rendered
    prompt) or a :class:`~.rules.CountingRule`. Raises :class:`BuildError` when the reserve does not leave
    a positive input budget or no capacity is known.
    """

    def __init__(self, model: str | None = None, *, capacity: int | None = None,
                 reserved_output_tokens: int = 1200, encoding: str | None = None,
                 rule: str | CountingRule = "chat", safety_margin: int | None = None,
                 provider: str | None = None) -> None:
        chat = ChatRule(model, encoding)
        self.model, self.provider = model, provider or chat.resolution.profile.provider
        self.rule: CountingRule = chat if rule == "chat" else TextRule(chat.encoding) if rule == "text" else rule  # type: ignore[assignment]
        self.capacity = capacity if capacity is not None else chat.resolution.profile.capacity
        self.reserved_output_tokens = reserved_output_tokens
        self.safety_margin = safety_margin
        self.max_input_tokens = input_budget(self.capacity, reserved_output_tokens)

    def build(self, candidates: Sequence[Candidate], *, policy_id: str | None = None,
              policy_version: str | None = None, caps: Mapping[Category, int] | None = None,
              trace_id: str | None = None, replay_of: str | None = None,
              service: str | None = None) -> BuildResult:
        """Trim ``candidates`` (in final order) and serialize what is kept.

        Raises :class:`~.candidates.RequiredOverBudgetError` (the overrun in tokens) when the
        required items alone are over the input budget; nothing is built then.
        """
        cands = tuple(candidates)
        ids = [c.id for c in cands]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise BuildError(f"candidate id {dup!r} appears more than once")
        t = trim(cands, self.rule, self.max_input_tokens, caps)
        kept = [c for c, k in zip(cands, t.kept) if k]
        request = self.rule.serialize(kept)
        trace = self._trace(cands, t, request, policy_id, policy_version, caps, trace_id, replay_of, service)
        return BuildResult(request, trace, t, cands)

    def _trace(self, cands: Sequence[Candidate], t: Trim, request: Any, policy_id: str | None,
               policy_version: str | None, caps: Mapping[Category, int] | None, trace_id: str | None,
               replay_of: str | None, service: str | None) -> RequestTrace:
        prov = TokenProvenance(TokenSource.COUNTED, self.rule.encoding)
        items, pos = [], 0
        for k, c in enumerate(cands):
            if t.kept[k]:
                pos += 1
            items.append(ContextItem(
                kind=c.kind, id=c.id, content=c.text,
                status=Status.RETAINED if t.kept[k] else Status.OMITTED,
                tokens=self.rule.cost(c), position=pos if t.kept[k] else None, priority=c.priority,
                trust=Trust.TRUSTED if c.kind is Kind.POLICY else Trust.UNTRUSTED,
                omission_reason=t.reasons.get(k), role=c.chat_role, tokens_provenance=prov))
        body = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
        user = next((c.text for c in reversed(cands) if c.kind is Kind.USER), None)
        budget: dict[Category, int] = dict(caps or {})
        budget[Category.OUT] = self.reserved_output_tokens
        return RequestTrace(
            trace_id=trace_id or f"build-{uuid.uuid4().hex[:12]}",
            created=datetime.now(timezone.utc),
            endpoint=Endpoint(provider=self.provider, model=self.model, capacity=self.capacity,
                              limit_mode=LimitMode.SHARED, encoding=self.rule.encoding,
                              accounting_rule=self.rule.description),
            policy=Policy(id=policy_id, version=policy_version, available=True),
            user_request=user, items=tuple(items), service=service, replay_of=replay_of,
            budget=budget, reserved_output_tokens=self.reserved_output_tokens,
            input_tokens=t.input_tokens, safety_margin=self.safety_margin,
            request=SerializedRequest(content=body, sha256=hashlib.sha256(body.encode()).hexdigest(),
                                      exact_replay=True),
            source_format="builder",
            attributes={"ctxviewer.builder.removed_order": [cands[i].id for i in t.removed]},
        )


def input_budget(capacity: int | None, reserved_output_tokens: int) -> int:
    """C - B_out in tokens. Raises :class:`BuildError` in words when C is unknown or not positive,
    or the reserve does not leave a positive input budget (chapter 3.3's first check)."""
    if capacity is None:
        raise BuildError("context capacity not known for this model: pass capacity=")
    if capacity <= 0:
        raise BuildError(f"context capacity must be positive, got {capacity:,} tokens")
    if not 0 <= reserved_output_tokens < capacity:
        raise BuildError(f"reserved output {reserved_output_tokens:,} tokens leaves no input budget "
                         f"in the {capacity:,}-token context window")
    return capacity - reserved_output_tokens
