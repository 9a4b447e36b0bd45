"""The rules a recording's omissions name, decided again for a what-if (:mod:`.whatif`).

Every omitted item is re-decided by the rule its recorded omission reason names (:func:`rule_of`):

* **budget** (``budget``, ``trim``, ``cap:*``): chapter 3.3's loop, lowest priority first, over
  the retained and budget-omitted items: first each declared category budget B_x as a cap on its
  category (chapter 3.4: "retrieved evidence is capped at 5,000"), then the input budget
  C - B_out - the declared safety margin (chapter 3.1: the margin is kept for template overhead
  and count variation). A declared limit the recording itself exceeds was not applied by its
  application and is not applied here either while C and B_out are as recorded (the plan's notes
  say so); with no input budget (C unknown) the budget-omitted items stay as recorded.
* **window** (``window``): the history window keeps the most recent N items of the kinds it cut,
  N as many as passed it in the recording (recency is the recorded order; priorities do not move it).
* **rank** (``rank``): the retrieval cut keeps, per kind and source store, the k best items by
  priority, k as many as passed it in the recording.
* **policy** (any other recorded reason: ``unavailable: ...``, ``fallback refused: ...``,
  ``permission``, ``duplicate``, "dropped between calls (derived)") and an omission with no recorded
  reason: filtered by the application before trimming; they stay omitted.

A pin overrides whatever rule omitted the item, and the plan's notes say which ("turn-01 was
omitted by the history window; pinned, it is kept"). :func:`plan` decides all this before the
budget trimming (:func:`ctxviewer.builder.trim`), which :func:`ctxviewer.builder.whatif.run` runs
over what the plan leaves. Tokens are tokens of the trace's encoding. No Qt here.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass, field
from typing import Mapping

from ctxviewer.assess.budget import CATEGORY_LABELS, CATEGORY_ORDER, RECORDED, catalogue_capacity, category_of
from ctxviewer.builder.api import input_budget
from ctxviewer.builder.candidates import BuildError, Candidate
from ctxviewer.model.source_window import recorded_source_window
from ctxviewer.model.trace import Category, ContextItem, Kind, LimitMode, RequestTrace, Status
from ctxviewer.tokens.counting import DEFAULT_ENCODING, UnknownEncodingError, count_tokens
from ctxviewer.tokens.placeholders import holds_media

BUDGET_REASONS = ("budget", "trim", "cap")
"""Omission reasons (prefixes) of the budget rule: the item is a trimming candidate again."""

NO_LIMIT = sys.maxsize
"""The input budget passed to the trimmer when no global limit applies (C unknown, or not kept)."""


class OmissionRule(str, enum.Enum):
    """The rule that omitted an item, read from its recorded omission reason (:func:`rule_of`)."""

    BUDGET = "budget"
    WINDOW = "window"
    RANK = "rank"
    POLICY = "policy"
    UNKNOWN = "unknown"


RULE_WORDS = {
    OmissionRule.BUDGET: "for budget",
    OmissionRule.WINDOW: "by the history window",
    OmissionRule.RANK: "by the retrieval rank cut",
    OmissionRule.POLICY: "by the application's policy",
    OmissionRule.UNKNOWN: "for a reason not recorded",
}
"""How a note says which rule omitted an item (``"turn-01 was omitted by the history window"``)."""


def rule_of(item: ContextItem) -> OmissionRule | None:
    """The rule that omitted ``item`` (``None`` when it was retained): budget for a reason starting
    with ``budget``, ``trim`` or ``cap``; window or rank when the reason names one; no reason is
    :attr:`OmissionRule.UNKNOWN`; any other reason (``unavailable: ...``, ``permission``, ...) :attr:`OmissionRule.POLICY`."""
    if item.status is Status.RETAINED:
        return None
    reason = (item.omission_reason or "").strip().lower()
    if not reason:
        return OmissionRule.UNKNOWN
    if reason.startswith(BUDGET_REASONS):
        return OmissionRule.BUDGET
    if "window" in reason:
        return OmissionRule.WINDOW
    if "rank" in reason:
        return OmissionRule.RANK
    return OmissionRule.POLICY


def omitted_by(item: ContextItem) -> str:
    """``"omitted by the history window"``, ``"omitted by the application's policy (permission)"``,
    ... : which rule omitted ``item``, in words (``""`` for a retained item)."""
    rule = rule_of(item)
    if rule is None:
        return ""
    words = RULE_WORDS[rule]
    if rule is OmissionRule.POLICY:
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


WHATIF_SOURCE = "set for this what-if"
""":attr:`Plan.capacity_source` of a C the scenario gives (``--capacity``, the what-if tab's box)."""


def trace_encoding(trace: RequestTrace) -> str:
    """The encoding the trace's token counts are in (its endpoint's, else the default)."""
    return trace.endpoint.encoding or DEFAULT_ENCODING


def count_text(text: str, encoding: str) -> int:
    """Tokens of ``text`` in ``encoding`` (the default encoding when that one is not available offline)."""
    try:
        return count_tokens(text, encoding)
    except UnknownEncodingError:
        return count_tokens(text, DEFAULT_ENCODING)


def item_tokens(item: ContextItem, encoding: str) -> int:
    """The item's recorded token count, else its content counted in ``encoding`` (tokens)."""
    return item.tokens if item.tokens is not None else count_text(item.content or "", encoding)


def _store(item: ContextItem) -> str | None:
    return item.source.store if item.source is not None else None


def _n(v: int) -> str:
    return f"{v:,}"


@dataclass
class Plan:
    """What :func:`decide` settles before the budget trimming: the order, what the window, rank and
    policy rules omit, the pins that hold, and the budget limits (tokens) with the words for them."""

    order: list[ContextItem | Candidate]
    """Every item of the what-if in final order: recorded items and hypothetical candidates."""
    cut: dict[str, str]
    """Item id -> omission reason, for items the window, rank or policy rule omits (not trimmed)."""
    pins: frozenset[str]
    """Pinned ids that can be sent."""
    capacity: int | None
    """C of the what-if, tokens: the scenario's, else the C the trace header checks eq. 3.1 against
    (:func:`ctxviewer.assess.budget.catalogue_capacity`: a value set in ctxviewer.toml, the recorded
    one, else an assumed window -- :attr:`capacity_source` says which)."""
    reserve: int | None
    """B_out of the what-if (the scenario's, else the recorded; ``None`` = not recorded), tokens."""
    max_input: int | None
    """The global input budget (tokens), ``None`` when none applies."""
    caps: dict[Category, int]
    """Per-category caps: the declared budgets the recording kept, and the scenario's."""
    declared_caps: frozenset[Category]
    """The categories whose cap is a declared budget (their omissions say ``budget:<category>``)."""
    wbudget: dict[Category, int]
    """The what-if's declared budget (the recording's, with the scenario's caps and reserve)."""
    notes: list[str]
    """What the reader should know: which rule each pin overrides, limits the recording did not keep."""
    rules: list[str]
    """The rules re-run, in words."""
    error: str | None = None
    """Why the scenario's limits leave no input budget, in words; ``None`` when they do."""
    capacity_source: str = RECORDED
    """Where :attr:`capacity` came from, worded as the header words it: ``"recorded"``, ``"set for
    this what-if"`` (:data:`WHATIF_SOURCE`; neither is added to the budget rule's words),
    ``"assumed (model catalogue: genai-prices 0.2.3, gpt-4o)"`` ..."""
    input_limit: bool = False
    """True when the assumed C is an input limit the trace's source recorded (LiteLLM's
    ``max_input_tokens``): the input budget is C itself, B_out apart (as eq. 3.1 checks it)."""
    reported_gap: int = 0
    """Tokens the provider counted beyond the items of the recorded request when that gap lowered
    :attr:`max_input` (:func:`_reported_limit`), else 0."""


def priority_of(it: ContextItem, sc: Scenario) -> float:
    """The item's priority under ``sc`` (the scenario's, else the recorded; not recorded counts as 0)."""
    p = sc.priorities.get(it.id, it.priority)
    return float(p) if p is not None else 0.0


def decide(trace: RequestTrace, sc: Scenario) -> Plan:
    """Decide ``trace``'s omissions by their rules under ``sc`` (see the module docstring), up to
    the budget trimming: the pins that hold (and the notes saying which rule each overrides), what
    the window, rank and policy rules omit, the declared budgets kept as caps, and the input budget."""
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
        if rule[it.id] in (OmissionRule.POLICY, OmissionRule.UNKNOWN) and it.id not in pins:
            cut[it.id] = it.omission_reason or ""
        unmoved = (OmissionRule.WINDOW, OmissionRule.POLICY, OmissionRule.UNKNOWN)
        if rule[it.id] in unmoved and it.id in sc.priorities and it.id not in pins:
            notes.append(f"the priority of {it.id} changes nothing: it was {omitted_by(it)}, which priorities do "
                         "not move; pin it to keep it")
    _window(trace, rule, pins, cut, rules)
    _rank(trace, sc, rule, pins, cut, rules)

    wbudget = dict(trace.budget)
    wbudget.update(sc.caps)
    if sc.reserve is not None:
        wbudget[Category.OUT] = sc.reserve
    enc = trace_encoding(trace)
    caps: dict[Category, int] = {}
    kept_words = []
    for cat in CATEGORY_ORDER:
        declared = trace.budget.get(cat)
        if declared is None or cat in sc.caps or cat in (Category.SYS, Category.USER):
            continue  # policy and the user request are required: a cap on them removes nothing
        used = sum(item_tokens(i, enc) for i in trace.retained if category_of(i, trace) is cat)
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

    capacity: int | None
    if sc.capacity is not None:  # the user's C for this what-if comes first
        capacity, source = sc.capacity, WHATIF_SOURCE
    else:  # the C the header checks eq. 3.1 against, assumed or not
        capacity, source = catalogue_capacity(trace)
    window = recorded_source_window(trace.attributes)
    reserve = sc.reserve if sc.reserve is not None else trace.reserved_output_tokens
    result = Plan(_order(trace, sc), cut, frozenset(pins), capacity, reserve, None, caps, declared_caps,
                  wbudget, notes, rules, capacity_source=source,
                  input_limit=window is not None and source == f"assumed ({window[1]})")
    _limit(trace, sc, result, enc)
    _reported_limit(trace, sc, result, enc)
    if result.max_input is None:
        held = [it for it in items if rule[it.id] is OmissionRule.BUDGET and it.id not in pins]
        for it in held:
            cut[it.id] = it.omission_reason or ""
        if held:
            notes.append(f"{len(held)} item(s) omitted for budget stay omitted: no input budget to re-trim them by")
    return result


def _limit(trace: RequestTrace, sc: Scenario, plan: Plan, enc: str) -> None:
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
    elif plan.input_limit:  # an input limit (LiteLLM's max_input_tokens): B_out apart
        base, what = plan.capacity, f"the input limit {_n(plan.capacity)} {plan.capacity_source}"
    else:
        try:
            base = input_budget(plan.capacity, reserve)
        except BuildError as exc:
            plan.error = str(exc)
            return
        said = "" if plan.capacity_source in (RECORDED, WHATIF_SOURCE) else f" {plan.capacity_source}"  # as the header
        what = f"C {_n(plan.capacity)}{said} - B_out {_n(reserve) if plan.reserve is not None else '(not recorded: 0)'}"
    as_recorded = (sc.capacity is None or sc.capacity == ep.capacity) and reserve == (trace.reserved_output_tokens or 0)
    recorded_input = trace.input_tokens if trace.input_tokens is not None else sum(
        item_tokens(i, enc) for i in trace.retained)
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


def _reported_limit(trace: RequestTrace, sc: Scenario, plan: Plan, enc: str) -> None:
    """Lower ``plan.max_input`` to what the provider's own count leaves: when it reported more input
    for the recorded request than the count (framing, tool overhead, what the trace does not hold),
    that gap rides along whatever is trimmed, and eq. 3.1 judges a request by the reported input
    when the count fits (:data:`ctxviewer.assess.input_source.REPORTED_SOURCE`). So the items must
    fit C - B_out - the gap, else the what-if would call a request "fits, nothing changed" and
    "over capacity by the provider-reported input" at once (new user nu2 #5). Not applied while C
    and B_out are as recorded (the what-if then reproduces the recording) or with separate limits."""
    reported = trace.usage.input_tokens
    if plan.max_input is None or plan.capacity is None or reported is None:
        return
    as_recorded = (sc.capacity is None or sc.capacity == trace.endpoint.capacity) and (
        (plan.reserve or 0) == (trace.reserved_output_tokens or 0))
    if as_recorded or plan.input_limit or (trace.endpoint.limit_mode is LimitMode.SEPARATE and sc.capacity is None):
        return
    recorded_input = trace.input_tokens if trace.input_tokens is not None else sum(
        item_tokens(i, enc) for i in trace.retained)
    gap = reported - recorded_input
    if gap <= 0:
        return
    if any(holds_media(i.content) for i in trace.retained):  # review M2: a PDF counted ~0 may hold the gap
        plan.notes.append(f"the provider counted {_n(gap)} tokens beyond the items, which may be in the request's "
                          "images or documents (trimming one removes its share): the what-if trims by the count")
        return
    base = plan.capacity - (plan.reserve or 0)
    if base - gap <= 0:
        plan.error = (f"the provider reported {_n(reported)} input tokens for the recorded request, {_n(gap)} more "
                      f"than its count of {_n(recorded_input)}: C - B_out = {_n(base)} tokens leaves no room for the items")
        return
    if base - gap < plan.max_input:
        plan.max_input, plan.reported_gap = base - gap, gap
        plan.rules.append(f"budget: the provider counts {_n(gap)} tokens beyond the items (it reported {_n(reported)} "
                          f"for {_n(recorded_input)} counted): input <= {_n(base)} - {_n(gap)} = {_n(base - gap)} tokens")


def _window(trace: RequestTrace, rule: dict[str, OmissionRule | None], pins: set[str], cut: dict[str, str],
            rules: list[str]) -> None:
    """The history window: the most recent N items of the kinds it cut pass (N as recorded)."""
    kinds = {it.kind for it in trace.items if rule[it.id] is OmissionRule.WINDOW}
    if not kinds:
        return
    group = [it for it in trace.items if it.kind in kinds and it.id not in cut
             and rule[it.id] in (None, OmissionRule.WINDOW, OmissionRule.BUDGET)]
    n = sum(1 for it in group if rule[it.id] is not OmissionRule.WINDOW)
    free = [it for it in group if it.id not in pins]
    keep = max(0, n - sum(1 for it in group if it.id in pins and rule[it.id] is not OmissionRule.WINDOW))
    passing = {it.id for it in free[max(0, len(free) - keep):]} if keep else set()
    for it in free:
        if it.id not in passing:
            cut[it.id] = it.omission_reason if rule[it.id] is OmissionRule.WINDOW and it.omission_reason else "window"
    names = " and ".join(sorted(k.value for k in kinds))
    rules.append(f"window: the {n} most recent {names} items (recorded order)")


def _rank(trace: RequestTrace, sc: Scenario, rule: dict[str, OmissionRule | None], pins: set[str],
          cut: dict[str, str], rules: list[str]) -> None:
    """The retrieval cut: per kind and source store, the k best items by priority pass (k as recorded)."""
    keys = sorted({(it.kind.value, _store(it) or "") for it in trace.items if rule[it.id] is OmissionRule.RANK})
    for kind, store in keys:
        group = [(k, it) for k, it in enumerate(trace.items)
                 if (it.kind.value, _store(it) or "") == (kind, store) and it.id not in cut
                 and rule[it.id] in (None, OmissionRule.RANK, OmissionRule.BUDGET)]
        n = sum(1 for _, it in group if rule[it.id] is not OmissionRule.RANK)
        keep = max(0, n - sum(1 for _, it in group if it.id in pins and rule[it.id] is not OmissionRule.RANK))
        free = sorted((p for p in group if p[1].id not in pins),
                      key=lambda p: (-priority_of(p[1], sc), rule[p[1].id] is OmissionRule.RANK, p[0]))
        for _, it in free[keep:]:
            cut[it.id] = it.omission_reason if rule[it.id] is OmissionRule.RANK and it.omission_reason else "rank"
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
