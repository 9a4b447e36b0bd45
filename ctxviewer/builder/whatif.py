"""What-if: re-trim a recorded request by the rules that produced it, under other limits and priorities.

Reproduce first: with an empty :class:`Scenario` the what-if equals the recording (the same items in
the same order, statuses, omission reasons, assessment state and verdict), because every omitted
item is decided again by the rule its recorded omission reason names -- budget, history window,
rank cut, the application's policy (:mod:`.whatif_rules`, :func:`~.whatif_rules.decide`) -- and
the budget trimming (:func:`ctxviewer.builder.trim`, chapter 3.3) runs over what passed the others.
An item omitted again by the rule that omitted it in the recording keeps its recorded reason word
for word; an item a rule newly omits gets that rule's reason (``budget``, ``budget:<category>`` for
a declared category budget, ``cap:<category>`` for a scenario's cap, ``window``, ``rank``).

A :class:`Scenario` changes capacity C, reserved output B_out, per-category caps, item priorities,
pins, positions, and adds hypothetical items. A pin overrides whatever rule omitted the item, and
:attr:`Outcome.notes` says which ("turn-01 was omitted by the history window; pinned, it is kept");
an item kept only with a pinned call says so (:mod:`.kept_with`). :func:`run` returns the new trace
(``replay_of`` the original), the changes, each category's tokens (``allocations``), eq. 3.1
before trimming and the re-trimmed trace's assessment (:func:`~ctxviewer.assess.assessment.conclude`).

Counting: each item costs its recorded token count (or its content counted with the trace's
encoding; a hypothetical item is counted). The what-if's input is the recorded input plus the
tokens of what it adds minus those of what it drops (the recorded serialization overhead, input
minus the retained items' tokens, is kept as a constant). The recorded answer, tool calls,
validations and usage are kept, so the assessment judges the recorded answer against the
re-trimmed request; the provider-reported input moves by the same number of tokens as the counted
input (the gap between the two counts is kept, like the overhead). No Qt here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Sequence

from ctxviewer.assess import budget as eq31
from ctxviewer.assess.assessment import Conclusion, conclude
from ctxviewer.assess.budget import CATEGORY_ORDER, CapacityCheck, category_of
from ctxviewer.assess.context import AssessContext
from ctxviewer.assess.input_source import REPORTED_SOURCE
from ctxviewer.builder import BuildError, Candidate, RequiredOverBudgetError, trim
from ctxviewer.builder.kept_with import kept_with
from ctxviewer.builder.trim import Trim
from ctxviewer.builder.whatif_rules import (
    NO_LIMIT,
    OmissionRule,
    Plan,
    Scenario,
    count_text,
    decide,
    item_tokens,
    priority_of,
    rule_of,
    trace_encoding,
)
from ctxviewer.model.findings import State
from ctxviewer.model.trace import (
    Category,
    ContextItem,
    LimitMode,
    RequestTrace,
    SerializedRequest,
    Status,
    TokenProvenance,
    TokenSource,
)
from ctxviewer.model.words import fmt_int
from ctxviewer.util.memo import by_identity

__all__ = ["ItemChange", "OmissionRule", "Outcome", "Scenario", "candidates_of", "describe", "filler", "rule_of", "run"]


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
    why: str = ""
    """Why an unpinned item is kept (:func:`.kept_with.kept_with`; ``after`` ends with it), or ``""``."""


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
    capacity: int | None = None
    """C the what-if trimmed by, tokens (:attr:`.whatif_rules.Plan.capacity`: the scenario's, the
    recorded, a value set in ctxviewer.toml or an assumed window); ``None`` when none is known."""
    capacity_source: str | None = None
    """Where :attr:`capacity` came from, as the header says it (``"recorded"``, ``"assumed (...)"``); ``None`` with no C."""

    def capacity_words(self) -> str:
        """C in words for the text report and the what-if tab, from :attr:`capacity` and
        :attr:`capacity_source`: ``"C 128,000 tokens assumed (model catalogue: ...)"``,
        ``"C 7,000 tokens set for this what-if"``, ``"C not recorded"``."""
        if self.capacity is None:
            return "C not recorded"
        return f"C {fmt_int(self.capacity)} tokens {self.capacity_source or 'recorded'}"

    @property
    def same_as_recorded(self) -> bool:
        """True when no item changed and the assessment says what it said of the recording."""
        return (self.trace is not None and not self.changes and self.state is self.recorded.state
                and self.verdict == self.recorded.verdict)

    def to_json(self) -> dict[str, object]:
        """JSON form for ``ctxviewer whatif --json``; ``selection.capacity`` is the C the what-if
        trimmed by (tokens, assumed or not) and ``selection.capacity_source`` where it came from, as
        ``show --json`` says them (``None`` both when no C is known)."""
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
                "capacity": self.capacity,
                "capacity_source": self.capacity_source,
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


def _candidates(trace: RequestTrace, sc: Scenario, plan: Plan) -> list[Candidate]:
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
            cand = Candidate(entry.kind, entry.id, entry.content or "", priority_of(entry, sc), role=entry.role,
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
    return _candidates(trace, scenario, decide(trace, scenario))


def _where(item: ContextItem | None) -> str:
    if item is None:
        return "not in the recording"
    if item.status is Status.RETAINED:
        return f"retained #{item.position}" if item.position is not None else "retained"
    return f"omitted ({item.omission_reason or 'reason not recorded'})"


@by_identity(4)
def _recorded_in_active(trace: RequestTrace) -> Conclusion:
    return conclude(trace)


def _recorded(trace: RequestTrace, context: AssessContext | None) -> Conclusion:
    """The recording's conclusion in ``context`` (memoised per trace object without one)."""
    return _recorded_in_active(trace) if context is None else conclude(trace, context)


def _conclude(new: RequestTrace, original: RequestTrace, context: AssessContext | None) -> Conclusion:
    """The assessment of the what-if trace in the recording's ``context``, read under the
    recording's id (the user's marks on the recording apply to its what-if)."""
    return conclude(replace(new, trace_id=original.trace_id), context)


def _before_trim(chk: CapacityCheck, gap: int = 0) -> str | None:
    """``"before trimming: fits, N tokens margin"`` / ``"over capacity by N tokens: ..."`` of the
    untrimmed request; with ``gap`` (the provider's tokens beyond the items that lowered the budget)
    the provider's count beside it, so a "fits" above a trim says why (review L2)."""
    over = chk.over_before_trim
    if over is None or chk.capacity is None or chk.input_before_trim is None or chk.limit_mode is LimitMode.SEPARATE:
        return None
    by_count = " by the count" if chk.input_source == REPORTED_SOURCE or gap else ""  # the verdict is by the provider's
    room = chk.capacity - (chk.reserved_output or 0)
    theirs = (f"; over by the provider's count: {fmt_int(chk.input_before_trim + gap)} of {fmt_int(room)}"
              if gap and chk.input_before_trim + gap > room else "")
    if over > 0:
        return (f"before trimming: over capacity by {fmt_int(over)} tokens{by_count}: had {fmt_int(room)} tokens left, "
                f"needed {fmt_int(chk.input_before_trim)}{theirs}")
    return f"before trimming: fits{by_count}, {fmt_int(-over)} tokens margin{theirs}"


def run(trace: RequestTrace, scenario: Scenario, trace_id: str | None = None,
        context: AssessContext | None = None) -> Outcome:
    """Re-trim ``trace`` under ``scenario`` (see the module docstring) and assess the result in
    ``context`` (the recording's database's, :func:`ctxviewer.assess.context.context_for_db`).
    Never raises for a scenario that cannot be built: the :class:`Outcome` carries the error in words."""
    recorded = _recorded(trace, context)
    enc = trace_encoding(trace)
    plan = decide(trace, scenario)
    cands = _candidates(trace, scenario, plan)
    known = {it.id: it for it in trace.items}
    costs = {c.id: item_tokens(known[c.id], enc) if c.id in known else count_text(c.text, enc) for c in cands}
    retained_sum = sum(item_tokens(i, enc) for i in trace.retained)
    overhead = (trace.input_tokens - retained_sum) if trace.input_tokens is not None else 0
    rule = _ItemRule(enc, costs, overhead)
    c_of = (plan.capacity, None if plan.capacity is None else plan.capacity_source)

    def failed(error: str, overrun: int | None) -> Outcome:
        everything = Trim(tuple(True for _ in cands), {}, (), rule.count(cands))  # eq. 3.1 before trimming
        pre = _before_trim(eq31.check_capacity(_trace(trace, scenario, plan, cands, costs, everything, enc, trace_id)),
                           plan.reported_gap)
        return Outcome(scenario, trace, None, error, (), {}, f"cannot be built: {error}", None, recorded,
                       overrun, pre, tuple(plan.notes), tuple(plan.rules), *c_of)

    if plan.error is not None:
        return failed(plan.error, None)
    try:
        t = trim(cands, rule, NO_LIMIT if plan.max_input is None else plan.max_input, plan.caps)
    except RequiredOverBudgetError as exc:
        return failed(str(exc), exc.overrun)
    except BuildError as exc:
        return failed(str(exc), None)
    new = _trace(trace, scenario, plan, cands, costs, t, enc, trace_id)
    moved, why = {i for i, _ in scenario.moves}, kept_with(cands)  # a pinned call's result: say why it is back
    changes = tuple(
        ItemChange(it.id, it.kind.value, _where(known.get(it.id)), _where(it) + (f" ({why[it.id]})" if it.id in why else ""),
                   why.get(it.id, ""))
        for it in new.items
        if it.id in moved or known.get(it.id) is None or known[it.id].status is not it.status
        or known[it.id].omission_reason != it.omission_reason
    )
    before = {a.category: a.used for a in eq31.allocations(trace)}
    after = {a.category: a.used for a in eq31.allocations(new)}
    delta = {c: (before.get(c, 0), after.get(c, 0)) for c in CATEGORY_ORDER if c in before or c in after}
    c = _conclude(new, trace, context)
    return Outcome(scenario, trace, new, None, changes, delta, c.verdict, c.state, recorded, None,
                   _before_trim(eq31.check_capacity(new), plan.reported_gap), tuple(plan.notes), tuple(plan.rules),
                   *c_of)


def _reason(trace_reason: str, plan: Plan) -> str:
    """The trimmer's reason in the what-if's words: a declared category budget's cap is ``budget:<category>``."""
    if trace_reason.startswith("cap:"):
        cat = trace_reason[4:].split(" ", 1)[0]
        if any(c.value == cat for c in plan.declared_caps):
            return "budget:" + trace_reason[4:]
    return trace_reason


def _trace(trace: RequestTrace, sc: Scenario, plan: Plan, cands: list[Candidate], costs: dict[str, int], t: Trim,
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
            if recorded_rule is OmissionRule.BUDGET and base.omission_reason:
                why = base.omission_reason  # the same rule omits it again: the recorded words
            items.append(replace(base, status=Status.OMITTED, position=None, omission_reason=why))
    recorded_input = trace.input_tokens if trace.input_tokens is not None else sum(
        item_tokens(i, enc) for i in trace.retained)
    shift = t.input_tokens - recorded_input
    reported = trace.usage.input_tokens
    same = len(items) == len(trace.items) and all(
        a.id == b.id and a.status is b.status for a, b in zip(items, trace.items))
    digest = hashlib.sha256(repr(sc).encode()).hexdigest()[:8]
    return replace(
        trace, trace_id=trace_id or f"{trace.trace_id}~whatif-{digest}", replay_of=trace.trace_id,
        endpoint=replace(trace.endpoint, capacity=trace.endpoint.capacity if sc.capacity is None else sc.capacity),
        items=tuple(items), budget=plan.wbudget,
        reserved_output_tokens=plan.reserve,
        input_tokens=None if trace.input_tokens is None else t.input_tokens,
        usage=replace(trace.usage, input_tokens=None if reported is None else reported + shift),
        request=trace.request if same else SerializedRequest(), source_format="whatif",
        attributes={**dict(trace.attributes), "ctxviewer.whatif.of": trace.trace_id,
                    "ctxviewer.whatif.scenario": describe(sc),
                    WHATIF_CHANGED: not (same and all(a.position == b.position for a, b in zip(items, trace.items)))},
    )


WHATIF_CHANGED = "ctxviewer.whatif.changed"
"""Trace attribute of a what-if's trace: ``True`` when its items differ from the recording's (an
item's status or position), so the recorded response it keeps answered another request."""


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
