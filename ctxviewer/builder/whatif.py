"""What-if: re-trim a recorded request by the rules that produced it, under other limits and priorities.

Reproduce first: with an empty :class:`Scenario` the what-if equals the recording (the same items in
the same order, statuses, omission reasons, assessment state and verdict), because every omitted
item is decided again by the rule its recorded omission reason names (:func:`rule_of`):

* **budget** (``budget``, ``trim``, ``cap:*``): chapter 3.3's loop, lowest priority first, over
  the retained and budget-omitted items: first each declared category budget B_x as a cap on its
  category (chapter 3.4: "retrieved evidence is capped at 5,000"), then the input budget
  C - B_out - the declared safety margin (chapter 3.1: the margin is kept for template overhead
  and count variation). A declared limit the recording itself exceeds was not applied by its
  application and is not applied here either while C and B_out are as recorded (:attr:`Outcome.notes`
  say so); with C unknown the budget-omitted items stay as recorded.
* **window** (``window``): the history window keeps the most recent N items of the kinds it cut,
  N as many as passed it in the recording (recency is the recorded order; priorities do not move it).
* **rank** (``rank``): the retrieval cut keeps, per kind and source store, the k best items by
  priority, k as many as passed it in the recording.
* **policy** (any other recorded reason: ``unavailable: ...``, ``fallback refused: ...``,
  ``permission``, ``duplicate``, "dropped between calls (derived)") and an omission with no recorded
  reason: filtered by the application before trimming; they stay omitted.

Budget trimming runs after the window and rank cuts, over what passed them. An item omitted again
by the rule that omitted it in the recording keeps its recorded reason word for word; an item a rule
newly omits gets that rule's reason (``budget``, ``budget:<category>`` for a declared category
budget, ``cap:<category>`` for a scenario's cap, ``window``, ``rank``).

A :class:`Scenario` changes capacity C, reserved output B_out, per-category caps, item priorities,
pins, positions, and adds hypothetical items. A pin overrides whatever rule omitted the item, and
:attr:`Outcome.notes` says which ("turn-01 was omitted by the history window; pinned, it is kept").
:func:`run` returns the new request trace (``replay_of`` the original), the changes against the
recording, each category's tokens (:func:`ctxviewer.assess.budget.allocations`, the assessment's own
category map), eq. 3.1 before trimming (:func:`ctxviewer.assess.budget.check_capacity`) and the
assessment of the re-trimmed trace (:func:`ctxviewer.assess.assessment.conclude`: state and verdict).

Counting: each item costs its recorded token count (or its content counted with the trace's
encoding; a hypothetical item is counted). The what-if's input is the recorded input plus the
tokens of what it adds minus those of what it drops (the recorded serialization overhead, input
minus the retained items' tokens, is kept as a constant). The recorded answer, tool calls,
validations and usage are kept, so the assessment judges the recorded answer against the
re-trimmed request; the provider-reported input moves by the same number of tokens as the counted
input (the gap between the two counts is kept, like the overhead). No Qt here.
"""

from __future__ import annotations

import enum
import hashlib
import sys
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from ctxviewer.assess import budget as eq31
from ctxviewer.assess.assessment import Conclusion, conclude
from ctxviewer.assess.budget import CATEGORY_LABELS, CATEGORY_ORDER, CapacityCheck, category_of
from ctxviewer.builder import BuildError, Candidate, RequiredOverBudgetError, input_budget, trim
from ctxviewer.builder.trim import Trim
from ctxviewer.model.findings import State
from ctxviewer.model.trace import (
    Category,
    ContextItem,
    Kind,
    LimitMode,
    RequestTrace,
    SerializedRequest,
    Status,
    TokenProvenance,
    TokenSource,
)
from ctxviewer.tokens.counting import DEFAULT_ENCODING, UnknownEncodingError, count_tokens
from ctxviewer.util.memo import by_identity

BUDGET_REASONS = ("budget", "trim", "cap")
"""Omission reasons (prefixes) of the budget rule: the item is a trimming candidate again."""

NO_LIMIT = sys.maxsize
"""The input budget passed to the trimmer when no global limit applies (C unknown, or not kept)."""


class Rule(str, enum.Enum):
    """The rule that omitted an item, read from its recorded omission reason (:func:`rule_of`)."""

    BUDGET = "budget"
    WINDOW = "window"
    RANK = "rank"
    POLICY = "policy"
    UNKNOWN = "unknown"


RULE_WORDS = {
    Rule.BUDGET: "for budget",
    Rule.WINDOW: "by the history window",
    Rule.RANK: "by the retrieval rank cut",
    Rule.POLICY: "by the application's policy",
    Rule.UNKNOWN: "for a reason not recorded",
}
"""How a note says which rule omitted an item (``"turn-01 was omitted by the history window"``)."""


def rule_of(item: ContextItem) -> Rule | None:
    """The rule that omitted ``item`` (``None`` when it was retained): budget for a reason starting
    with ``budget``, ``trim`` or ``cap``; window or rank when the reason names one; no reason is
    :attr:`Rule.UNKNOWN`; any other reason (``unavailable: ...``, ``permission``, ...) :attr:`Rule.POLICY`."""
    if item.status is Status.RETAINED:
        return None
    reason = (item.omission_reason or "").strip().lower()
    if not reason:
        return Rule.UNKNOWN
    if reason.startswith(BUDGET_REASONS):
        return Rule.BUDGET
    if "window" in reason:
        return Rule.WINDOW
    if "rank" in reason:
        return Rule.RANK
    return Rule.POLICY


def omitted_by(item: ContextItem) -> str:
    """``"omitted by the history window"``, ``"omitted by the application's policy (permission)"``,
    ... : which rule omitted ``item``, in words (``""`` for a retained item)."""
    rule = rule_of(item)
    if rule is None:
        return ""
    words = RULE_WORDS[rule]
    if rule is Rule.POLICY:
        words += f" ({item.omission_reason})"
    return f"omitted {words}"


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
    """(item id, new 0-based index in the what-if's item order), applied in order."""
    added: tuple[Candidate, ...] = ()
    """Hypothetical items, placed before the current user request unless moved."""


@dataclass(frozen=True)
class ItemChange:
    """One item whose status or omission reason changed, that was moved, or that the recording did
    not have. (A retained item whose rank only shifts because items before it were trimmed is not a
    change.)"""

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
    category_delta: dict[Category, tuple[int | None, int | None]]
    """Category -> (recorded retained tokens, what-if retained tokens), by the assessment's own
    category map (:func:`ctxviewer.assess.budget.allocations`); ``None`` = a count not recorded."""
    verdict: str
    """The assessment's verdict on the what-if trace (``"cannot be built: ..."`` without one)."""
    state: State | None
    """The assessment's state of the what-if trace; ``None`` when it could not be built."""
    recorded: Conclusion
    """The assessment of the recording, to compare with."""
    overrun: int | None = None
    """Tokens over the input budget when the required items alone do not fit."""
    before_trim: str | None = None
    """eq. 3.1 with every candidate kept, from :func:`ctxviewer.assess.budget.check_capacity`, e.g.
    ``"before trimming: over capacity by 700 tokens: had 6,800 tokens left, needed 7,500"``;
    ``None`` when it cannot be computed."""
    notes: tuple[str, ...] = ()
    """What the reader should know: which rule each pin overrides, limits the recording did not keep."""
    rules: tuple[str, ...] = ()
    """The rules re-run, in words (``"window: the 6 most recent history items"``)."""

    @property
    def same_as_recorded(self) -> bool:
        """True when no item changed and the assessment says what it said of the recording."""
        return (self.trace is not None and not self.changes and self.state is self.recorded.state
                and self.verdict == self.recorded.verdict)

    def to_json(self) -> dict[str, object]:
        """JSON form for ``ctxviewer whatif --json``."""
        t = self.trace
        return {
            "original": self.original.trace_id,
            "error": self.error,
            "overrun": self.overrun,
            "state": None if self.state is None else self.state.value,
            "verdict": self.verdict,
            "recorded": {"state": self.recorded.state.value, "verdict": self.recorded.verdict},
            "before_trim": self.before_trim,
            "rules": list(self.rules),
            "notes": list(self.notes),
            "selection": None if t is None else {
                "policy_version": t.policy.version,
                "retained": [{"kind": i.kind.value, "id": i.id} for i in t.retained],
                "omitted": [{"kind": i.kind.value, "id": i.id, "reason": i.omission_reason} for i in t.omitted],
                "input_tokens": t.input_tokens,
                "reserved_output_tokens": t.reserved_output_tokens,
                "capacity": t.endpoint.capacity,
            },
            "changes": [{"id": c.id, "kind": c.kind, "before": c.before, "after": c.after} for c in self.changes],
            "category_delta": {c.value: {"before": b, "after": a,
                                         "delta": None if a is None or b is None else a - b}
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


def _encoding(trace: RequestTrace) -> str:
    return trace.endpoint.encoding or DEFAULT_ENCODING


def _count(text: str, encoding: str) -> int:
    try:
        return count_tokens(text, encoding)
    except UnknownEncodingError:
        return count_tokens(text, DEFAULT_ENCODING)


def _tokens(item: ContextItem, encoding: str) -> int:
    return item.tokens if item.tokens is not None else _count(item.content or "", encoding)


def _store(item: ContextItem) -> str | None:
    return item.source.store if item.source is not None else None


def _n(v: int) -> str:
    return f"{v:,}"


@dataclass
class _Plan:
    """What :func:`run` decides before trimming (see :func:`_plan`)."""

    order: list[ContextItem | Candidate]
    """Every item of the what-if in final order: recorded items and hypothetical candidates."""
    cut: dict[str, str]
    """Item id -> omission reason, for items the window, rank or policy rule omits (not trimmed)."""
    pins: frozenset[str]
    """Pinned ids that can be sent."""
    capacity: int | None
    reserve: int | None
    max_input: int | None
    """The global input budget (tokens), ``None`` when none applies."""
    caps: dict[Category, int]
    """Per-category caps: the declared budgets the recording kept, and the scenario's."""
    declared_caps: frozenset[Category]
    """The categories whose cap is a declared budget (their omissions say ``budget:<category>``)."""
    wbudget: dict[Category, int]
    """The what-if's declared budget (the recording's, with the scenario's caps and reserve)."""
    notes: list[str]
    rules: list[str]
    error: str | None = None


def _priority(it: ContextItem, sc: Scenario) -> float:
    p = sc.priorities.get(it.id, it.priority)
    return float(p) if p is not None else 0.0


def _plan(trace: RequestTrace, sc: Scenario) -> _Plan:
    items = trace.items
    rule = {it.id: rule_of(it) for it in items}
    notes: list[str] = []
    rules: list[str] = []
    cut: dict[str, str] = {}
    pins: set[str] = set()
    wanted = sc.pinned - sc.unpinned
    for it in items:
        if it.id not in wanted:
            continue
        if rule[it.id] is None:
            pins.add(it.id)
        elif it.tokens is None and not it.content:
            notes.append(f"{it.id} was {omitted_by(it)}; its content was not recorded, so a pin cannot send it")
        else:
            pins.add(it.id)
            notes.append(f"{it.id} was {omitted_by(it)}; pinned, it is kept")
    for it in items:
        if rule[it.id] in (Rule.POLICY, Rule.UNKNOWN) and it.id not in pins:
            cut[it.id] = it.omission_reason or ""
        if rule[it.id] in (Rule.WINDOW, Rule.POLICY, Rule.UNKNOWN) and it.id in sc.priorities and it.id not in pins:
            notes.append(f"the priority of {it.id} changes nothing: it was {omitted_by(it)}, which priorities do "
                         "not move; pin it to keep it")
    _window(trace, sc, rule, pins, cut, rules)
    _rank(trace, sc, rule, pins, cut, rules)

    wbudget = dict(trace.budget)
    wbudget.update(sc.caps)
    if sc.reserve is not None:
        wbudget[Category.OUT] = sc.reserve
    enc = _encoding(trace)
    caps: dict[Category, int] = {}
    kept_words = []
    for cat in CATEGORY_ORDER:
        declared = trace.budget.get(cat)
        if declared is None or cat in sc.caps or cat in (Category.SYS, Category.USER):
            continue  # policy and the user request are required: a cap on them removes nothing
        used = sum(_tokens(i, enc) for i in trace.retained if category_of(i, trace) is cat)
        if used <= declared:
            caps[cat] = declared
            kept_words.append(f"{CATEGORY_LABELS[cat]} <= {_n(declared)}")
        else:
            notes.append(f"the recording's {CATEGORY_LABELS[cat]} uses {_n(used)} tokens, over its declared budget of "
                         f"{_n(declared)}: the application did not cap it, so neither does the what-if")
    declared_caps = frozenset(caps)
    caps.update(sc.caps)
    if kept_words:
        rules.append(f"budget: {', '.join(kept_words)} tokens (declared budgets, lowest priority first)")
    if sc.caps:
        rules.append("budget: " + ", ".join(f"{CATEGORY_LABELS[c]} <= {_n(v)}" for c, v in sc.caps.items())
                     + " tokens (caps of this what-if)")

    capacity = sc.capacity if sc.capacity is not None else trace.endpoint.capacity
    reserve = sc.reserve if sc.reserve is not None else trace.reserved_output_tokens
    plan = _Plan(_order(trace, sc), cut, frozenset(pins), capacity, reserve, None, caps, declared_caps,
                 wbudget, notes, rules)
    _limit(trace, sc, plan, enc)
    if plan.max_input is None:
        held = [it.id for it in items if rule[it.id] is Rule.BUDGET and it.id not in pins]
        for item_id in held:
            cut[item_id] = trace.item(item_id).omission_reason or ""
        if held:
            notes.append(f"{len(held)} item(s) omitted for budget stay omitted: no input budget to re-trim them by")
    return plan


def _limit(trace: RequestTrace, sc: Scenario, plan: _Plan, enc: str) -> None:
    """Set ``plan.max_input``: C - B_out - the declared safety margin (separate limits: the input
    limit - the margin), relaxed to what the recording kept while C and B_out are as recorded."""
    ep = trace.endpoint
    reserve = plan.reserve or 0
    separate = ep.limit_mode is LimitMode.SEPARATE and sc.capacity is None
    if separate and ep.max_input_tokens is not None:
        base, what = ep.max_input_tokens, f"the input limit {_n(ep.max_input_tokens)}"
    elif plan.capacity is None:
        plan.notes.append("capacity not recorded: the input budget C - B_out is not applied (give a capacity to apply it)")
        return
    else:
        try:
            base = input_budget(plan.capacity, reserve)
        except BuildError as exc:
            plan.error = str(exc)
            return
        what = f"C {_n(plan.capacity)} - B_out {_n(reserve)}"
    as_recorded = (sc.capacity is None or sc.capacity == ep.capacity) and reserve == (trace.reserved_output_tokens or 0)
    recorded_input = trace.input_tokens if trace.input_tokens is not None else sum(
        _tokens(i, enc) for i in trace.retained)
    margin = trace.safety_margin or 0
    if margin > 0:
        if not as_recorded and base - margin <= 0:
            plan.error = (f"the declared safety margin of {_n(margin)} tokens leaves no input budget: "
                          f"{what} = {_n(base)} tokens before it")
            return
        if not as_recorded or recorded_input <= base - margin:
            plan.max_input = base - margin
            plan.rules.append(f"budget: input <= {what} - safety margin {_n(margin)} = {_n(base - margin)} tokens")
            return
        plan.notes.append(f"the recording's input of {_n(recorded_input)} tokens leaves less than its declared safety "
                          f"margin of {_n(margin)}: the application did not keep it, so neither does the what-if "
                          "while C and B_out are as recorded")
    if not as_recorded or recorded_input <= base:
        plan.max_input = base
        plan.rules.append(f"budget: input <= {what} = {_n(base)} tokens")
        return
    plan.notes.append(f"the recording's input of {_n(recorded_input)} tokens is over its input budget of {_n(base)}: "
                      "the application did not trim to it, so neither does the what-if while C and B_out are as recorded")


def _window(trace: RequestTrace, sc: Scenario, rule: dict[str, Rule | None], pins: set[str],
            cut: dict[str, str], rules: list[str]) -> None:
    """The history window: the most recent N items of the kinds it cut pass (N as recorded)."""
    kinds = {it.kind for it in trace.items if rule[it.id] is Rule.WINDOW}
    if not kinds:
        return
    group = [it for it in trace.items if it.kind in kinds and it.id not in cut
             and rule[it.id] in (None, Rule.WINDOW, Rule.BUDGET)]
    n = sum(1 for it in group if rule[it.id] is not Rule.WINDOW)
    free = [it for it in group if it.id not in pins]
    keep = max(0, n - sum(1 for it in group if it.id in pins and rule[it.id] is not Rule.WINDOW))
    passing = {it.id for it in free[max(0, len(free) - keep):]} if keep else set()
    for it in free:
        if it.id not in passing:
            cut[it.id] = it.omission_reason if rule[it.id] is Rule.WINDOW and it.omission_reason else "window"
    names = " and ".join(sorted(k.value for k in kinds))
    rules.append(f"window: the {n} most recent {names} items (recorded order)")


def _rank(trace: RequestTrace, sc: Scenario, rule: dict[str, Rule | None], pins: set[str],
          cut: dict[str, str], rules: list[str]) -> None:
    """The retrieval cut: per kind and source store, the k best items by priority pass (k as recorded)."""
    keys = sorted({(it.kind.value, _store(it) or "") for it in trace.items if rule[it.id] is Rule.RANK})
    for kind, store in keys:
        group = [(k, it) for k, it in enumerate(trace.items)
                 if (it.kind.value, _store(it) or "") == (kind, store) and it.id not in cut
                 and rule[it.id] in (None, Rule.RANK, Rule.BUDGET)]
        n = sum(1 for _, it in group if rule[it.id] is not Rule.RANK)
        keep = max(0, n - sum(1 for _, it in group if it.id in pins and rule[it.id] is not Rule.RANK))
        free = sorted((p for p in group if p[1].id not in pins),
                      key=lambda p: (-_priority(p[1], sc), rule[p[1].id] is Rule.RANK, p[0]))
        for _, it in free[keep:]:
            cut[it.id] = it.omission_reason if rule[it.id] is Rule.RANK and it.omission_reason else "rank"
        rules.append(f"rank: the {n} best-ranked {kind} items" + (f" from {store}" if store else "")
                     + " by priority")


def _order(trace: RequestTrace, sc: Scenario) -> list[ContextItem | Candidate]:
    order: list[ContextItem | Candidate] = list(trace.items)
    user_at = max((k for k, it in enumerate(order) if it.kind is Kind.USER), default=len(order))
    for extra in sc.added:
        order.insert(user_at, extra)
        user_at += 1
    for item_id, index in sc.moves:
        at = next((k for k, it in enumerate(order) if it.id == item_id), None)
        if at is not None:
            order.insert(max(0, min(index, len(order) - 1)), order.pop(at))
    return order


def _candidates(trace: RequestTrace, sc: Scenario, plan: _Plan) -> list[Candidate]:
    """The trimming candidates in final order, with the assessment's categories. Tool results
    (role ``tool``) are linked to the nearest assistant candidate before them, so a call and its
    results are kept or dropped together (traces do not record call ids per item)."""
    shell = replace(trace, budget=plan.wbudget)  # category_of reads the declared budget only
    out: list[Candidate] = []
    last_assistant: int | None = None
    for entry in plan.order:
        if isinstance(entry, Candidate):
            cand = replace(entry, pinned=entry.pinned or entry.id in plan.pins,
                           category=entry.category or category_of(
                               ContextItem(kind=entry.kind, id=entry.id, content=None), shell))
        else:
            if entry.id in plan.cut:
                continue
            cand = Candidate(entry.kind, entry.id, entry.content or "", _priority(entry, sc), role=entry.role,
                             pinned=entry.id in plan.pins, category=category_of(entry, shell))
        if cand.role == "tool" and last_assistant is not None:
            call_id = f"call-{out[last_assistant].id}"
            prev = out[last_assistant]
            if not prev.tool_call_ids:
                out[last_assistant] = replace(prev, tool_call_ids=(call_id,))
            cand = replace(cand, tool_call_id=call_id)
        out.append(cand)
        if cand.role == "assistant":
            last_assistant = len(out) - 1
    return out


def candidates_of(trace: RequestTrace, scenario: Scenario) -> list[Candidate]:
    """The budget-trimming candidates of ``trace`` under ``scenario``, in final order: what passed the
    window, rank and policy rules (see the module docstring), with pinned items required."""
    return _candidates(trace, scenario, _plan(trace, scenario))


def _where(item: ContextItem | None) -> str:
    if item is None:
        return "not in the recording"
    if item.status is Status.RETAINED:
        return f"retained #{item.position}" if item.position is not None else "retained"
    return f"omitted ({item.omission_reason or 'reason not recorded'})"


@by_identity(4)
def _recorded(trace: RequestTrace) -> Conclusion:
    return conclude(trace)


def _conclude(new: RequestTrace, original: RequestTrace) -> Conclusion:
    """The assessment of the what-if trace, read under the recording's id (the user's marks on the
    recording apply to its what-if)."""
    return conclude(replace(new, trace_id=original.trace_id))


def _before_trim(chk: CapacityCheck) -> str | None:
    over = chk.over_before_trim
    if over is None or chk.capacity is None or chk.input_before_trim is None or chk.limit_mode is LimitMode.SEPARATE:
        return None
    if over > 0:
        room = chk.capacity - (chk.reserved_output or 0)
        return (f"before trimming: over capacity by {_n(over)} tokens: had {_n(room)} tokens left, "
                f"needed {_n(chk.input_before_trim)}")
    return f"before trimming: fits, {_n(-over)} tokens margin"


def run(trace: RequestTrace, scenario: Scenario, trace_id: str | None = None) -> Outcome:
    """Re-trim ``trace`` under ``scenario`` (see the module docstring). Never raises for a
    scenario that cannot be built: the :class:`Outcome` carries the error in words."""
    recorded = _recorded(trace)
    enc = _encoding(trace)
    plan = _plan(trace, scenario)
    cands = _candidates(trace, scenario, plan)
    known = {it.id: it for it in trace.items}
    costs = {c.id: _tokens(known[c.id], enc) if c.id in known else _count(c.text, enc) for c in cands}
    retained_sum = sum(_tokens(i, enc) for i in trace.retained)
    overhead = (trace.input_tokens - retained_sum) if trace.input_tokens is not None else 0
    rule = _ItemRule(enc, costs, overhead)

    def failed(error: str, overrun: int | None) -> Outcome:
        everything = Trim(tuple(True for _ in cands), {}, (), rule.count(cands))  # eq. 3.1 before trimming
        pre = _before_trim(eq31.check_capacity(_trace(trace, scenario, plan, cands, costs, everything, enc, trace_id)))
        return Outcome(scenario, trace, None, error, (), {}, f"cannot be built: {error}", None, recorded,
                       overrun, pre, tuple(plan.notes), tuple(plan.rules))

    if plan.error is not None:
        return failed(plan.error, None)
    try:
        t = trim(cands, rule, NO_LIMIT if plan.max_input is None else plan.max_input, plan.caps)
    except RequiredOverBudgetError as exc:
        return failed(str(exc), exc.overrun)
    except BuildError as exc:
        return failed(str(exc), None)
    new = _trace(trace, scenario, plan, cands, costs, t, enc, trace_id)
    moved = {i for i, _ in scenario.moves}
    changes = tuple(
        ItemChange(it.id, it.kind.value, _where(known.get(it.id)), _where(it))
        for it in new.items
        if it.id in moved or known.get(it.id) is None or known[it.id].status is not it.status
        or known[it.id].omission_reason != it.omission_reason
    )
    before = {a.category: a.used for a in eq31.allocations(trace)}
    after = {a.category: a.used for a in eq31.allocations(new)}
    delta = {c: (before.get(c, 0), after.get(c, 0)) for c in CATEGORY_ORDER if c in before or c in after}
    c = _conclude(new, trace)
    return Outcome(scenario, trace, new, None, changes, delta, c.verdict, c.state, recorded, None,
                   _before_trim(eq31.check_capacity(new)), tuple(plan.notes), tuple(plan.rules))


def _reason(trace_reason: str, plan: _Plan) -> str:
    """The trimmer's reason in the what-if's words: a declared category budget's cap is ``budget:<category>``."""
    if trace_reason.startswith("cap:"):
        cat = trace_reason[4:].split(" ", 1)[0]
        if any(c.value == cat for c in plan.declared_caps):
            return "budget:" + trace_reason[4:]
    return trace_reason


def _trace(trace: RequestTrace, sc: Scenario, plan: _Plan, cands: list[Candidate], costs: dict[str, int], t: Trim,
           enc: str, trace_id: str | None) -> RequestTrace:
    index = {c.id: k for k, c in enumerate(cands)}
    items: list[ContextItem] = []
    pos = 0
    for entry in plan.order:
        k = index.get(entry.id)
        if isinstance(entry, Candidate):
            base = ContextItem(kind=entry.kind, id=entry.id, content=entry.text, tokens=costs[entry.id],
                               priority=entry.priority, role=entry.role,
                               tokens_provenance=TokenProvenance(TokenSource.COUNTED, enc))
            recorded_rule = None
        else:
            p = sc.priorities.get(entry.id, entry.priority)
            base = replace(entry, priority=None if p is None else float(p))
            recorded_rule = rule_of(entry)
        if k is None:  # omitted before trimming (window, rank, policy) or held as recorded
            items.append(replace(base, status=Status.OMITTED, position=None,
                                 omission_reason=plan.cut.get(entry.id) or base.omission_reason))
        elif t.kept[k]:
            pos += 1
            items.append(replace(base, status=Status.RETAINED, position=pos, omission_reason=None))
        else:
            why = _reason(t.reasons.get(k, "budget"), plan)
            if recorded_rule is Rule.BUDGET and base.omission_reason:
                why = base.omission_reason  # the same rule omits it again: the recorded words
            items.append(replace(base, status=Status.OMITTED, position=None, omission_reason=why))
    recorded_input = trace.input_tokens if trace.input_tokens is not None else sum(
        _tokens(i, enc) for i in trace.retained)
    shift = t.input_tokens - recorded_input
    reported = trace.usage.input_tokens
    same = len(items) == len(trace.items) and all(
        a.id == b.id and a.status is b.status for a, b in zip(items, trace.items))
    digest = hashlib.sha256(repr(sc).encode()).hexdigest()[:8]
    return replace(
        trace, trace_id=trace_id or f"{trace.trace_id}~whatif-{digest}", replay_of=trace.trace_id,
        endpoint=replace(trace.endpoint, capacity=plan.capacity), items=tuple(items), budget=plan.wbudget,
        reserved_output_tokens=plan.reserve,
        input_tokens=None if trace.input_tokens is None else t.input_tokens,
        usage=replace(trace.usage, input_tokens=None if reported is None else reported + shift),
        request=trace.request if same else SerializedRequest(), source_format="whatif",
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
