"""What-if: re-run the trimming of a recorded request under other budgets and priorities.

The candidates are the recorded trace's items in final order: retained items and items omitted for
budget (``budget``, ``rank``, ``cap:*``, ``trim`` or no reason). Items omitted for another reason
(``permission``, ``duplicate``, ...) were filtered before trimming and stay omitted. A
:class:`Scenario` changes capacity C, reserved output B_out, per-category caps, item priorities,
pins, positions, and adds hypothetical items; :func:`run` re-trims with the builder's rules
(:func:`ctxviewer.builder.trim`) and returns the new request trace (``replay_of`` the original) with
the changes against the recording and the eq. 3.1 verdict.

Counting: each item costs its recorded token count (or its content counted with the trace's
encoding; a hypothetical item is counted); the recorded serialization overhead
(``input_tokens`` minus the retained items' tokens) is kept as a constant, so the scenario's input is
comparable with the recording. No Qt here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from ctxviewer.assess.budget import CATEGORY_ORDER, check_capacity, verdict_text
from ctxviewer.builder import BuildError, Candidate, RequiredOverBudgetError, input_budget, trim
from ctxviewer.builder.trim import Trim
from ctxviewer.model.trace import (
    Category,
    ContextItem,
    Kind,
    RequestTrace,
    Status,
    TokenProvenance,
    TokenSource,
    Usage,
)
from ctxviewer.tokens.counting import DEFAULT_ENCODING, UnknownEncodingError, count_tokens

TRIM_REASONS = ("budget", "rank", "trim", "cap")
"""Omission reasons (prefixes) that make an omitted item a candidate again."""


@dataclass(frozen=True)
class Scenario:
    """Changes to a recorded request. ``None``/empty = as recorded. Tokens are tokens."""

    capacity: int | None = None
    reserve: int | None = None
    caps: Mapping[Category, int] = field(default_factory=dict)
    priorities: Mapping[str, float] = field(default_factory=dict)
    pinned: frozenset[str] = frozenset()
    unpinned: frozenset[str] = frozenset()
    moves: tuple[tuple[str, int], ...] = ()
    """(item id, new 0-based index among the candidates), applied in order."""
    added: tuple[Candidate, ...] = ()
    """Hypothetical items, appended before the current user request unless moved."""


@dataclass(frozen=True)
class ItemChange:
    """One item whose status changed, that was moved, or that the recording did not have. (A retained
    item whose rank only shifts because items before it were trimmed is not a change.)"""

    id: str
    kind: str
    before: str
    """``"retained #3"``, ``"omitted (budget)"`` or ``"not in the recording"``."""
    after: str


@dataclass(frozen=True)
class Outcome:
    """A scenario's result. ``trace`` is ``None`` when it could not be built (``error`` says why)."""

    scenario: Scenario
    original: RequestTrace
    trace: RequestTrace | None
    error: str | None
    changes: tuple[ItemChange, ...]
    category_delta: dict[Category, tuple[int, int]]
    """Category -> (recorded retained tokens, scenario retained tokens)."""
    verdict: str
    overrun: int | None = None
    """Tokens over the input budget when the required items alone do not fit."""
    before_trim: str | None = None
    """eq. 3.1 for every candidate kept, e.g. ``"before trimming: over capacity by 700 tokens: had
    6,800 tokens left, needed 7,500"``; ``None`` when it could not be computed."""

    def to_json(self) -> dict[str, object]:
        """JSON form for ``ctxviewer whatif --json``."""
        t = self.trace
        return {
            "original": self.original.trace_id,
            "error": self.error,
            "overrun": self.overrun,
            "verdict": self.verdict,
            "before_trim": self.before_trim,
            "selection": None if t is None else {
                "policy_version": t.policy.version,
                "retained": [{"kind": i.kind.value, "id": i.id} for i in t.retained],
                "omitted": [{"kind": i.kind.value, "id": i.id, "reason": i.omission_reason} for i in t.omitted],
                "input_tokens": t.input_tokens,
                "reserved_output_tokens": t.reserved_output_tokens,
                "capacity": t.endpoint.capacity,
            },
            "changes": [{"id": c.id, "kind": c.kind, "before": c.before, "after": c.after} for c in self.changes],
            "category_delta": {c.value: {"before": b, "after": a, "delta": a - b}
                               for c, (b, a) in self.category_delta.items()},
        }


class _ItemRule:
    """Additive rule over item token counts plus the recorded overhead (a builder CountingRule)."""

    description = "recorded item tokens plus the recorded serialization overhead"

    def __init__(self, encoding: str, costs: dict[str, int], overhead: int) -> None:
        self.encoding, self.costs, self.overhead = encoding, costs, overhead

    def cost(self, cand: Candidate) -> int:
        return self.costs[cand.id]

    def serialize(self, kept: Sequence[Candidate]) -> list[str]:
        return [c.id for c in kept]

    def count(self, kept: Sequence[Candidate]) -> int:
        return self.overhead + sum(self.costs[c.id] for c in kept)

    def tally(self, cands: Sequence[Candidate]) -> _Sum:
        return _Sum(self, cands)


class _Sum:
    def __init__(self, rule: _ItemRule, cands: Sequence[Candidate]) -> None:
        self.costs = [rule.costs[c.id] for c in cands]
        self.total = rule.overhead + sum(self.costs)

    def remove(self, index: int) -> None:
        self.total -= self.costs[index]


def _is_candidate(item: ContextItem) -> bool:
    if item.status is Status.RETAINED:
        return True
    reason = (item.omission_reason or "budget").lower()
    return reason.startswith(TRIM_REASONS)


def _encoding(trace: RequestTrace) -> str:
    return trace.endpoint.encoding or DEFAULT_ENCODING


def _tokens(item: ContextItem, encoding: str) -> int:
    if item.tokens is not None:
        return item.tokens
    try:
        return count_tokens(item.content or "", encoding)
    except UnknownEncodingError:
        return count_tokens(item.content or "", DEFAULT_ENCODING)


def candidates_of(trace: RequestTrace, scenario: Scenario) -> list[Candidate]:
    """The trimming candidates of ``trace`` under ``scenario``, in final order.

    Tool results (role ``tool``) are linked to the nearest assistant item before them, so a call
    and its results are kept or dropped together (traces do not record call ids per item).
    """
    out: list[Candidate] = []
    last_assistant: int | None = None
    for it in trace.items:
        if not _is_candidate(it):
            continue
        prio = scenario.priorities.get(it.id, it.priority if it.priority is not None else 0.0)
        pinned = it.id in scenario.pinned and it.id not in scenario.unpinned
        call_id = None
        if it.role == "tool" and last_assistant is not None:
            call_id = f"call-{out[last_assistant].id}"
            prev = out[last_assistant]
            if not prev.tool_call_ids:
                out[last_assistant] = replace(prev, tool_call_ids=(call_id,))
        out.append(Candidate(it.kind, it.id, it.content or "", float(prio), role=it.role, pinned=pinned,
                             tool_call_id=call_id))
        if it.role == "assistant":
            last_assistant = len(out) - 1
    user_at = max((k for k, c in enumerate(out) if c.kind is Kind.USER), default=len(out))
    for extra in scenario.added:
        out.insert(user_at, extra)
        user_at += 1
    for item_id, index in scenario.moves:
        at = next((k for k, c in enumerate(out) if c.id == item_id), None)
        if at is not None:
            out.insert(max(0, min(index, len(out) - 1)), out.pop(at))
    return out


def _category(kind: Kind) -> Category:
    return {Kind.POLICY: Category.SYS, Kind.USER: Category.USER, Kind.EVIDENCE: Category.EVIDENCE,
            Kind.TOOL: Category.TOOLS}.get(kind, Category.HIST)


def _where(item: ContextItem | None) -> str:
    if item is None:
        return "not in the recording"
    if item.status is Status.RETAINED:
        return f"retained #{item.position}" if item.position is not None else "retained"
    return f"omitted ({item.omission_reason or 'reason not recorded'})"


def run(trace: RequestTrace, scenario: Scenario, trace_id: str | None = None) -> Outcome:
    """Re-trim ``trace`` under ``scenario`` (see the module docstring). Never raises for a
    scenario that cannot be built: the :class:`Outcome` carries the error in words."""
    enc = _encoding(trace)
    cands = candidates_of(trace, scenario)
    known = {it.id: it for it in trace.items}
    costs = {c.id: (_tokens(known[c.id], enc) if c.id in known else count_tokens(c.text, enc)) for c in cands}
    retained_sum = sum(_tokens(i, enc) for i in trace.retained)
    overhead = max(0, (trace.input_tokens or retained_sum) - retained_sum)
    capacity = scenario.capacity if scenario.capacity is not None else trace.endpoint.capacity
    reserve = scenario.reserve if scenario.reserve is not None else (trace.reserved_output_tokens or 0)
    before = _by_category(trace.retained, enc)
    untrimmed = overhead + sum(costs.values())
    pre = None
    if capacity is not None and reserve < capacity:  # else no input budget: the outcome says so in words
        over = untrimmed + reserve - capacity
        pre = (f"before trimming: over capacity by {over:,} tokens: had {capacity - reserve:,} tokens left, "
               f"needed {untrimmed:,}") if over > 0 else f"before trimming: fits, {-over:,} tokens margin"
    try:
        budget = input_budget(capacity, reserve)
        t = trim(cands, _ItemRule(enc, costs, overhead), budget, scenario.caps)
    except RequiredOverBudgetError as exc:
        return Outcome(scenario, trace, None, str(exc), (), {}, f"cannot be built: {exc}", exc.overrun, pre)
    except BuildError as exc:
        return Outcome(scenario, trace, None, str(exc), (), {}, f"cannot be built: {exc}", None, pre)
    new = _trace(trace, scenario, cands, costs, t, capacity, reserve, enc, trace_id)
    after = _by_category(new.retained, enc)
    moved = {i for i, _ in scenario.moves}
    changes = tuple(
        ItemChange(it.id, it.kind.value, _where(known.get(it.id)), _where(it))
        for it in new.items
        if it.id in moved or known.get(it.id) is None or known[it.id].status is not it.status
        or known[it.id].omission_reason != it.omission_reason
    )
    delta = {c: (before.get(c, 0), after.get(c, 0)) for c in CATEGORY_ORDER if c in before or c in after}
    return Outcome(scenario, trace, new, None, changes, delta, verdict_text(check_capacity(new)), None, pre)


def _by_category(items: Sequence[ContextItem], enc: str) -> dict[Category, int]:
    out: dict[Category, int] = {}
    for it in items:
        out[_category(it.kind)] = out.get(_category(it.kind), 0) + _tokens(it, enc)
    return out


def _trace(trace: RequestTrace, sc: Scenario, cands: list[Candidate], costs: dict[str, int], t: Trim,
           capacity: int | None, reserve: int, enc: str, trace_id: str | None) -> RequestTrace:
    known = {it.id: it for it in trace.items}
    items: list[ContextItem] = []
    pos = 0
    for k, c in enumerate(cands):
        base = known.get(c.id) or ContextItem(kind=c.kind, id=c.id, content=c.text, tokens=costs[c.id],
                                              tokens_provenance=TokenProvenance(TokenSource.COUNTED, enc))
        if t.kept[k]:
            pos += 1
        items.append(replace(base, status=Status.RETAINED if t.kept[k] else Status.OMITTED,
                             position=pos if t.kept[k] else None, priority=c.priority,
                             omission_reason=t.reasons.get(k)))
    placed = {c.id for c in cands}
    items += [it for it in trace.items if it.id not in placed]  # filtered before trimming: unchanged
    budget = {**dict(trace.budget), **dict(sc.caps), Category.OUT: reserve}
    digest = hashlib.sha256(repr(sc).encode()).hexdigest()[:8]
    return replace(
        trace, trace_id=trace_id or f"{trace.trace_id}~whatif-{digest}", replay_of=trace.trace_id,
        endpoint=replace(trace.endpoint, capacity=capacity), items=tuple(items), budget=budget,
        reserved_output_tokens=reserve, input_tokens=t.input_tokens, usage=Usage(), response=None,
        tool_calls=(), validations=(), source_format="whatif",
        attributes={**dict(trace.attributes), "ctxviewer.whatif.of": trace.trace_id,
                    "ctxviewer.whatif.scenario": describe(sc)},
    )


def describe(sc: Scenario) -> str:
    """The scenario in words, e.g. ``"capacity 8,000; reserve 1,200; priority e3=0.9"``."""
    parts = []
    if sc.capacity is not None:
        parts.append(f"capacity {sc.capacity:,}")
    if sc.reserve is not None:
        parts.append(f"reserve {sc.reserve:,}")
    parts += [f"cap {c.value}={n:,}" for c, n in sc.caps.items()]
    parts += [f"priority {i}={p:g}" for i, p in sc.priorities.items()]
    parts += [f"pin {i}" for i in sorted(sc.pinned)] + [f"unpin {i}" for i in sorted(sc.unpinned)]
    parts += [f"move {i} to {n + 1}" for i, n in sc.moves]
    parts += [f"add {c.kind.value} {c.id} (priority {c.priority:g})" for c in sc.added]
    return "; ".join(parts) or "as recorded"


def filler(tokens: int) -> str:
    """Text of exactly ``tokens`` tokens in cl100k_base and o200k_base (``" a"`` repeated), for a
    hypothetical item given by size ("what if evidence had 2,000 more tokens?")."""
    return " a" * max(0, tokens)
