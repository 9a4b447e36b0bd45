"""What ``ctxviewer show`` prints for one trace: a JSON summary and a plain-text rendering.

Both are built from the same core functions the GUI uses (:mod:`ctxviewer.budget`), so the CLI and
the window always agree. Units are tokens throughout; ``None`` means "not recorded".
"""

from __future__ import annotations

from typing import Any

from .budget import CATEGORY_LABELS, allocations, check_capacity, verdict_text
from .columns import fmt_int, fmt_priority
from .importers import omissions_recorded
from .model import NOT_RECORDED, RequestTrace, Status
from .serialize import format_created
from .trace_header import header_rows, numbers_line, verdict_line


def trace_summary(trace: RequestTrace) -> dict[str, Any]:
    """JSON-ready summary of a trace (the ``show --json`` object).

    Keys: ``trace_id``, ``created`` (ISO-8601 UTC), ``model``, ``provider``, ``capacity``,
    ``limit_mode``, ``reserved_output_tokens``, ``input_tokens``, ``allocations`` (category ->
    retained tokens), ``budget`` (category -> declared tokens, declared ones only), ``margin``
    (C - input - B_out, eq. 3.1), ``fits`` (bool or null), ``verdict`` (words),
    ``over_before_trim``, ``policy`` ({id, version, available}), ``replay_of``, ``service``,
    ``omissions_recorded`` (False when the source format cannot record omitted items), ``usage``,
    ``tool_calls`` (with their checks and verdict), ``validations``, and
    ``items``: a list in final order of ``{position, kind, id, status, tokens, tokens_source
    (recorded, reported, counted or null), tokens_encoding, priority, trust,
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
        "service": trace.service,
        "omissions_recorded": omissions_recorded(trace.source_format),
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
                "tokens_source": it.tokens_provenance.source.value if it.tokens_provenance else None,
                "tokens_encoding": it.tokens_provenance.encoding if it.tokens_provenance else None,
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
                "checks": [
                    {"check": k.check, "passed": k.passed, "rule": k.rule, "detail": k.detail} for k in c.checks
                ],
            }
            for c in trace.tool_calls
        ],
        "validations": [{"check": v.check, "passed": v.passed, "detail": v.detail} for v in trace.validations],
    }


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def format_trace_text(trace: RequestTrace) -> str:
    """A plain-text rendering of a trace for terminals: the same header rows and eq. 3.1 verdict
    the window shows (:mod:`ctxviewer.trace_header`), per-category allocations (used / declared /
    omitted tokens), and the items in final order with omitted ones marked."""
    lines = [f"{label:<12}{line}" if n == 0 else f"{'':<12}{line}"
             for label, text in header_rows(trace)
             for n, line in enumerate(text.splitlines() or [""])]
    verdict, _state = verdict_line(trace)
    lines.append(f"{'eq. 3.1':<12}{verdict}")
    lines.append(f"{'':<12}{numbers_line(trace)}")
    known = omissions_recorded(trace.source_format)
    lines.append("")
    lines.append(f"{'category':<16}{'used':>14}{'declared':>14}{'omitted':>14}")
    for a in allocations(trace):
        declared = fmt_int(a.declared) if a.declared is not None else "-"
        omitted = (fmt_int(a.omitted) if a.omitted_count else "0") if known else NOT_RECORDED
        lines.append(f"{CATEGORY_LABELS[a.category]:<16}{fmt_int(a.used):>14}{declared:>14}{omitted:>14}")
    lines.append("")
    lines.append(f"{'pos':>4}  {'kind':<9}{'id':<30}{'tokens':>13}  {'priority':>12}  {'trust':<10}status")
    for it in trace.items:
        pos = str(it.position) if it.position is not None else "-"
        status = it.status.value
        if it.status is Status.OMITTED:
            status += f" ({it.omission_reason or 'reason ' + NOT_RECORDED})"
        prio = fmt_priority(it.priority)
        lines.append(
            f"{pos:>4}  {it.kind.value:<9}{_cut(it.id, 29):<30}{fmt_int(it.tokens):>13}  {prio:>12}  "
            f"{it.trust.value:<10}{status}"
        )
    if not known:
        lines.append(f"      omitted items: {NOT_RECORDED} ({trace.source_format} traces only record what was sent)")
    return "\n".join(lines)
