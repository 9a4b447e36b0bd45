"""The per-trace assessment: eq. 3.1, figure, findings, state, verdict, header rows (core, no Qt)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factories import make_rich_trace, make_trace

from ctxviewer.assess import budget
from ctxviewer.assess.assessment import CAPACITY_NOT_RECORDED, assess
from ctxviewer.model.findings import Severity, State
from ctxviewer.model.trace import Category, ContextItem, Endpoint, Kind, LimitMode, Policy, RequestTrace, Status
from ctxviewer.tokens.catalogue import package_version


def chapter_8k(evidence: int = 3000, omitted: int = 0, trace_id: str = "budget-8k") -> RequestTrace:
    """The chapter's 8,000-token example: 800 + 1,200 + 3,000 + 600 + 400 + B_out 1,200 = 7,200."""
    def it(kind: Kind, i: str, n: int, status: Status = Status.RETAINED) -> ContextItem:
        return ContextItem(kind, i, "x", status, tokens=n,
                           omission_reason="budget" if status is Status.OMITTED else None)
    items = [it(Kind.POLICY, "p", 800), it(Kind.HISTORY, "h", 1200), it(Kind.EVIDENCE, "e", evidence),
             it(Kind.TOOL, "t", 600), it(Kind.USER, "u", 400)]
    if omitted:
        items.append(it(Kind.EVIDENCE, "e2", omitted, Status.OMITTED))
    return RequestTrace(
        trace_id=trace_id, created=None, endpoint=Endpoint(capacity=8000), policy=Policy(id="p"),
        user_request="u", items=tuple(items), reserved_output_tokens=1200, safety_margin=800,
        budget={Category.SYS: 800, Category.HIST: 1200, Category.EVIDENCE: 3000, Category.TOOLS: 600,
                Category.USER: 400, Category.OUT: 1200},
    )


def test_8k_fits_ok_with_figure() -> None:
    a = assess(chapter_8k())
    assert (a.fits, a.capacity.margin, a.state, a.findings) == (True, 800, State.OK, ())
    assert a.verdict == "fits, 800 tokens margin"
    assert [(s.key, s.start, s.tokens) for s in a.figure.used][-2:] == [("out", 6000, 1200), ("margin", 7200, 800)]
    assert (a.figure.capacity_line, a.figure.input_limit_line, a.figure.note) == (8000, None, None)
    assert a.figure.x_max == pytest.approx(8000 * 1.03)
    assert [name for name, _ in a.figure.rows] == ["used", "declared"]
    assert dict(a.header)["State"] == "ok"
    assert a.numbers == "input 6,000 + reserved output 1,200 of capacity 8,000 tokens · declared safety margin 800"


def test_over_capacity_is_a_failure_finding() -> None:
    a = assess(chapter_8k(evidence=4500))
    assert (a.fits, a.state) == (False, State.FAILURE)
    assert a.verdict == "over capacity by 700 tokens: had 6,800 tokens left, needed 7,500"
    assert [(f.rule, f.severity) for f in a.findings] == [("budget.over_capacity", Severity.FAILURE)]
    assert a.findings[0].message == "over capacity by 700 tokens: had 6,800 tokens left, needed 7,500 (eq. 3.1)"
    assert a.figure.x_max == pytest.approx(8700 * 1.03)  # the overflow bar, not C, sets the range
    assert dict(a.header)["State"].startswith("failure: over capacity by 700 tokens")


def test_below_declared_safety_margin_is_a_warning() -> None:
    a = assess(chapter_8k(evidence=3500))
    assert (a.fits, a.capacity.margin, a.state) == (True, 300, State.WARNING)
    assert [f.rule for f in a.findings] == ["budget.below_safety_margin"]
    assert a.findings[0].message == "only 300 tokens of slack, below the declared safety margin of 800 tokens"


def test_trimmed_trace_says_before_trimming_and_lists_the_omitted_items() -> None:
    a = assess(chapter_8k(omitted=1500))
    assert a.verdict == "fits, 800 tokens margin; before trimming: over by 700"
    assert a.state is State.OK  # info only
    (f,) = a.findings
    assert (f.rule, f.severity, f.evidence.item_ids) == ("budget.over_before_trim", Severity.INFO, ("e2",))


def test_capacity_not_recorded_is_a_note_and_neutral() -> None:
    """No C recorded and no model the catalogue knows: said as "not recorded" (info), never a
    warning the user cannot act on."""
    a = assess(replace(chapter_8k(), endpoint=Endpoint(capacity=None), budget={}))
    assert (a.fits, a.state, a.verdict) == (None, State.OK, "capacity not recorded")
    assert (a.figure.capacity_line, a.figure.note) == (None, CAPACITY_NOT_RECORDED)
    assert a.figure.declared == ()
    assert (a.findings[0].rule, a.findings[0].severity, a.findings[0].message) == (
        "budget.not_checked", Severity.INFO, "eq. 3.1 cannot be checked: capacity not recorded; the model was not recorded")
    assert a.figure.x_max == pytest.approx(7200 * 1.03)


def test_a_capacity_not_recorded_is_taken_from_the_model_catalogue_and_marked_assumed() -> None:
    t = replace(chapter_8k(), endpoint=Endpoint(provider="openai", model="gpt-4o-mini-2024-07-18"), budget={})
    a = assess(t)
    assert (a.capacity.capacity, a.capacity.capacity_source) == (
        128_000, f"assumed (model catalogue: genai-prices {package_version()}, gpt-4o-mini)")
    assert (a.fits, a.state, a.capacity.margin) == (True, State.OK, 128_000 - 6_000 - 1_200)
    assert a.verdict == "fits, 120,800 tokens margin (capacity assumed)"
    assert a.figure.capacity_line == 128_000 and a.figure.note is None
    assert a.numbers == ("input 6,000 + reserved output 1,200 of capacity 128,000 tokens assumed "
                         f"(model catalogue: genai-prices {package_version()}, gpt-4o-mini) · declared safety margin 800")
    unknown = assess(replace(t, endpoint=Endpoint(provider="ollama", model="my-local-model")))
    assert (unknown.fits, unknown.findings[0].message) == (
        None, "eq. 3.1 cannot be checked: capacity not recorded; the context-window catalogue "
              "(genai-prices' context windows, the endpoint profiles) has no window for 'my-local-model'")
    recorded = assess(replace(t, endpoint=Endpoint(provider="openai", model="gpt-4o-mini", capacity=8_000)))
    assert (recorded.capacity.capacity, recorded.capacity.capacity_source) == (8_000, "recorded")


def test_separate_limits_draw_the_input_limit_line() -> None:
    t = make_rich_trace()
    a = assess(t)
    assert a.capacity.limit_mode is LimitMode.SEPARATE
    assert (a.figure.capacity_line, a.figure.input_limit_line, a.figure.note) == (None, 6800, None)
    assert a.figure.x_max == pytest.approx(7400 * 1.03)  # the declared bar (with B_mem 200) is longest
    over = assess(replace(t, endpoint=replace(t.endpoint, max_input_tokens=100, max_output_tokens=1000)))
    budget_rules = [f.rule for f in over.findings if f.rule.startswith("budget.")]  # the rich trace has others too
    assert budget_rules == ["budget.input_over_limit", "budget.output_over_limit"]
    assert over.state is State.FAILURE and over.fits is False


def test_policy_missing_fits_but_fails() -> None:
    t = make_trace(policy=Policy(id="support-policy", version="2026-10-03", available=False))
    a = assess(t)
    assert (a.fits, a.state) == (True, State.FAILURE)
    assert a.worst is not None and (a.worst.rule, a.worst.table_row) == ("policy.unavailable", 1)
    assert a.verdict == ("fits, 6,601 tokens margin; required policy version 2026-10-03 unavailable: "
                         "the request should be rejected")
    assert dict(a.header)["State"] == (
        "failure: required policy version 2026-10-03 unavailable: the request should be rejected")


def test_header_rows_put_state_after_created() -> None:
    labels = [label for label, _ in assess(make_trace()).header]
    assert labels[:4] == ["Trace", "Created", "State", "Service"]


def test_check_capacity_runs_once_per_trace(monkeypatch) -> None:
    calls: list[str] = []
    real = budget.check_capacity
    monkeypatch.setattr(budget, "check_capacity", lambda t: calls.append(t.trace_id) or real(t))
    budget.capacity.cache_clear()
    t = chapter_8k(trace_id="count-me", omitted=1500)
    assess(t)
    assess(t)
    assert calls == ["count-me"]


def test_a_request_far_under_its_window_offers_a_zoomed_range() -> None:
    """7,200 tokens (input 6,000 + B_out 1,200) against an assumed C of 128,000 end at 5.6 % of the
    range: the figure offers a range that ends at 7,200 x 1.03; against C = 8,000 (90 %) it offers none."""
    t = replace(chapter_8k(), endpoint=Endpoint(provider="openai", model="gpt-4o-mini-2024-07-18"), budget={})
    fig = assess(t).figure
    assert fig.x_max == pytest.approx(128_000 * 1.03)
    assert fig.zoom_x_max == pytest.approx(7_200 * 1.03)
    assert [(s.key, s.start, s.tokens) for s in fig.used][-1] == ("margin", 7_200, 120_800)  # the bar is whole
    assert assess(chapter_8k()).figure.zoom_x_max is None
    at = {c: assess(replace(t, endpoint=Endpoint(capacity=c))).figure.zoom_x_max for c in (72_001, 71_999)}
    assert at == {72_001: pytest.approx(7_200 * 1.03), 71_999: None}  # 7,200 under / over a tenth of C
