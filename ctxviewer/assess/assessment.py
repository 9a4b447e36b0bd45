"""One assessment per request trace: every conclusion about it, computed once, rendered everywhere.

:func:`assess` turns a :class:`~ctxviewer.model.trace.RequestTrace` into an :class:`Assessment`: the
eq. 3.1 check (shared or separate limits, :mod:`ctxviewer.assess.budget`), the budget chart's figure
(:class:`BudgetFigure`: bars, the C line or the "capacity not recorded" note, the x range), the
findings of every registered check (:mod:`ctxviewer.assess.checks`, worst first), the state they give
(:class:`~ctxviewer.model.findings.State`), the verdict in words, the numbers line and the header rows.

Every surface -- the GUI chart, header and item table, ``ctxviewer show`` (text and ``--json``),
``ctxviewer list`` (through the facts stored on the trace row), the screenshot -- renders this
object and derives nothing itself, so they cannot disagree.

Invariants:

* ``capacity.fits`` keeps its eq. 3.1 meaning; the *state* is the worst finding's. A request whose
  required policy version was unavailable fits (``fits`` True) and still has state ``failure``
  (Table 3.1 row 1: reject it), and its verdict says so.
* Unknown quantities are ``None`` / "not recorded", never 0.

No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.assess import bars, budget
from ctxviewer.assess.bars import BarSegment
from ctxviewer.assess.budget import Allocation, CapacityCheck
from ctxviewer.assess.checks import run_checks
from ctxviewer.assess.config import active, restore, using
from ctxviewer.assess.context import EMPTY, AssessContext
from ctxviewer.assess.trace_header import header_rows, numbers_line
from ctxviewer.assess.verdict import verdict_text
from ctxviewer.model.findings import Finding, Severity, State, worst
from ctxviewer.model.trace import NOT_RECORDED, LimitMode, RequestTrace
from ctxviewer.util.visible import one_line

X_PAD = 1.03
"""The chart's x range ends this factor past the longest bar or limit line (room for labels)."""

ZOOM_SHARE = 0.1
"""When the items, reserved output and omitted tokens end before this share of the x range, the
figure offers a zoomed range (:attr:`BudgetFigure.zoom_x_max`): 168 tokens against C = 128,000 are
0.1 % of the bar, and every category is under a pixel wide at 1280 px."""

CAPACITY_NOT_RECORDED = f"capacity {NOT_RECORDED}"
"""The note the chart shows instead of a C line when the capacity was not recorded."""


@dataclass(frozen=True)
class BudgetFigure:
    """What the budget chart draws for one trace; all positions in tokens."""

    used: tuple[BarSegment, ...]
    """The "used" bar: retained tokens per category, reserved output, then margin or overflow."""
    declared: tuple[BarSegment, ...]
    """The "declared budget" bar (B_sys ... B_out); empty when the trace declares no budget."""
    capacity_line: int | None
    """x of the vertical C line (shared limit, C recorded); ``None`` draws no line."""
    input_limit_line: int | None
    """Separate limits: x of the input-limit line (max_input); ``None`` otherwise."""
    note: str | None
    """Words shown instead of a line: :data:`CAPACITY_NOT_RECORDED` when a shared-limit trace
    has no C (a missing C is never drawn as a guess); ``None`` otherwise."""
    x_max: float
    """Right end of the x range: the longest bar or limit line times :data:`X_PAD` (at least 1)."""
    omitted: tuple[BarSegment, ...] = ()
    """The "omitted" bar: omitted tokens per category (:func:`ctxviewer.assess.bars.omitted_bar`),
    drawn hatched; empty when nothing was omitted."""
    zoom_x_max: float | None = None
    """The right end (tokens) of a range that shows the categories themselves: the end of the last
    segment that is not margin, times :data:`X_PAD`, when that is under :data:`ZOOM_SHARE` of
    :attr:`x_max`; ``None`` when the whole range already shows them. The C and input-limit lines
    then lie past its right end."""

    @property
    def rows(self) -> tuple[tuple[str, tuple[BarSegment, ...]], ...]:
        """``(row name, segments)`` top to bottom: ``used``, then ``omitted`` and ``declared``
        when they have segments."""
        return ((("used", self.used),) + ((("omitted", self.omitted),) if self.omitted else ())
                + ((("declared", self.declared),) if self.declared else ()))


def budget_figure(trace: RequestTrace, chk: CapacityCheck) -> BudgetFigure:
    """The chart figure of ``trace`` given its eq. 3.1 result ``chk``."""
    used = tuple(bars.used_bar(trace))
    omitted = tuple(bars.omitted_bar(trace))
    declared = tuple(bars.declared_bar(trace))
    separate = chk.limit_mode is LimitMode.SEPARATE
    cap = None if separate else chk.capacity
    limit = chk.max_input if separate else None
    ends = [s.start + s.tokens for s in (*used, *omitted, *declared)]
    x_max = max([*ends, cap or 0, limit or 0, 1]) * X_PAD
    note = CAPACITY_NOT_RECORDED if not separate and cap is None else None
    content = max([s.start + s.tokens for s in (*used, *omitted, *declared) if s.key != "margin"] + [1]) * X_PAD
    zoom = content if content < ZOOM_SHARE * x_max else None
    return BudgetFigure(used, declared, cap, limit, note, x_max, omitted, zoom)


@dataclass(frozen=True)
class Assessment:
    """Everything ctxviewer concludes about one trace (see the module docstring)."""

    trace_id: str
    """The trace assessed."""
    capacity: CapacityCheck
    """The eq. 3.1 check (tokens)."""
    allocations: tuple[Allocation, ...]
    """Per-category used / declared / omitted tokens, eq. 3.1 order."""
    figure: BudgetFigure
    """What the budget chart draws."""
    findings: tuple[Finding, ...]
    """Every check's findings (:func:`ctxviewer.assess.checks.run_checks`) in :func:`finding_order`:
    worst first."""
    state: State
    """``ok`` / ``warning`` / ``failure``: :meth:`State.of` the worst finding."""
    verdict: str
    """The headline in words: the eq. 3.1 verdict, "before trimming: over by N" when trimming
    made it fit, then the message of the worst warning-or-worse finding that is not a budget one
    (and how many more there are), e.g. ``"fits, 5,491 tokens margin; required policy version 2026-10-03 unavailable: the
    request should be rejected"``."""
    numbers: str
    """The quantities of eq. 3.1 in one line (:func:`ctxviewer.assess.trace_header.numbers_line`)."""
    header: tuple[tuple[str, str], ...]
    """``(label, text)`` header rows, including the ``State`` row."""
    omissions_recorded: bool
    """False when the trace's source format cannot record omitted items (OTel GenAI spans)."""
    context: str = EMPTY.fingerprint
    """The :attr:`~ctxviewer.assess.context.AssessContext.fingerprint` of the context it was computed in."""

    @property
    def worst(self) -> Finding | None:
        """The worst finding (the first of :attr:`findings`), or ``None`` when there are none."""
        return self.findings[0] if self.findings else None

    @property
    def fits(self) -> bool | None:
        """Whether eq. 3.1 holds (``None``: cannot be decided). Not the state."""
        return self.capacity.fits


def _verdict(chk: CapacityCheck, findings: tuple[Finding, ...]) -> str:
    text = verdict_text(chk)
    over = chk.over_before_trim if chk.limit_mode is not LimitMode.SEPARATE else None
    if over is not None and over > 0 and chk.trimmed:
        text += f"; before trimming: over by {over:,}"
    others = [f for f in findings if not f.rule.startswith("budget.") and f.severity.rank >= Severity.WARNING.rank]
    if others:
        text += f"; {others[0].message}"
        if len(others) > 1:
            text += f" (+{len(others) - 1} more finding{'s' if len(others) > 2 else ''})"
    return text


def state_line(state: State, findings: tuple[Finding, ...]) -> str:
    """The ``State`` header row: ``"ok"``, or the state and the worst finding's message, e.g.
    ``"failure: required policy version 2026-10-03 unavailable: the request should be rejected"``."""
    top = findings[0] if findings else None
    if state is State.OK or top is None:
        return state.value
    more = len([f for f in findings if f.severity.rank >= Severity.WARNING.rank]) - 1
    return f"{state.value}: {top.message}" + (f" (+{more} more)" if more > 0 else "")


def finding_order(f: Finding) -> tuple[int, int, str]:
    """Sort key of the assessment's findings: worst first, then Table 3.1 rows in table order
    (findings without a row after them), then rule id; Python's stable sort keeps the check's own
    order within a rule. Independent of the order in which check modules were imported."""
    return (-f.severity.rank, f.table_row if f.table_row is not None else 99, f.rule)


@dataclass(frozen=True)
class Conclusion:
    """The conclusions of :func:`assess` without what is only drawn or shown (figure, allocations,
    numbers line, header rows): what the store keeps per trace (:mod:`ctxviewer.store.facts`).
    Every field equals the :class:`Assessment` field of the same name."""

    trace_id: str
    """The trace assessed."""
    capacity: CapacityCheck
    """The eq. 3.1 check (tokens)."""
    findings: tuple[Finding, ...]
    """Every check's findings, worst first (:func:`finding_order`)."""
    state: State
    """``ok`` / ``warning`` / ``failure``: :meth:`State.of` the worst finding."""
    verdict: str
    """The headline in words (:attr:`Assessment.verdict`)."""
    omissions_recorded: bool
    """False when the trace's source format cannot record omitted items (OTel GenAI spans)."""
    context: str = EMPTY.fingerprint
    """The :attr:`~ctxviewer.assess.context.AssessContext.fingerprint` of the context it was computed in."""

    @property
    def worst(self) -> Finding | None:
        """The worst finding (the first of :attr:`findings`), or ``None`` when there are none."""
        return self.findings[0] if self.findings else None


def conclude(trace: RequestTrace, context: AssessContext | None = None) -> Conclusion:
    """The conclusions of ``trace`` in ``context`` (its database's settings and marks:
    :func:`ctxviewer.assess.context.context_for_db`; ``None``: the checks' active configuration):
    eq. 3.1, findings, state, verdict (:func:`assess` is this plus the figure, numbers and header
    rows; an import stores only this).

    Never raises for a well-typed trace (a failing check becomes a ``check.error`` finding).
    """
    token = using(context.config) if context is not None else None
    try:  # eq. 3.1 reads the context's context-window settings too
        chk = budget.capacity(trace)
        findings = tuple(sorted(run_checks(trace, context.config if context is not None else None), key=finding_order))
    finally:
        if token is not None:
            restore(token)
    return Conclusion(
        context=(context.fingerprint if context is not None else AssessContext(active()).fingerprint),
        trace_id=trace.trace_id,
        capacity=chk,
        findings=findings,
        state=State.of(worst(findings)),
        verdict=_verdict(chk, findings),
        omissions_recorded=trace.omissions_recorded,
    )


def assess(trace: RequestTrace, context: AssessContext | None = None) -> Assessment:
    """Assess ``trace`` once in ``context`` (as :func:`conclude`): eq. 3.1, figure, findings,
    state, verdict, numbers, header rows (:func:`conclude`, then what the surfaces draw).

    Never raises for a well-typed trace (a failing check becomes a ``check.error`` finding).
    """
    token = using(context.config) if context is not None else None
    try:  # the chart's bars read eq. 3.1 in the same context
        return _assess(trace, context)
    finally:
        if token is not None:
            restore(token)


def _assess(trace: RequestTrace, context: AssessContext | None) -> Assessment:
    c = conclude(trace, context)
    chk, findings, state = c.capacity, c.findings, c.state
    rows = header_rows(trace)
    header = (*rows[:2], ("State", one_line(state_line(state, findings))), *rows[2:])
    return Assessment(
        trace_id=trace.trace_id,
        capacity=chk,
        allocations=tuple(budget.allocations(trace)),
        figure=budget_figure(trace, chk),
        findings=findings,
        state=state,
        verdict=c.verdict,
        numbers=numbers_line(trace, chk),
        header=tuple(header),
        omissions_recorded=c.omissions_recorded,
        context=c.context,
    )
