"""Token allocations per category and the capacity check of eq. 3.1.

    B_sys + B_hist + B_evidence + B_tools + B_user + B_out <= C          (eq. 3.1)

For a shared input+output limit the complete input plus the reserved output must fit in C; the
tokens left over are the margin (for chat-template overhead and count variation). An endpoint with
separate input and output limits needs both checks: input <= max_input and B_out <= max_output.

All quantities are tokens. Any quantity the trace did not record stays ``None`` and every result
that depends on it is ``None`` too: nothing unknown is ever shown as 0. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.assess.config import active
from ctxviewer.assess.input_source import NOT_CAPTURED_SOURCE, REPORTED_SOURCE, TRUNCATED_SOURCE
from ctxviewer.assess.plausibility import reported_input
from ctxviewer.assess.provider_refusal import Refusal, refusal, refuted_window, reported_margin
from ctxviewer.assess.truncated import truncation
from ctxviewer.model.source_window import recorded_source_window
from ctxviewer.model.trace import Category, ContextItem, Kind, LimitMode, RequestTrace, Status
from ctxviewer.util.memo import by_identity

RECORDED = "recorded"
""":attr:`CapacityCheck.capacity_source` of a C the trace recorded."""
REFUSAL_SOURCE = "stated in the provider's error"
""":attr:`CapacityCheck.capacity_source` of the window a provider's refusal names (a recorded fact, not assumed)."""

CATEGORY_ORDER: tuple[Category, ...] = (
    Category.SYS,
    Category.HIST,
    Category.MEMORY,
    Category.EVIDENCE,
    Category.TOOLS,
    Category.USER,
)
"""Input categories in the order eq. 3.1 lists them (memory after history); output is separate."""

CATEGORY_LABELS: dict[Category, str] = {
    Category.SYS: "system policy",
    Category.HIST: "history",
    Category.MEMORY: "memory",
    Category.EVIDENCE: "evidence",
    Category.TOOLS: "tools",
    Category.USER: "user request",
    Category.OUT: "reserved output",
}
"""Words for each category, as the chart legend and the CLI show them."""

_KIND_CATEGORY = {
    Kind.POLICY: Category.SYS,
    Kind.USER: Category.USER,
    Kind.HISTORY: Category.HIST,
    Kind.SUMMARY: Category.HIST,
    Kind.MEMORY: Category.MEMORY,
    Kind.EVIDENCE: Category.EVIDENCE,
    Kind.TOOL: Category.TOOLS,
}


def category_of(item: ContextItem, trace: RequestTrace) -> Category:
    """The eq. 3.1 category an item counts in.

    Memory is its own category only when ``trace.budget`` declares ``memory``; otherwise it counts
    as history ("memory counted as its own category when declared, else inside history").
    """
    cat = _KIND_CATEGORY[item.kind]
    if cat is Category.MEMORY and Category.MEMORY not in trace.budget:
        return Category.HIST
    return cat


@dataclass(frozen=True)
class Allocation:
    """One category's tokens: declared budget vs what the retained items used."""

    category: Category
    declared: int | None
    """Declared budget B_x in tokens; ``None`` when the trace declares none for this category."""
    used: int | None
    """Tokens of the retained items in this category; ``None`` if any retained item's count is unknown."""
    omitted: int | None
    """Tokens of the omitted items in this category; ``None`` if any omitted item's count is unknown."""
    retained_count: int
    """Number of retained items in this category."""
    omitted_count: int
    """Number of omitted items in this category."""

    @property
    def over_budget(self) -> int | None:
        """Tokens used beyond the declared budget (positive), or ``None`` when either is unknown."""
        if self.declared is None or self.used is None:
            return None
        return self.used - self.declared


def _sum(tokens: list[int | None]) -> int | None:
    if any(t is None for t in tokens):
        return None
    return sum(t for t in tokens if t is not None)


def allocations(trace: RequestTrace) -> list[Allocation]:
    """Per-category allocations in :data:`CATEGORY_ORDER`, listing only categories that have
    items or a declared budget (memory appears only when declared). Output is not included; see
    :attr:`CapacityCheck.reserved_output`.
    """
    rows: list[Allocation] = []
    for cat in CATEGORY_ORDER:
        if cat is Category.MEMORY and Category.MEMORY not in trace.budget:
            continue
        mine = [i for i in trace.items if category_of(i, trace) is cat]
        kept = [i.tokens for i in mine if i.status is Status.RETAINED]
        dropped = [i.tokens for i in mine if i.status is Status.OMITTED]
        if not mine and cat not in trace.budget:
            continue
        rows.append(
            Allocation(
                category=cat,
                declared=trace.budget.get(cat),
                used=_sum(kept),
                omitted=_sum(dropped),
                retained_count=len(kept),
                omitted_count=len(dropped),
            )
        )
    return rows


@dataclass(frozen=True)
class CapacityCheck:
    """The eq. 3.1 check for one trace. All fields are tokens or ``None`` (not recorded)."""

    capacity: int | None
    """C: the context window (shared mode), or ``None``."""
    limit_mode: LimitMode | None
    """Shared or separate limits; ``None`` when not recorded (checked as shared if C is known)."""
    input_tokens: int | None
    """Input of the request as sent: the application's count if recorded, else the retained items'
    sum (see ``input_source``); the provider-reported input is checked beside it."""
    reserved_output: int | None
    """B_out, the reserved output tokens."""
    margin: int | None
    """Shared mode: C - (input + B_out); negative means over capacity. Separate mode: input headroom."""
    declared_margin: int | None
    """The safety margin the application declared."""
    fits: bool | None
    """Whether eq. 3.1 holds (both checks in separate mode); ``None`` when it cannot be decided."""
    input_before_trim: int | None
    """Input had nothing been omitted (retained + omitted tokens); ``None`` if unknown."""
    max_input: int | None = None
    """Separate mode: the input limit."""
    max_output: int | None = None
    """Separate mode: the output limit."""
    output_fits: bool | None = None
    """Separate mode: B_out <= max_output."""
    input_fits: bool | None = None
    """Separate mode: input <= max_input."""
    input_source: str | None = None
    """Which input decided eq. 3.1: ``"counted by the application"``, ``"sum of the retained items"``,
    :data:`TRUNCATED_SOURCE` (the exporter truncated the captured text: the reported input is
    checked), or :data:`REPORTED_SOURCE` when the reported input is over C although the
    count fits (the margin is then by the reported input). Below C the margin stays by the count:
    the declared safety margin is there to absorb the provider's framing and tokenizer differences
    (the chapter's budget-8k: counted 6,000, reported 6,118, margin 800 as designed)."""
    reported_input: int | None = None
    """Provider-reported input tokens (``gen_ai.usage.input_tokens``); ``None`` if not reported."""
    capacity_problem: str | None = None
    """Why C cannot be right, in words (B_out >= C, or C equal to the model's max output); the
    verdict then says this instead of a margin."""
    capacity_source: str = RECORDED
    """Where C came from: :data:`RECORDED` (the trace), or ``"assumed (model catalogue: genai-prices
    0.2.3, gpt-4o-mini)"`` when the trace did not record it and the model catalogue knows the model
    (:func:`ctxviewer.tokens.catalogue.lookup`)."""
    output_assumed: bool = False
    """True when B_out was not recorded and the input alone was checked against C (B_out taken as 0)."""
    input_limit_only: bool = False
    """True when C is the input limit a source recorded from its own catalogue (LiteLLM's
    ``max_input_tokens``: for gpt-5 272,000 of a 400,000 window, the output limit apart), so the
    input alone is checked against it (B_out not added)."""
    refusal: Refusal | None = None
    """The provider's error stating that the request exceeded its context window
    (:mod:`ctxviewer.assess.provider_refusal`): then C is the window it names
    (:data:`REFUSAL_SOURCE`), ``fits`` is False and the margin is window - the tokens it counted."""
    reported_margin: int | None = None
    """Shared mode, a fitting request whose provider-reported input is above the count by more than
    the tolerance (:func:`ctxviewer.assess.tolerance.tolerance`): C - (reported + B_out), the
    margin by the provider's count, which the verdict names beside :attr:`margin` (by the count:
    the declared safety margin is planned in the application's count); ``None`` otherwise."""

    @property
    def capacity_assumed(self) -> bool:
        """Whether C is an assumption (not recorded on the trace, nor stated in the provider's error)."""
        return self.capacity_source not in (RECORDED, REFUSAL_SOURCE)

    @property
    def trimmed(self) -> bool:
        """Whether items with tokens were omitted: the input before trimming (the input plus the
        omitted items' tokens, a count) above the input. Compared like with like, never with the
        provider-reported input, which holds framing the count does not (rev4 N-5: 10,000 before
        trimming, 8,000 counted and 10,500 reported had said nothing was trimmed)."""
        return (self.input_before_trim is not None and self.input_tokens is not None
                and self.input_before_trim > self.input_tokens)

    @property
    def over_before_trim(self) -> int | None:
        """Shared mode: tokens over C before trimming (positive), 0 or less if it fit anyway."""
        if self.capacity is None or self.input_before_trim is None:
            return None
        return self.input_before_trim + (self.reserved_output or 0) - self.capacity


def catalogue_capacity(trace: RequestTrace) -> tuple[int | None, str]:
    """C for eq. 3.1 and where it came from: a value the user set for this trace in ``ctxviewer.toml``
    (over everything), the trace's recorded capacity (:data:`RECORDED`), a value the user set for
    its model, a window the trace's source recorded from its own catalogue (``"assumed (LiteLLM
    model map recorded in the trace: gpt-4o)"``, :mod:`ctxviewer.model.source_window`), else the
    model catalogue's context window for its provider and model, ``"assumed
    (model catalogue: SOURCE)"`` (:func:`ctxviewer.tokens.catalogue.lookup`); ``(None, RECORDED)``
    when none has it. The user's values come from the active check configuration (the assessment's
    context, :mod:`ctxviewer.assess.config`)."""
    ep = trace.endpoint
    user = active().context_window(trace.trace_id, ep.model)
    if user is not None and (ep.capacity is None or user[1].startswith("set for this trace")):
        return user
    if ep.capacity is not None or ep.limit_mode is LimitMode.SEPARATE:
        return ep.capacity, RECORDED
    from_source = recorded_source_window(trace.attributes)  # the exporter's own catalogue (LiteLLM's model map)
    if from_source is not None:
        return from_source[0], f"assumed ({from_source[1]})"
    from ctxviewer.tokens.catalogue import lookup  # the catalogue's data loads only for such a trace

    found = lookup(ep.provider, ep.model)
    if found is None or found.capacity is None:
        return None, RECORDED
    return found.capacity, f"assumed (model catalogue: {found.source})"


def check_capacity(trace: RequestTrace) -> CapacityCheck:
    """Apply eq. 3.1 to ``trace``.

    Shared mode (or mode not recorded): ``fits`` iff input + B_out <= C, with C the recorded
    capacity or, when the trace records none, the model catalogue's context window (marked
    assumed: :func:`catalogue_capacity`); when B_out was not recorded the input alone is checked
    against C (``output_assumed``). Separate mode: ``fits`` iff input <= max_input and B_out <=
    max_output. Returns ``fits=None`` when a needed quantity is unknown.
    """
    ep = trace.endpoint
    items_sum = _sum([i.tokens for i in trace.retained])
    input_tokens, source = _input(trace, items_sum)
    reported = reported_input(trace)
    all_sum = _sum([i.tokens for i in trace.items])
    before = None
    if all_sum is not None and items_sum is not None and input_tokens is not None:
        before = input_tokens + (all_sum - items_sum)
    out = trace.reserved_output_tokens
    refused = refusal(trace)  # the endpoint refused it as over its window, and said by how much
    if ep.limit_mode is LimitMode.SEPARATE:
        in_fits = (
            None if input_tokens is None or ep.max_input_tokens is None else input_tokens <= ep.max_input_tokens
        )
        if refused is not None:
            in_fits = False
        out_fits = None if out is None or ep.max_output_tokens is None else out <= ep.max_output_tokens
        # one limit broken decides, whether or not the other is known (an input over its limit with no
        # output limit recorded was "not decided", and the call ok)
        fits = False if False in (in_fits, out_fits) else None if None in (in_fits, out_fits) else True
        fits = False if refused is not None else fits
        margin = (
            None if input_tokens is None or ep.max_input_tokens is None else ep.max_input_tokens - input_tokens
        )
        return CapacityCheck(
            capacity=ep.capacity,
            limit_mode=ep.limit_mode,
            input_tokens=input_tokens,
            reserved_output=out,
            margin=margin,
            declared_margin=trace.safety_margin,
            fits=fits,
            input_before_trim=before,
            max_input=ep.max_input_tokens,
            max_output=ep.max_output_tokens,
            input_fits=in_fits,
            output_fits=out_fits,
            input_source=source,
            refusal=refused,
        )
    cap, cap_source = catalogue_capacity(trace)
    from_source = recorded_source_window(trace.attributes)
    input_limit = from_source is not None and cap_source == f"assumed ({from_source[1]})"  # LiteLLM's max_input_tokens
    assumed_out = (out is None or input_limit) and cap is not None
    b_out = 0 if assumed_out else out
    margin = None
    if cap is not None and input_tokens is not None and b_out is not None:
        margin = cap - (input_tokens + b_out)
    fits = None if margin is None else margin >= 0
    refuted = refuted_window(trace, cap, cap_source, reported)
    if refused is not None:  # the endpoint refused it as over its window, and said by how much
        cap, cap_source, refuted = refused.window, REFUSAL_SOURCE, None
        fits, margin = False, refused.window - refused.sent
    elif refuted is not None:  # the call itself shows the assumed C is too small: nothing to decide by it
        fits = margin = None
    elif fits and reported is not None and cap is not None and b_out is not None \
            and reported + b_out > cap:  # the endpoint enforces its own count: the margin is by it too
        fits, source, margin = False, REPORTED_SOURCE, cap - (reported + b_out)
    return CapacityCheck(
        capacity=cap,
        limit_mode=ep.limit_mode,
        input_tokens=input_tokens,
        reserved_output=out,
        margin=margin,
        declared_margin=trace.safety_margin,
        fits=fits,
        input_before_trim=before,
        input_source=source,
        reported_input=reported,
        # an input-only limit (LiteLLM's max_input_tokens) leaves B_out out of eq. 3.1: no "fills C" there
        capacity_problem=refuted or _capacity_problem(trace, None if input_limit else cap, cap_source),
        reported_margin=reported_margin(trace, fits, source, cap, input_tokens, b_out),
        refusal=refused,
        capacity_source=cap_source,
        output_assumed=assumed_out and not input_limit,
        input_limit_only=input_limit,
    )


def _input(trace: RequestTrace, items_sum: int | None) -> tuple[int | None, str | None]:
    """The input eq. 3.1 checks and where it came from: the application's count; else, when the
    span's content was not captured (``ctxviewer.content``: OTel capture is opt-in), the provider-reported
    input (``gen_ai.usage.input_tokens``) or else not known -- the items left are not what was sent; else, when
    the exporter truncated the captured text (:func:`ctxviewer.assess.truncated.truncation`) and the
    provider reported the input, the reported input -- the count of what is left is too low; else
    the retained items' sum."""
    if trace.input_tokens is not None:
        return trace.input_tokens, "counted by the application"
    reported = reported_input(trace)
    if trace.attributes.get("ctxviewer.content") == "not captured":
        return (reported, NOT_CAPTURED_SOURCE) if reported is not None else (None, None)
    if reported is not None and (items_sum is None or reported > items_sum) and truncation(trace).item_ids:
        return reported, TRUNCATED_SOURCE
    if items_sum is not None:
        return items_sum, "sum of the retained items"
    return None, None


def _n(v: int) -> str:
    return f"{v:,}"


def _capacity_problem(trace: RequestTrace, cap: int | None = None, cap_source: str = RECORDED) -> str | None:
    """B_out >= C (``cap``: the C eq. 3.1 uses, recorded or assumed; ``cap_source`` where it came
    from), or a recorded C equal to the model's known max output (a mislabelled limit), in words.
    A B_out of 10^12 against gpt-4's assumed 8,192 read "had -999,999,991,808 tokens left"."""
    from ctxviewer.tokens.profiles import ProfileError, resolve

    out = trace.reserved_output_tokens
    if cap is not None and out is not None and out >= cap:
        where = "" if cap_source == RECORDED else f" {cap_source}"
        return (f"reserved output {_n(out)} tokens fills the {_n(cap)}-token context window{where}: "
                "no room for any input")
    cap = trace.endpoint.capacity
    if cap is None:
        return None
    try:
        res = resolve(trace.endpoint.model)
    except ProfileError:
        return None
    prof = res.profile
    if not res.assumed and prof.max_output == cap and prof.capacity not in (None, cap):
        return (f"capacity {_n(cap)} tokens equals {prof.name}'s max output, not its "
                f"{_n(prof.capacity or 0)}-token context window: the output limit was recorded as C")
    return None


@by_identity(16)
def _capacity_by_config(trace: RequestTrace) -> dict[int, tuple[object, CapacityCheck]]:
    return {}


def capacity(trace: RequestTrace) -> CapacityCheck:
    """:func:`check_capacity` memoised per trace object and check configuration (the context's
    context-window settings: :func:`ctxviewer.assess.config.active`; :mod:`ctxviewer.util.memo`:
    found by identity, the trace is never hashed), so the assessment, the budget check and the bars
    share one computation per trace."""
    config = active()
    memo = _capacity_by_config(trace)
    got = memo.get(id(config))
    if got is not None and got[0] is config:
        return got[1]
    chk = check_capacity(trace)
    memo[id(config)] = (config, chk)
    return chk


capacity.cache_clear = _capacity_by_config.cache_clear  # type: ignore[attr-defined]
"""Forget every remembered result (benchmarks and tests start cold)."""
