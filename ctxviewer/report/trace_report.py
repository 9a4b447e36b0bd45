"""What ``ctxviewer show`` prints for one trace: a JSON summary and a plain-text rendering.

Both render the trace's :class:`~ctxviewer.assess.assessment.Assessment` (the same object the GUI
renders), and the item wording comes from :data:`ctxviewer.present.columns.ITEM_COLUMNS`, so the CLI and
the window always say the same thing. Units are tokens throughout; ``None`` means "not recorded".
"""

from __future__ import annotations

from typing import Any

__all__ = ["finding_to_dict", "format_trace_text", "trace_row_to_dict", "trace_summary"]

from ctxviewer.assess.assessment import Assessment, assess
from ctxviewer.assess.budget import CATEGORY_LABELS
from ctxviewer.assess.trace_header import warning_text
from ctxviewer.assess.truncated import truncation
from ctxviewer.diff.conversation import DERIVED_ATTRIBUTE, derived_note
from ctxviewer.model.codec import to_builtins
from ctxviewer.model.findings import Finding
from ctxviewer.model.serialize import format_created
from ctxviewer.model.trace import NOT_RECORDED, RequestTrace
from ctxviewer.model.words import fmt_int
from ctxviewer.present.answer import answer_lines, response_dict
from ctxviewer.present.columns import ITEM_COLUMNS
from ctxviewer.present.item_title import truncated_note
from ctxviewer.present.request_body import request_dict, request_notice
from ctxviewer.report.row_dict import trace_row_to_dict


def finding_to_dict(f: Finding) -> dict[str, Any]:
    """JSON form of a finding (the one codec, :func:`ctxviewer.model.codec.to_builtins`): ``rule``,
    ``severity``, ``message``, ``evidence`` (``item_ids``, ``positions``, ``fields``, ``spans`` as
    ``{item_id, start, end}`` code points, ``tool_call_ids``), ``table_row``, ``first_evidence``,
    ``repair``."""
    d: dict[str, Any] = to_builtins(f)
    d["severity"] = f.severity.value
    return d


def trace_summary(trace: RequestTrace, assessment: Assessment | None = None) -> dict[str, Any]:
    """JSON-ready summary of a trace (the ``show --json`` object), rendering its assessment
    (``assessment`` if given, else :func:`~ctxviewer.assess.assessment.assess` of ``trace``).

    Keys: ``trace_id``, ``created`` (ISO-8601 UTC), ``model``, ``provider``, ``capacity`` (the C eq. 3.1
    used, tokens), ``capacity_source`` (``recorded``, ``assumed (model catalogue: ...)`` when the trace
    recorded none, or null when C is not known), ``limit_mode``, ``reserved_output_tokens``, ``input_tokens``, ``allocations`` (category ->
    retained tokens), ``budget`` (category -> declared tokens, declared ones only), ``margin``
    (C - input - B_out, eq. 3.1), ``fits`` (eq. 3.1 holds: bool or null), ``state`` (``ok`` /
    ``warning`` / ``failure``, from the worst finding), ``verdict`` (words), ``findings`` (worst
    first, :func:`finding_to_dict`), ``over_before_trim``, ``policy`` ({id, version, available}), ``replay_of``, ``service``,
    ``omissions_recorded`` (False when the source format cannot record omitted items), ``usage``
    (normalised: ``input_tokens`` incl. cache, ``cached_input_tokens``, ``cache_creation_input_tokens``,
    ``output_tokens`` incl. reasoning, ``reasoning_tokens``; null = not reported), ``response``,
    ``request``, ``status``, ``session_id``, ``cost`` (:func:`_call_fields`, :func:`cost_dict`), ``tool_calls`` (name, arguments as sent, id,
    with their checks and verdict), ``validations``, and
    ``items``: a list in final order of ``{position, kind, id, status, tokens, tokens_source
    (recorded, reported, counted or null), tokens_encoding, priority, trust,
    omission_reason, source, role}`` with omitted items included; ``evidence_positions`` (the evidence
    position map: ``retained_count``, ``long_list``, ``middle_band``, ``needed_source`` and per
    evidence item ``item_id, status, position, index, tokens, share, score, cited, needed, band,
    risk, omission_reason``; ``null`` without evidence).
    """
    a = assessment if assessment is not None else assess(trace)
    chk = a.capacity
    return {
        "trace_id": trace.trace_id,
        "created": format_created(trace.created),
        "model": trace.endpoint.model,
        "provider": trace.endpoint.provider,
        "capacity": chk.capacity,
        "capacity_source": chk.capacity_source if chk.capacity is not None else None,
        "limit_mode": trace.endpoint.limit_mode.value if trace.endpoint.limit_mode else None,
        "encoding": trace.endpoint.encoding,
        "reserved_output_tokens": trace.reserved_output_tokens,
        "input_tokens": chk.input_tokens,
        "safety_margin": trace.safety_margin,
        "allocations": {x.category.value: x.used for x in a.allocations},
        "budget": {c.value: v for c, v in trace.budget.items()},
        "margin": chk.margin,
        "fits": chk.fits,
        "state": a.state.value,
        "verdict": a.verdict,
        "findings": [finding_to_dict(f) for f in a.findings],
        "over_before_trim": chk.over_before_trim,
        "policy": {
            "id": trace.policy.id,
            "version": trace.policy.version,
            "available": trace.policy.available,
        },
        "replay_of": trace.replay_of,
        "service": trace.service,
        "omissions_recorded": a.omissions_recorded,
        "usage": {
            "input_tokens": trace.usage.input_tokens,
            "output_tokens": trace.usage.output_tokens,
            "cached_input_tokens": trace.usage.cached_input_tokens,
            "cache_creation_input_tokens": trace.usage.cache_creation_input_tokens,
            "reasoning_tokens": trace.usage.reasoning_tokens,
        },
        **_call_fields(trace),
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
                "role": it.role,
            }
            for it in trace.items
        ],
        "tool_calls": [
            {
                "name": c.name,
                "arguments": c.arguments,
                "id": c.id,
                "verdict": c.verdict.value if c.verdict else None,
                "decided_by": c.decided_by,
                "checks": [
                    {"check": k.check, "passed": k.passed, "rule": k.rule, "detail": k.detail} for k in c.checks
                ],
            }
            for c in trace.tool_calls
        ],
        "validations": [{"check": v.check, "passed": v.passed, "detail": v.detail} for v in trace.validations],
        **_evidence_positions(trace),
    }


def _call_fields(trace: RequestTrace) -> dict[str, Any]:
    """``response`` ({text, finish_reason, model, id} or null), ``request`` (``content`` or only
    ``sha256``, ``exact_replay``, ``redacted_fields``, ``notice``: :func:`ctxviewer.present.request_body.request_dict`), ``status`` (the span's {code,
    message, completeness, warning}; ``warning``: a warning recorded on a call that did not fail,
    :func:`ctxviewer.assess.trace_header.warning_text`; codes ``ok`` / ``error`` / ``unset``, null where not recorded) and
    ``session_id`` -- as imported."""
    a = trace.attributes
    return {
        "response": response_dict(trace),
        "request": request_dict(trace),
        "status": {"code": a.get("otel.status_code"), "message": a.get("otel.status_message"),
                   "completeness": a.get("ctxviewer.completeness"), "warning": warning_text(trace)},
        "session_id": trace.session_id,
        "cost": cost_dict(trace),
    }


def cost_dict(trace: RequestTrace) -> dict[str, Any]:
    """``cost``: ``{usd, input_usd, output_usd, model, provider, reason, source, recorded_usd,
    recorded_key}`` -- the call's cost
    in US dollars from its recorded usage (:func:`ctxviewer.tokens.cost.call_cost`), the
    genai-prices model and provider priced, and ``source`` (the library, version and data date);
    ``usd`` null and ``reason`` said when the price is not known (never 0); ``recorded_usd`` the
    cost the trace itself records and ``recorded_key`` its attribute
    (:mod:`ctxviewer.tokens.recorded_cost`), null when it records none."""
    from ctxviewer.tokens.cost import call_cost, source
    from ctxviewer.tokens.recorded_cost import recorded_cost

    ep = trace.endpoint
    c = call_cost(ep.provider, ep.model, trace.created, trace.usage)
    def money(v: Any) -> float | None:
        return None if v is None else float(v)

    rec = recorded_cost(trace.attributes)
    return {"usd": money(c.total), "input_usd": money(c.input), "output_usd": money(c.output), "model": c.model,
            "provider": c.provider, "reason": c.reason, "source": source(),
            "recorded_usd": rec.usd if rec is not None else None, "recorded_key": rec.key if rec is not None else None}


def _evidence_positions(trace: RequestTrace) -> dict[str, Any]:
    """``evidence_positions``: the evidence position map (:mod:`ctxviewer.assess.evidence_positions`),
    ``null`` for a trace without evidence items (owned by the diagnostics)."""
    from ctxviewer.assess.config import marked_documents
    from ctxviewer.assess.evidence_positions import evidence_map

    m = evidence_map(trace, marked_documents(trace.trace_id))
    return {"evidence_positions": m.as_dict() if m is not None else None}


def format_trace_text(trace: RequestTrace, assessment: Assessment | None = None) -> str:
    """A plain-text rendering of a trace for terminals, from its assessment: the header rows (with
    the state), the verdict and numbers line, the findings, per-category allocations (used /
    declared / omitted tokens), the items in final order, worded by the item-table columns, then
    the answer (:func:`ctxviewer.present.answer.answer_lines`: response, tool calls with their checks and
    verdict, validations) and what was kept of the serialized request (:func:`ctxviewer.present.request_body.request_notice`)."""
    from tabulate import tabulate  # the text form only (``show --json`` needs none of it: start-up)

    a = assessment if assessment is not None else assess(trace)
    lines = [f"{label:<12}{line}" if n == 0 else f"{'':<12}{line}"
             for label, text in a.header
             for n, line in enumerate(text.splitlines() or [""])]
    lines.append(f"{'eq. 3.1':<12}{a.verdict}")
    lines.append(f"{'':<12}{a.numbers}")
    if a.findings:
        lines.append("")
        lines.append(tabulate(
            [(f.severity.value, f.rule, f.table_row if f.table_row is not None else "", f.message)
             for f in a.findings],
            headers=("severity", "rule", "Table 3.1", "finding"), tablefmt="simple", disable_numparse=True))
    known = a.omissions_recorded
    lines.append("")
    alloc_rows = []
    for x in a.allocations:
        declared = fmt_int(x.declared) if x.declared is not None else "-"
        omitted = (fmt_int(x.omitted) if x.omitted_count else "0") if known else NOT_RECORDED
        alloc_rows.append((CATEGORY_LABELS[x.category], fmt_int(x.used), declared, omitted))
    lines.append(tabulate(alloc_rows, headers=("category", "used", "declared", "omitted"),
                          colalign=("left", "right", "right", "right"), tablefmt="simple",
                          disable_numparse=True))
    lines.append("")
    lines.append(tabulate(
        [[c.format(it) for c in ITEM_COLUMNS] for it in trace.items],
        headers=[c.title for c in ITEM_COLUMNS],
        colalign=["right" if c.numeric else "left" for c in ITEM_COLUMNS],
        tablefmt="simple", disable_numparse=True))
    note = truncated_note(truncation(trace).item_ids)
    if note:
        lines.append(note)
    if not known:
        derived = trace.attributes.get(DERIVED_ATTRIBUTE) or {}
        recorded = len(trace.omitted) - len(derived.get("items") or ())  # a reranker's, in the trace itself
        lines.append(f"omitted items: {f'{recorded} recorded by the trace (listed above); any others ' if recorded else ''}"
                     f"{NOT_RECORDED} ({trace.source_format} traces only record what was sent)")
        derived = derived_note(trace)
        if derived:
            lines.append(derived)
    lines.append("")
    lines += answer_lines(trace)
    lines += ["", f"Request: {request_notice(trace.request)}"]
    return "\n".join(lines)
