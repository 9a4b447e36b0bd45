"""Build a :class:`~ctxviewer.diff.result.TraceDiff`: item alignment plus the request-level changes.

The eq. 3.1 verdict and state before and after come from :func:`ctxviewer.assess.assessment.assess`, the
same words ``show`` and the window use. No Qt here.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any

from ctxviewer.assess.assessment import Assessment, assess
from ctxviewer.assess.budget import CATEGORY_ORDER, allocations
from ctxviewer.assess.config import marked_documents
from ctxviewer.assess.evidence_positions import EvidenceMap, evidence_map
from ctxviewer.diff.identity import normalise_content
from ctxviewer.diff.items import diff_items, retained_sequence
from ctxviewer.diff.result import (
    DIVERGENCE_CHARS,
    CategoryDelta,
    CheckDiff,
    Divergence,
    EvidencePlace,
    FieldChange,
    FindingChange,
    PolicyDiff,
    ToolCallDiff,
    TraceDiff,
)
from ctxviewer.model.findings import Finding
from ctxviewer.model.trace import Category, Kind, RequestTrace, Status, ToolCall
from ctxviewer.util.visible import one_line

_FIELDS: tuple[tuple[str, Any], ...] = (
    ("endpoint.provider", lambda t: t.endpoint.provider),
    ("endpoint.model", lambda t: t.endpoint.model),
    ("endpoint.capacity", lambda t: t.endpoint.capacity),
    ("endpoint.limit_mode", lambda t: t.endpoint.limit_mode.value if t.endpoint.limit_mode else None),
    ("endpoint.max_input_tokens", lambda t: t.endpoint.max_input_tokens),
    ("endpoint.max_output_tokens", lambda t: t.endpoint.max_output_tokens),
    ("endpoint.encoding", lambda t: t.endpoint.encoding),
    ("reserved_output_tokens", lambda t: t.reserved_output_tokens),
    ("safety_margin", lambda t: t.safety_margin),
)
"""Request fields compared as scalars (endpoint, model, capacity, limits, reserve)."""

_ACCOUNTING: tuple[tuple[str, Any], ...] = (
    ("input_tokens", lambda t: t.input_tokens),
    ("usage.input_tokens", lambda t: t.usage.input_tokens),
    ("usage.cached_input_tokens", lambda t: t.usage.cached_input_tokens),
)
"""Whole-request input token counts (application count; OTel ``gen_ai.usage.*``)."""



def _evidence(t: RequestTrace) -> EvidenceMap | None:
    """``t``'s evidence map with the user's marks, as the evidence check made it (memoised)."""
    return evidence_map(t, marked_documents(t.trace_id))

def _changed(specs: tuple[tuple[str, Any], ...], a: RequestTrace, b: RequestTrace) -> tuple[FieldChange, ...]:
    out = []
    for name, get in specs:
        va, vb = get(a), get(b)
        if va != vb:
            out.append(FieldChange(name, va, vb))
    return tuple(out)


def _start(text: str | None) -> str | None:
    """The first :data:`~ctxviewer.diff.result.DIVERGENCE_CHARS` code points of ``text`` on one line
    (``None``: the content was not kept)."""
    if text is None:
        return None
    flat = one_line(" ".join(text.split()))
    return flat if len(flat) <= DIVERGENCE_CHARS else flat[:DIVERGENCE_CHARS - 1] + "…"


def first_divergence(a: RequestTrace, b: RequestTrace) -> Divergence | None:
    """The first 1-based position among the items sent where kind, role or (normalised) content
    differ; ``None`` when both sent the same sequence. Ids are ignored: the model never sees them."""
    sa, sb = retained_sequence(a), retained_sequence(b)
    for n in range(max(len(sa), len(sb))):
        ia = sa[n] if n < len(sa) else None
        ib = sb[n] if n < len(sb) else None
        if ia is None or ib is None or (ia.kind, ia.role, normalise_content(ia.content)) != (
                ib.kind, ib.role, normalise_content(ib.content)):
            return Divergence(n + 1, ia.id if ia else None, ib.id if ib else None,
                              _start(ia.content) if ia else None, _start(ib.content) if ib else None)
    return None


def _allocations(a: RequestTrace, b: RequestTrace) -> tuple[CategoryDelta, ...]:
    al_a = {x.category: x for x in allocations(a)}
    al_b = {x.category: x for x in allocations(b)}
    out = []
    for cat in CATEGORY_ORDER:
        xa, xb = al_a.get(cat), al_b.get(cat)
        if xa is None and xb is None:
            continue
        out.append(CategoryDelta(
            cat,
            xa.used if xa else 0, xb.used if xb else 0,
            a.budget.get(cat), b.budget.get(cat),
            xa.omitted if xa else 0, xb.omitted if xb else 0,
        ))
    if a.reserved_output_tokens is not None or b.reserved_output_tokens is not None:
        out.append(CategoryDelta(Category.OUT, a.reserved_output_tokens, b.reserved_output_tokens,
                                 a.budget.get(Category.OUT), b.budget.get(Category.OUT), None, None))
    return tuple(out)


def evidence_order(a: RequestTrace, b: RequestTrace,
                   maps: tuple[EvidenceMap | None, EvidenceMap | None] | None = None) -> tuple[EvidencePlace, ...]:
    """Each evidence document's request position, evidence rank and band in A and B, and whether
    it is the document the answer needed (``maps``: the two
    :func:`~ctxviewer.assess.evidence_positions.evidence_map` results, computed when not given), in B's
    order (documents sent by B first, then B's omitted ones, then those only in A)."""

    def places(t: RequestTrace) -> dict[str, tuple[int | None, int | None]]:
        sent = [i for i in retained_sequence(t) if i.kind is Kind.EVIDENCE]
        rank = {i.id: n for n, i in enumerate(sent, 1)}
        return {i.id: (i.position, rank.get(i.id)) for i in t.items if i.kind is Kind.EVIDENCE}

    def marks(m: EvidenceMap | None) -> tuple[set[str], dict[str, str | None]]:
        if m is None:
            return set(), {}
        return {e.item_id for e in m.entries if e.needed}, {e.item_id: e.band for e in m.entries}

    ma, mb = maps if maps is not None else (_evidence(a), _evidence(b))
    (need_a, band_a), (need_b, band_b) = marks(ma), marks(mb)
    pa, pb = places(a), places(b)
    order = sorted(pb, key=lambda k: (pb[k][1] is None, pb[k][1] or 0))
    order += [k for k in pa if k not in pb]
    return tuple(EvidencePlace(k, pa.get(k, (None, None))[0], pb.get(k, (None, None))[0],
                               pa.get(k, (None, None))[1], pb.get(k, (None, None))[1],
                               k in need_a, k in need_b, band_a.get(k), band_b.get(k)) for k in order)


def finding_changes(fa: tuple[Finding, ...], fb: tuple[Finding, ...]) -> tuple[FindingChange, ...]:
    """Every rule found in A (findings ``fa``) or B (``fb``), grouped by rule: counts, worst
    severity and first message on each side. Order: A's rules as A lists them (worst first), then
    rules only B found, as B lists them."""

    def by_rule(fs: tuple[Finding, ...]) -> dict[str, list[Finding]]:
        out: dict[str, list[Finding]] = {}
        for f in fs:
            out.setdefault(f.rule, []).append(f)
        return out

    ra, rb = by_rule(fa), by_rule(fb)
    out = []
    for rule in dict.fromkeys([*ra, *rb]):
        xa, xb = ra.get(rule, []), rb.get(rule, [])
        worst_a = max(xa, key=lambda f: f.severity.rank) if xa else None
        worst_b = max(xb, key=lambda f: f.severity.rank) if xb else None
        out.append(FindingChange(
            rule, (xa or xb)[0].table_row, len(xa), len(xb),
            worst_a.severity.value if worst_a else None, worst_b.severity.value if worst_b else None,
            xa[0].message if xa else None, xb[0].message if xb else None,
        ))
    return tuple(out)


def policy_text(t: RequestTrace) -> str | None:
    """The policy text ``t`` sent: the content of its retained policy items in request order,
    joined by a blank line; ``None`` when it sent no policy item with content."""
    texts = [i.content for i in t.items
             if i.kind is Kind.POLICY and i.status is Status.RETAINED and i.content is not None]
    return "\n\n".join(texts) if texts else None


def _verdict(call: ToolCall | None) -> str | None:
    return call.verdict.value if call is not None and call.verdict is not None else None


def tool_call_diffs(a: RequestTrace, b: RequestTrace) -> tuple[ToolCallDiff, ...]:
    """Proposed tool calls paired by name in order (the n-th ``issue_refund`` of A with the n-th
    of B), with each check's outcome before and after; calls on one side only are included."""
    queue: dict[str, deque[ToolCall]] = defaultdict(deque)
    for c in a.tool_calls:
        queue[c.name].append(c)
    pairs: list[tuple[ToolCall | None, ToolCall | None]] = []
    for c in b.tool_calls:
        pairs.append((queue[c.name].popleft() if queue[c.name] else None, c))
    for rest in queue.values():
        pairs.extend((c, None) for c in rest)
    out = []
    for ca, cb in pairs:
        names = list(dict.fromkeys([k.check for k in (ca.checks if ca else ())] + [k.check for k in (cb.checks if cb else ())]))
        ka = {k.check: k.passed for k in (ca.checks if ca else ())}
        kb = {k.check: k.passed for k in (cb.checks if cb else ())}
        name = (cb or ca).name  # type: ignore[union-attr]
        out.append(ToolCallDiff(
            name,
            ca.arguments if ca else None, cb.arguments if cb else None,
            _verdict(ca), _verdict(cb), ca is not None, cb is not None,
            tuple(CheckDiff(n, ka.get(n), kb.get(n)) for n in names),
        ))
    return tuple(out)


def diff_traces(a: RequestTrace, b: RequestTrace,
                assessments: tuple[Assessment, Assessment] | None = None) -> TraceDiff:
    """Compare request ``a`` (before) with request ``b`` (after, e.g. its replay). The traces may
    come from two databases. ``assessments`` are ``(assess(a), assess(b))`` when the caller has
    them already (assessing runs every check: seconds on 5,000-item traces). The evidence order
    marks the document the answer needed on each side, and :attr:`TraceDiff.findings` says which
    findings the replay fixed and which are new. Never raises for
    well-formed traces; the diff itself is O(n log n) in items plus one content normalisation per
    item (about 120 ms for 2 x 5,000 items, ``benchmarks/bench_diff.py``)."""
    as_a, as_b = assessments if assessments is not None else (assess(a), assess(b))
    ev_a, ev_b = _evidence(a), _evidence(b)  # memoised: the assessment's evidence check made them
    return TraceDiff(
        trace_a=a.trace_id,
        trace_b=b.trace_id,
        items=diff_items(a, b),
        first_divergence=first_divergence(a, b),
        policy=PolicyDiff(a.policy.id, a.policy.version, a.policy.available,
                          b.policy.id, b.policy.version, b.policy.available, policy_text(a), policy_text(b)),
        fields=_changed(_FIELDS, a, b),
        accounting=_changed(_ACCOUNTING, a, b),
        allocations=_allocations(a, b),
        verdict_a=as_a.verdict,
        verdict_b=as_b.verdict,
        fits_a=as_a.fits,
        fits_b=as_b.fits,
        state_a=as_a.state.value,
        state_b=as_b.state.value,
        evidence=evidence_order(a, b, (ev_a, ev_b)),
        response_a=a.response.text if a.response else None,
        response_b=b.response.text if b.response else None,
        finish_reason_a=a.response.finish_reason if a.response else None,
        finish_reason_b=b.response.finish_reason if b.response else None,
        tool_calls=tool_call_diffs(a, b),
        findings=finding_changes(as_a.findings, as_b.findings),
        needed_source_a=ev_a.needed_source if ev_a else None,
        needed_source_b=ev_b.needed_source if ev_b else None,
    )
