"""The budget chart's bars: what was used, omitted and declared per eq. 3.1 category, in tokens.

    B_sys + B_hist + B_evidence + B_tools + B_user + B_out <= C          (eq. 3.1)

The "used" bar stacks each category's retained tokens, the reserved output, then the margin up to
C (recorded, or the model catalogue's: :func:`ctxviewer.assess.budget.catalogue_capacity`) or the
overflow past it; the "omitted" bar the omitted tokens per category; the "declared" bar the
trace's declared budget B_sys ... B_out. The assessment's figure (:class:`ctxviewer.assess.assessment.BudgetFigure`)
holds them, for the window's chart and the report's SVG alike. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.assess.budget import CATEGORY_LABELS, CATEGORY_ORDER, allocations, capacity
from ctxviewer.assess.input_source import REPORTED_SOURCE
from ctxviewer.model.trace import Category, LimitMode, RequestTrace


@dataclass(frozen=True)
class BarSegment:
    """One stacked-bar segment of the budget chart, in tokens from ``start`` to ``start + tokens``."""

    label: str
    """Legend text, e.g. ``"evidence"``."""
    key: str
    """Category value (``sys``, ..., ``out``) or ``margin`` / ``over``."""
    start: int
    tokens: int


UNACCOUNTED_LABEL = "reported, not in the trace"
"""Legend of the ``unaccounted`` segment: input tokens the provider reported beyond the count
(:attr:`ctxviewer.assess.budget.CapacityCheck.reported_margin`)."""


def used_bar(trace: RequestTrace) -> list[BarSegment]:
    """Segments of the "used" bar: each input category's retained tokens, then the reserved output,
    then the input the provider reported beyond the count when it is above it by more than the
    tolerance, or when that report put the request over C (key ``unaccounted``: history-16k's 348
    tokens past C = 16,000 are then an ``over`` segment, as its verdict says), then the remaining margin up to C (or the overflow past C, key
    ``over``). Categories whose use is unknown are left out; an unknown B_out gives no output
    segment; an input not recorded gives no margin (nothing says how much of the window was free).
    """
    segs: list[BarSegment] = []
    pos = 0
    for a in allocations(trace):
        if a.used:
            segs.append(BarSegment(CATEGORY_LABELS[a.category], a.category.value, pos, a.used))
            pos += a.used
    out = trace.reserved_output_tokens
    if out:
        segs.append(BarSegment(CATEGORY_LABELS[Category.OUT], Category.OUT.value, pos, out))
        pos += out
    chk = capacity(trace)
    cap = chk.capacity  # recorded, or the model catalogue's (assumed)
    if cap is not None and trace.endpoint.limit_mode is not LimitMode.SEPARATE and chk.input_tokens is not None:
        end = chk.input_tokens + (out or 0)  # an input not recorded draws no margin: nothing says the window was free
        by_report = chk.reported_margin is not None or chk.input_source == REPORTED_SOURCE  # over C by the report
        if by_report and chk.reported_input is not None and chk.reported_input > chk.input_tokens:  # it held more
            extra = chk.reported_input - chk.input_tokens
            segs.append(BarSegment(UNACCOUNTED_LABEL, "unaccounted", end, extra))
            end += extra
        if cap > end:
            segs.append(BarSegment("margin", "margin", end, cap - end))
        elif end > cap:
            segs.append(BarSegment("over capacity", "over", cap, end - cap))
    return segs


def omitted_bar(trace: RequestTrace) -> list[BarSegment]:
    """Segments of the "omitted" bar: each input category's omitted tokens (items trimmed or
    filtered out before sending), stacked from 0 in eq. 3.1 order, so each can be compared with
    the same category's retained segment. Categories with nothing omitted, or whose omitted count
    is unknown (an omitted item without a token count), are left out; empty when nothing was
    omitted or the format cannot record omissions."""
    segs: list[BarSegment] = []
    pos = 0
    for a in allocations(trace):
        if a.omitted:
            segs.append(BarSegment(CATEGORY_LABELS[a.category], a.category.value, pos, a.omitted))
            pos += a.omitted
    return segs


def declared_bar(trace: RequestTrace) -> list[BarSegment]:
    """Segments of the "declared budget" bar (B_sys ... B_out in eq. 3.1 order); empty when the trace
    declares no budget."""
    segs: list[BarSegment] = []
    pos = 0
    for cat in (*CATEGORY_ORDER, Category.OUT):
        v = trace.budget.get(cat)
        if v:
            segs.append(BarSegment(CATEGORY_LABELS[cat], cat.value, pos, v))
            pos += v
    return segs
