"""The run tree in words: each step of a run (agent, model call, tool, retriever, an Inspect
solver or scorer) under its parent, with its duration, status and -- for a model call -- its
tokens and cost; what ``ctxviewer tree`` prints and the window's run tree shows.

:func:`build_tree` nests stored steps (:class:`ctxviewer.store.runs.RunStep`) by their parent ids
(a step whose parent is not in the run becomes a root, said in its line); :func:`step_line` is one
step's text. Unrecorded values read "not recorded", a cost the price library does not know "not
known"; trace text is shown with its invisible characters as markers. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ctxviewer.model.run import TOOL_NAME_KEYS
from ctxviewer.model.trace import NOT_RECORDED
from ctxviewer.model.words import fmt_int
from ctxviewer.tokens.cost import fmt_cost
from ctxviewer.util.visible import one_line


@dataclass
class Node:
    """One step and the steps under it, by start time."""

    step: Any
    """The stored step (:class:`ctxviewer.store.runs.RunStep`)."""
    children: list[Node] = field(default_factory=list)
    orphan: bool = False
    """Its parent id names no step of the run (the file did not hold the parent), or a parent whose
    chain of parents leads back to it (then :attr:`cycle` too)."""
    cycle: bool = False
    """Its parent is in the run, but the parents' chain comes back to it (the span itself, or one under it)."""


def build_tree(steps: list[Any]) -> list[Node]:
    """The roots of the run whose ``steps`` are given (by start time, as
    :meth:`~ctxviewer.store.TraceStore.run_steps` returns them), each with its children in that
    order. A step whose parent is missing is a root marked :attr:`Node.orphan`; a parent cycle is
    broken at the step that closes it (made an orphan root)."""
    nodes = {s.span.span_id: Node(s) for s in steps}
    roots: list[Node] = []
    for s in steps:
        node = nodes[s.span.span_id]
        parent = s.span.parent_id
        cur, seen = parent, {s.span.span_id}
        while cur is not None and cur in nodes and cur not in seen:  # a cycle: treat as orphan
            seen.add(cur)
            cur = nodes[cur].step.span.parent_id
        if parent is None or parent not in nodes or cur == s.span.span_id:  # a chain into another cycle: a child
            node.orphan = parent is not None
            node.cycle = parent is not None and parent in nodes
            roots.append(node)
        else:
            nodes[parent].children.append(node)
    return roots


def _ms(value: float | None) -> str:
    if value is None:
        return f"duration {NOT_RECORDED}"
    if value < 0:
        return f"negative duration {value:,.0f} ms (end before start)"
    return f"{value:,.0f} ms"


def step_line(node: Node) -> str:
    """``"llm openai/gpt-4o-mini · 1,235 ms · ok · input 6,221 · output 207 · $0.000723 · trace T"``:
    kind, name (a tool step's tool after it when the name does not hold it: ``"tool ai.toolCall
    (getWeather)"``), duration, status (``ERROR: message``), and for a model call its reported input and
    output tokens (the recorded usage), cost and trace id."""
    s = node.step
    sp = s.span
    head = f"{sp.kind} {one_line(sp.name)}" if sp.name else sp.kind
    tool = next((sp.attributes[k] for k in TOOL_NAME_KEYS if isinstance(sp.attributes.get(k), str)), None) \
        if sp.kind == "tool" else None
    if tool and tool not in (sp.name or ""):
        head += f" ({one_line(tool)})"  # Vercel's span is named ai.toolCall whatever the tool
    parts = [head, _ms(s.duration_ms)]
    if sp.status == "error":
        parts.append("ERROR" + (f": {one_line(sp.status_message)}" if sp.status_message else ""))
    elif sp.status:
        parts.append(one_line(sp.status))
    elif sp.end is None and sp.start is not None:
        parts.append("end not recorded")
    if sp.trace_id is not None:
        parts += [f"input {fmt_int(s.input_tokens)}", f"output {fmt_int(s.output_tokens)}", fmt_cost(s.cost),
                  f"trace {one_line(sp.trace_id)}"]
    if node.cycle:  # new-user finding F12: a span naming itself was "not in the file"
        parts.append(f"parent {one_line(sp.parent_id)} is "
                     + ("the span itself (a cycle)" if sp.parent_id == sp.span_id else "under this span (a cycle)"))
    elif node.orphan:
        parts.append(f"parent {one_line(sp.parent_id)} not in the file")
    return " · ".join(parts)


def tree_lines(roots: list[Node], indent: str = "  ") -> list[str]:
    """Every step as :func:`step_line`, indented by depth (``indent`` per level), depth first."""
    out: list[str] = []
    stack = [(n, 0) for n in reversed(roots)]
    while stack:
        node, depth = stack.pop()
        out.append(indent * depth + step_line(node))
        stack.extend((c, depth + 1) for c in reversed(node.children))
    return out


def run_totals(steps: list[Any]) -> str:
    """``"14 steps · 5 model calls · input 28,100 · output 1,240 · $0.004210"``: the run's steps and
    the sums over its model calls (a cost sum over calls some of whose price is not known reads
    ``≥ $…`` with how many)."""
    calls = [s for s in steps if s.span.trace_id is not None]
    known = [s.cost for s in calls if s.cost is not None]
    cost = "not known" if calls and not known else fmt_cost(sum(known))
    if known and len(known) < len(calls):
        cost = f"≥ {cost} ({len(calls) - len(known)} not known)"
    return (f"{len(steps):,} steps · {len(calls):,} model calls · input {_sum([s.input_tokens for s in calls])} · "
            f"output {_sum([s.output_tokens for s in calls])} · {cost}")


def _sum(values: list[int | None]) -> str:
    """``"1,240"``; ``"≥ 1,240 (2 not recorded)"`` when some calls did not record it; ``"not
    recorded"`` when none did (never 0)."""
    known = [v for v in values if v is not None]
    if not known:
        return NOT_RECORDED
    text = f"{sum(known):,}"
    return text if len(known) == len(values) else f"≥ {text} ({len(values) - len(known)} not recorded)"


def time_ticks(span_ms: float, max_ticks: int) -> list[float]:
    """Tick values (ms from the run's start) for a timeline of ``span_ms`` milliseconds with at
    most ``max_ticks`` ticks: 0 and every multiple of the smallest 1, 2 or 5 × 10^k ms step that
    keeps the count within ``max_ticks``, up to ``span_ms`` (steps of 1 ms at least). ``[0.0]``
    when ``span_ms <= 0`` or ``max_ticks < 2``."""
    if span_ms <= 0 or max_ticks < 2:
        return [0.0]
    step = 1.0
    while span_ms / step >= max_ticks:  # ticks: floor(span / step) + 1 <= max_ticks
        for m in (2.0, 2.5, 2.0):  # 1 -> 2 -> 5 -> 10 (x 2, x 2.5, x 2)
            step *= m
            if span_ms / step < max_ticks:
                break
    n = int(span_ms // step)
    return [round(i * step, 6) for i in range(n + 1)]


def tick_label(value_ms: float) -> str:
    """``"0"``, ``"500"``, ``"12,000"``: a tick's ms, without the unit."""
    return f"{value_ms:,.0f}"
