"""Trimming by the chapter's rules (section 3.3 ``build_request``), fast and textbook.

Rules, in order:

1. Required items (policy, the current user request, pinned items) are never removed.
2. Per-category caps (tokens of the items' content, eq. 3.1 categories in :data:`CAP_ORDER`) apply
   first: while a category is over its cap, its lowest-priority optional unit goes.
3. Then the global limit: while the request's input tokens exceed ``max_input_tokens``
   (C minus the reserved output), the lowest-priority optional unit goes.
4. A unit is an item, or an assistant tool call with its tool results (kept or dropped together).
   Lowest priority first; ties: the unit that comes first in candidate order.
5. When nothing optional is left and the request is still over, :class:`RequiredOverBudgetError`
   names the overrun in tokens.

:func:`trim` gets the input tokens from the rule's incremental *tally* (each item counted once,
junctions exact); :func:`textbook_trim` re-serializes and re-counts the whole request after every
removal, as the chapter's loop does. Both return the same :class:`Trim` (property-tested).
No Qt here.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Mapping, Sequence

from ctxviewer.builder.candidates import CAP_ORDER, Candidate, RequiredOverBudgetError, Unit, removal_order, units
from ctxviewer.builder.rules import CountingRule
from ctxviewer.model.trace import Category


@dataclass(frozen=True)
class Trim:
    """Which candidates were kept, why the others were omitted, and the input tokens."""

    kept: tuple[bool, ...]
    """Per candidate (candidate order): retained?"""
    reasons: Mapping[int, str]
    """Omitted candidate index -> reason (``budget``, ``cap:evidence``, ``... with its tool call``)."""
    removed: tuple[int, ...]
    """Omitted candidate indices in the order they were removed."""
    input_tokens: int
    """Input tokens of the request as built, by the rule."""


def _reason(base: str, members: tuple[int, ...], member: int, cands: Sequence[Candidate]) -> str:
    if len(members) == 1:
        return base
    if member == members[0]:
        return f"{base} (with its {len(members) - 1} tool result(s))"
    return f"{base} (dropped with tool call {cands[members[0]].id})"


_LAST_ORDER: list[tuple[tuple[Candidate, ...], list[tuple[float, int, tuple[int, ...]]]]] = []
"""The last candidate list (kept alive, compared by identity) and its removal order: a what-if
slider re-trims the same candidates under other budgets, and the order depends only on them."""


def _removal_order(cands: list[Candidate]) -> list[tuple[float, int, tuple[int, ...]]]:
    last = _LAST_ORDER[-1] if _LAST_ORDER else None
    if last is not None and len(last[0]) == len(cands) and all(map(operator.is_, last[0], cands)):
        return last[1]
    order = removal_order(cands)
    _LAST_ORDER[:] = [(tuple(cands), order)]  # candidates are frozen: identity means same order
    return order


def trim(cands: Sequence[Candidate], rule: CountingRule, max_input_tokens: int,
         caps: Mapping[Category, int] | None = None) -> Trim:
    """Trim ``cands`` (in final order) to ``max_input_tokens`` by the rules in the module docstring.

    Raises :class:`RequiredOverBudgetError` when the required items alone are over.
    """
    cands = list(cands)
    order = _removal_order(cands)  # read only below
    tally = rule.tally(cands)
    kept = [True] * len(cands)
    reasons: dict[int, str] = {}
    removed: list[int] = []
    gone = [False] * len(order)
    remove = tally.remove

    def drop(k: int, base: str) -> None:
        gone[k] = True
        members = order[k][2]
        for m in members:
            kept[m] = False
            reasons[m] = base if len(members) == 1 else _reason(base, members, m, cands)
            removed.append(m)
            remove(m)

    for cat in CAP_ORDER:
        cap = (caps or {}).get(cat)
        if cap is None:
            continue
        used = sum(rule.cost(c) for c, k in zip(cands, kept) if k and c.cat is cat)
        for k, (_, _, members) in enumerate(order):
            if used <= cap:
                break
            if gone[k] or not any(cands[m].cat is cat for m in members):
                continue
            used -= sum(rule.cost(cands[m]) for m in members if cands[m].cat is cat)
            drop(k, f"cap:{cat.value}")
    for k in range(len(order)):
        if tally.total <= max_input_tokens:
            break
        if gone[k]:
            continue
        members = order[k][2]
        if len(members) == 1:  # inlined drop() for the common case
            m = members[0]
            kept[m] = False
            gone[k] = True
            reasons[m] = "budget"
            removed.append(m)
            remove(m)
        else:
            drop(k, "budget")
    if tally.total > max_input_tokens:
        raise RequiredOverBudgetError(tally.total, max_input_tokens)
    return Trim(tuple(kept), reasons, tuple(removed), tally.total)


def textbook_trim(cands: Sequence[Candidate], rule: CountingRule, max_input_tokens: int,
                  caps: Mapping[Category, int] | None = None) -> Trim:
    """The chapter's loop: after every removal, serialize the kept items and count the whole
    request again (cap sums are item content tokens, additive by definition). Same rules and result as :func:`trim`, slowly."""
    all_units = [u for u in units(list(cands)) if not u.required]  # the same units as trim()
    kept = [True] * len(cands)
    reasons: dict[int, str] = {}
    removed: list[int] = []
    alive = list(all_units)

    def drop(u: Unit, base: str) -> None:
        alive.remove(u)
        for m in u.members:
            kept[m] = False
            reasons[m] = _reason(base, u.members, m, cands)
            removed.append(m)

    def cat_tokens(cat: Category) -> int:
        return sum(rule.cost(c) for c, k in zip(cands, kept) if k and c.cat is cat)

    for cat in CAP_ORDER:
        cap = (caps or {}).get(cat)
        if cap is None:
            continue
        while cat_tokens(cat) > cap:
            mine = [u for u in alive if any(cands[m].cat is cat for m in u.members)]
            if not mine:
                break
            drop(min(mine, key=lambda u: u.key), f"cap:{cat.value}")
    while True:
        input_tokens = rule.count([c for c, k in zip(cands, kept) if k])
        if input_tokens <= max_input_tokens:
            break
        if not alive:
            raise RequiredOverBudgetError(input_tokens, max_input_tokens)
        drop(min(alive, key=lambda u: u.key), "budget")
    return Trim(tuple(kept), reasons, tuple(removed), input_tokens)
