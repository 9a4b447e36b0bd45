"""Position tests: move one item to each asked position, send every variant R times, score each
answer, and analyse (chapter 3.4: "hold the question, sources and settings fixed, move only the
relevant passage, repeat").

A position is 1-based among the retained items of the moved item's kind (evidence documents
among the evidence), so position 1 is the first document and the last position the one nearest
the question. :func:`move_item` places the item there and keeps every other item in its order
(omitted items keep their places); :func:`variants` rebuilds each variant's request from the
items (:func:`~ctxviewer.replay.rebuild.plan_request` with ``from_items``) and checks that it
differs from the first variant only by where the item sits (:func:`only_moved`: the bodies with
the item's turn removed are byte-identical), else raises ``ValueError``.

:func:`run_position_test` sends repeat by repeat, each repeat over every position in turn (so a
drift of the endpoint over time does not fall on one position), stores each run as a trace
(``replay_of`` the original, attributes ``ctxviewer.position_test.*``: ``id``, ``item``,
``position``, ``repeat``, ``rule``, ``score``) and analyses the scores
(:func:`ctxviewer.replay.stats.analyse`). No Qt here.
"""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from ctxviewer.model.trace import ContextItem, RequestTrace, Status
from ctxviewer.replay.endpoints import EndpointConfig
from ctxviewer.replay.rebuild import RequestPlan, plan_request, shape_family
from ctxviewer.replay.run import replay
from ctxviewer.replay.scoring import ScoreRule
from ctxviewer.replay.stats import Analysis, RunScore, analyse

ATTR = "ctxviewer.position_test"
"""Prefix of the run traces' attributes: ``.id``, ``.item``, ``.position``, ``.repeat``, ``.rule``, ``.score``."""


def parse_positions(text: str) -> list[int]:
    """``"1, 5,10"`` -> ``[1, 5, 10]``. Raises ``ValueError`` unless two or more different whole
    numbers of 1 or more are given."""
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of whole numbers") from None
    if len(values) < 2 or len(set(values)) != len(values) or min(values) < 1:
        raise ValueError("give two or more different positions, each 1 or more (e.g. 1,5,10)")
    return values


def slots(trace: RequestTrace, item_id: str) -> list[ContextItem]:
    """The retained items of ``item_id``'s kind, in order (the positions 1..n). Raises ``KeyError``
    for an unknown item and ``ValueError`` for an omitted one."""
    item = trace.item(item_id)
    if item.status is not Status.RETAINED:
        raise ValueError(f"trace {trace.trace_id}: item {item_id} was omitted; only a sent item can be moved")
    return [i for i in trace.retained if i.kind is item.kind]


def move_item(trace: RequestTrace, item_id: str, position: int) -> RequestTrace:
    """``trace`` with ``item_id`` at ``position`` (1-based among :func:`slots`), the retained items'
    ``position`` renumbered. Raises ``ValueError`` for a position outside 1..n."""
    same = slots(trace, item_id)
    if not 1 <= position <= len(same):
        raise ValueError(f"position {position} is outside 1..{len(same)} (the {same[0].kind.value} items of "
                         f"trace {trace.trace_id})")
    moved = trace.item(item_id)
    rest = [i for i in trace.items if i.id != item_id]
    others = [i for i in same if i.id != item_id]
    if position <= len(others):
        at = next(n for n, i in enumerate(rest) if i.id == others[position - 1].id)
    else:
        at = next(n for n, i in enumerate(rest) if i.id == others[-1].id) + 1
    order = rest[:at] + [moved] + rest[at:]
    n = 0
    out = []
    for i in order:
        if i.status is Status.RETAINED:
            n += 1
            i = replace(i, position=n)
        out.append(i)
    return replace(trace, items=tuple(out))


def _without(doc: dict[str, Any], family: str, text: str) -> dict[str, Any]:
    d = copy.deepcopy(doc)
    key = "input" if family == "responses" else "messages"
    units = d.get(key) or []
    for n, m in enumerate(units):
        content = m.get("content")
        if content == text:
            del units[n]
            return d
        if isinstance(content, list):
            for b, block in enumerate(content):
                if isinstance(block, dict) and block.get("text") == text:
                    del content[b]
                    if not content:
                        del units[n]
                    return d
    return d


def only_moved(a: RequestPlan, b: RequestPlan, family: str, text: str) -> bool:
    """Whether bodies ``a`` and ``b`` are byte-identical once the turn holding ``text`` is removed
    from each (adjacent turns of one role merged again for Anthropic Messages)."""
    def norm(doc: dict[str, Any]) -> str:
        d = _without(doc, family, text)
        if family == "messages":
            merged: list[dict[str, Any]] = []
            for m in d["messages"]:
                if merged and merged[-1]["role"] == m["role"] and isinstance(m["content"], list):
                    merged[-1]["content"] += m["content"]
                else:
                    merged.append(m)
            d["messages"] = merged
        return json.dumps(d, ensure_ascii=False)
    return norm(a.doc) == norm(b.doc)


@dataclass(frozen=True)
class Variant:
    """One position's trace (item moved) and the request it sends."""

    position: int
    trace: RequestTrace
    plan: RequestPlan


def variants(trace: RequestTrace, item_id: str, positions: Sequence[int], ep: EndpointConfig,
             overrides: Mapping[str, Any] | None = None) -> list[Variant]:
    """One :class:`Variant` per position (module docstring). Raises ``ValueError`` when a position
    is out of range or a variant changes more than the item's place."""
    text = trace.item(item_id).content
    if text is None:
        raise ValueError(f"trace {trace.trace_id}: item {item_id} has no recorded content to move")
    out = []
    for p in positions:
        moved = move_item(trace, item_id, p)
        out.append(Variant(p, moved, plan_request(moved, ep, overrides, from_items=True)))
    family = shape_family(ep.kind)
    for v in out[1:]:
        if not only_moved(out[0].plan, v.plan, family, text):
            raise ValueError(f"trace {trace.trace_id}: the variant at position {v.position} changes more than "
                             f"where {item_id} sits")
    return out


@dataclass(frozen=True)
class PositionTestResult:
    """A finished (or cancelled) test: its id, every run's trace and score, the analysis."""

    test_id: str
    traces: tuple[RequestTrace, ...]
    scores: tuple[RunScore, ...]
    analysis: Analysis | None
    """``None`` when cancelled before every position had a run of every item."""
    cancelled: bool = False
    checked: str = ""
    """What was checked of the variants, in words (``"3 variants of evidence-in-middle: each request is
    byte-identical to the first but for where KB-1008#p1 sits (rebuilt from the items)"``)."""


def run_position_test(cases: Sequence[tuple[RequestTrace, str]], ep: EndpointConfig, positions: Sequence[int],
                      repeats: int, rule: ScoreRule, *, overrides: Mapping[str, Any] | None = None,
                      environ: Mapping[str, str] | None = None, transport: Any = None,
                      progress: Callable[[int, int], None] = lambda done, total: None,
                      cancelled: Callable[[], bool] = lambda: False, test_id: str | None = None) -> PositionTestResult:
    """Run the test over ``cases`` (``(trace, item id)`` each: several traces give the item-level
    analysis) on ``ep`` (module docstring). Raises ``ValueError`` for a bad variant,
    :class:`~ctxviewer.replay.endpoints.EndpointError` and :class:`~ctxviewer.replay.send.SendFailure`."""
    test_id = test_id or f"ptest-{uuid.uuid4().hex[:8]}"
    all_variants = [(t, item, variants(t, item, positions, ep, overrides)) for t, item in cases]
    checked = "; ".join(f"{len(vs)} variants of {t.trace_id}: each request is byte-identical to the first but for "
                        f"where {item} sits (rebuilt from the items)" for t, item, vs in all_variants)
    total, done = len(cases) * len(positions) * repeats, 0
    traces: list[RequestTrace] = []
    scores: list[RunScore] = []
    for r in range(1, repeats + 1):
        for original, item, vs in all_variants:
            for v in vs:
                if cancelled():
                    return PositionTestResult(test_id, tuple(traces), tuple(scores), None, True, checked)
                tid = f"{original.trace_id}~{test_id}-p{v.position}-r{r}"
                extra = {f"{ATTR}.id": test_id, f"{ATTR}.item": item, f"{ATTR}.position": v.position,
                         f"{ATTR}.repeat": r, f"{ATTR}.rule": rule.text}
                res = replay(v.trace, ep, environ=environ, transport=transport, cancelled=cancelled, trace_id=tid,
                             extra=extra, plan=v.plan)
                ok = rule.score(res.trace.response.text if res.trace.response else None)
                attrs = {**res.trace.attributes, f"{ATTR}.score": ok}
                traces.append(replace(res.trace, attributes=attrs))
                scores.append(RunScore(original.trace_id, v.position, r, ok))
                done += 1
                progress(done, total)
    return PositionTestResult(test_id, tuple(traces), tuple(scores), analyse(scores), False, checked)
