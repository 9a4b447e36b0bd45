"""What ``ctxviewer show`` prints for one trace: a JSON summary and a plain-text rendering.

Both are built from the same core functions the GUI uses (:mod:`ctxviewer.budget`), so the CLI and
the window always agree. Units are tokens throughout; ``None`` means "not recorded".
"""

from __future__ import annotations

from typing import Any

from .budget import CATEGORY_LABELS, allocations, check_capacity, verdict_text
from .model import NOT_RECORDED, RequestTrace, Status
from .serialize import format_created


def trace_summary(trace: RequestTrace) -> dict[str, Any]:
    """JSON-ready summary of a trace (the ``show --json`` object).

    Keys: ``trace_id``, ``created`` (ISO-8601 UTC), ``model``, ``provider``, ``capacity``,
    ``limit_mode``, ``reserved_output_tokens``, ``input_tokens``, ``allocations`` (category ->
    retained tokens), ``budget`` (category -> declared tokens, declared ones only), ``margin``
    (C - input - B_out, eq. 3.1), ``fits`` (bool or null), ``verdict`` (words),
    ``over_before_trim``, ``policy`` ({id, version, available}), ``replay_of``, ``usage``, and
    ``items``: a list in final order of ``{position, kind, id, status, tokens, priority, trust,
    omission_reason, source}`` with omitted items included.
    """
    chk = check_capacity(trace)
    return {
        "trace_id": trace.trace_id,
        "created": format_created(trace.created),
        "model": trace.endpoint.model,
        "provider": trace.endpoint.provider,
        "capacity": trace.endpoint.capacity,
        "limit_mode": trace.endpoint.limit_mode.value if trace.endpoint.limit_mode else None,
        "encoding": trace.endpoint.encoding,
        "reserved_output_tokens": trace.reserved_output_tokens,
        "input_tokens": chk.input_tokens,
        "safety_margin": trace.safety_margin,
        "allocations": {a.category.value: a.used for a in allocations(trace)},
        "budget": {c.value: v for c, v in trace.budget.items()},
        "margin": chk.margin,
        "fits": chk.fits,
        "verdict": verdict_text(chk),
        "over_before_trim": chk.over_before_trim,
        "policy": {
            "id": trace.policy.id,
            "version": trace.policy.version,
            "available": trace.policy.available,
        },
        "replay_of": trace.replay_of,
        "usage": {
            "input_tokens": trace.usage.input_tokens,
            "output_tokens": trace.usage.output_tokens,
            "cached_input_tokens": trace.usage.cached_input_tokens,
            "reasoning_tokens": trace.usage.reasoning_tokens,
        },
        "items": [
            {
                "position": it.position,
                "kind": it.kind.value,
                "id": it.id,
                "status": it.status.value,
                "tokens": it.tokens,
                "priority": it.priority,
                "trust": it.trust.value,
                "omission_reason": it.omission_reason,
                "source": it.source.label() if it.source else None,
            }
            for it in trace.items
        ],
        "tool_calls": [
            {
                "name": c.name,
                "arguments": c.arguments,
                "verdict": c.verdict.value if c.verdict else None,
                "decided_by": c.decided_by,
            }
            for c in trace.tool_calls
        ],
    }


def _v(value: object) -> str:
    if value is None:
        return NOT_RECORDED
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def format_trace_text(trace: RequestTrace) -> str:
    """A plain-text rendering of a trace for terminals: header, eq. 3.1 verdict, per-category
    allocations (used / declared), and the items in final order with omitted ones marked."""
    chk = check_capacity(trace)
    ep = trace.endpoint
    lines = [
        f"trace     {trace.trace_id}",
        f"created   {_v(format_created(trace.created))}",
        f"model     {_v(ep.model)} ({_v(ep.provider)})",
        f"policy    {_v(trace.policy.id)} version {_v(trace.policy.version)}"
        + ("  [UNAVAILABLE]" if trace.policy.available is False else ""),
        f"capacity  {_v(ep.capacity)} tokens; reserved output {_v(trace.reserved_output_tokens)}; "
        f"input {_v(chk.input_tokens)}",
        f"eq. 3.1   {verdict_text(chk)}",
    ]
    if chk.over_before_trim is not None and chk.over_before_trim > 0:
        lines.append(f"          before trimming: over capacity by {chk.over_before_trim:,} tokens")
    if trace.replay_of:
        lines.append(f"replay of {trace.replay_of}")
    lines.append("")
    lines.append(f"{'category':<16}{'used':>8}{'declared':>10}{'omitted':>9}")
    for a in allocations(trace):
        lines.append(
            f"{CATEGORY_LABELS[a.category]:<16}{_v(a.used):>8}{_v(a.declared) if a.declared is not None else '-':>10}"
            f"{_v(a.omitted) if a.omitted_count else '-':>9}"
        )
    lines.append("")
    lines.append(f"{'pos':>4}  {'kind':<9}{'id':<28}{'tokens':>7}  {'trust':<10}status")
    for it in trace.items:
        pos = str(it.position) if it.position is not None else "-"
        status = it.status.value
        if it.status is Status.OMITTED:
            status += f" ({it.omission_reason or 'reason not recorded'})"
        lines.append(
            f"{pos:>4}  {it.kind.value:<9}{it.id[:27]:<28}{_v(it.tokens):>7}  {it.trust.value:<10}{status}"
        )
    for c in trace.tool_calls:
        lines.append("")
        lines.append(
            f"tool call {c.name}({c.arguments or ''}) -> {c.verdict.value if c.verdict else NOT_RECORDED}"
            + (f" by {c.decided_by}" if c.decided_by else "")
        )
    return "\n".join(lines)
