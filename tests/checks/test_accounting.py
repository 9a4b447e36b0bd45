"""Token accounting consistency: reserve vs capacity, counted vs reported, reasoning vs output."""

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess.checks import run_checks
from ctxviewer.assess.checks.accounting import AccountingCheck
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import Endpoint, Kind, LimitMode, Usage


def rules(t):
    return [(f.rule, f.severity) for f in AccountingCheck().run(t)]


def ep(c):
    return Endpoint(capacity=c, limit_mode=LimitMode.SHARED)


def test_benign_consistent_numbers():
    assert rules(make_trace(input_tokens=300, usage=Usage(input_tokens=340, output_tokens=90, reasoning_tokens=10))) == []


def test_reserve_at_or_over_capacity_is_one_budget_finding():
    t = make_trace(endpoint=ep(1200))
    assert rules(t) == []  # eq. 3.1 overflow: budget.over_capacity reports it, once
    assert [f.rule for f in run_checks(t) if f.severity is Severity.FAILURE] == ["budget.over_capacity"]


def test_no_room_for_input():
    # 2,010 - 1,200 - 800 = 10 tokens of room, less than policy + user request need
    [f] = AccountingCheck().run(make_trace(endpoint=ep(2010)))
    assert f.rule == "accounting.no_room_for_input" and f.severity is Severity.FAILURE
    assert f.message.startswith("capacity 2,010 - reserved output 1,200 - safety margin 800 leaves 10 tokens")
    assert f.first_evidence == "Capacity minus reserved output minus safety margin"


def test_count_mismatch_beyond_the_safety_margin():
    [f] = AccountingCheck().run(make_trace(input_tokens=300, usage=Usage(input_tokens=1150)))
    assert f.rule == "accounting.count_mismatch"
    assert f.message == "counted input 300 and reported input 1,150 tokens differ by 850, more than the tolerance of 800"


def test_reported_input_over_capacity_is_one_budget_finding():
    t = make_trace(input_tokens=6700, usage=Usage(input_tokens=6900), safety_margin=None)
    assert rules(t) == []
    assert [f.rule for f in run_checks(t) if f.severity is Severity.FAILURE] == ["budget.over_capacity"]


def test_reasoning_exceeds_output():
    assert rules(make_trace(usage=Usage(output_tokens=10, reasoning_tokens=50))) == [
        ("accounting.reasoning_exceeds_output", Severity.WARNING)]


def run(t):
    return list(AccountingCheck().run(t))


def _reported(trace, reported):
    from ctxviewer.model.trace import Usage

    return replace(trace, input_tokens=None, usage=Usage(input_tokens=reported))


def test_a_reported_input_far_from_what_the_trace_captured_is_named_and_explained_where_it_can_be() -> None:
    """Traces without their own count: ctxviewer's count of what was captured (content, framing and
    tool overhead by the endpoint profile) beside the provider's report."""
    from ctxviewer.assess.breakdown import breakdown
    from ctxviewer.model.trace import ToolCall

    base = make_trace()
    counted = breakdown(_reported(base, 1)).total
    assert [f.rule for f in run(_reported(base, counted))] == []  # within the tolerance: nothing
    over = run(_reported(base, counted + 5_000))
    assert [(f.rule, f.severity) for f in over] == [("accounting.reported_gap", Severity.WARNING)]
    assert over[0].message == (
        f"the provider reported {counted + 5_000:,} input tokens, counted {counted:,} (cl100k_base; 199 in the items + 48 of message framing and "
        f"tool-definition overhead): 5,000 tokens "
        f"above the count (tolerance {int(0.02 * (counted + 5_000)):,}): the trace and the usage disagree by more than "
        "3x -- part of what was sent is not in the trace, or the usage is not this request's")
    under = run(_reported(base, 60))  # 247 counted: more than 3 x 60 + 8
    assert [(f.rule, f.severity) for f in under] == [("accounting.reported_gap", Severity.WARNING)]
    assert "below the count" in under[0].message and "not this request's" in under[0].message
    # a gap that is no evidence of a fault (within GROSS times): the numbers, as info
    [near] = run(_reported(base, counted + 40))
    assert (near.severity, near.message) == (Severity.INFO, (
        f"the provider reported {counted + 40:,} input tokens, counted {counted:,} (cl100k_base; 199 in the items + 48 of message framing and "
        f"tool-definition overhead): 40 tokens above "
        f"the count (tolerance {max(8, int(0.02 * (counted + 40))):,}): tool schemas or template framing counted differently"))
    # the model proposed tool calls while no tool definition was captured: explained, info
    no_tools = replace(base, items=tuple(i for i in base.items if i.kind is not Kind.TOOL),
                       tool_calls=(ToolCall(name="lookup_order", arguments='{"id": 1}'),))
    counted2 = breakdown(_reported(no_tools, 1)).total
    [f] = run(_reported(no_tools, counted2 + 391))
    assert (f.rule, f.severity) == ("accounting.reported_gap", Severity.INFO)
    assert f.message.endswith("391 tokens are not in the captured items -- the model proposed tool calls, "
                              "but no tool definition was captured")
    # an image kept as a placeholder: estimated from its size, which may not match the provider's count
    with_image = replace(base, items=tuple(replace(i, content=(i.content or "") + "\n[image/png blob, 8,528 bytes base64]")
                                           if i.kind is Kind.USER else i for i in base.items))
    counted3 = breakdown(_reported(with_image, 1)).total
    [img] = run(_reported(with_image, counted3 + 765))
    assert (img.severity, img.message.endswith(
        "765 tokens apart -- the request held an image, kept as a placeholder and estimated from its size by the "
        "model's image rule, which the provider's own count may not match")) == (Severity.INFO, True)
    # the content was not captured at all: said so, info
    uncaptured = replace(_reported(base, counted + 5_000), attributes={"ctxviewer.content": "not captured"})
    [g] = run(uncaptured)
    assert (g.severity, g.message.endswith(": the content was not captured")) == (Severity.INFO, True)


def test_retained_items_over_the_counted_input_are_a_warning() -> None:
    """The new user's F22: budget-8k with one history turn recorded as 400,000 tokens (its input
    still counted 6,000) was "ok, fits, 800 tokens margin" with no finding."""
    from dataclasses import replace

    from factories import make_trace

    from ctxviewer.assess.assessment import assess

    t0 = make_trace()
    t = replace(t0, input_tokens=sum(i.tokens or 0 for i in t0.retained) + 21)  # the items and some framing
    first = next(i for i in t.items if i.status.value == "retained" and i.kind.value == "history")
    big = replace(t, items=tuple(replace(i, tokens=400_000) if i is first else i for i in t.items))
    items = sum(i.tokens or 0 for i in big.retained)
    found = [(f.rule, f.severity.value, f.message) for f in assess(big).findings if f.rule == "accounting.items_over_count"]
    tol = big.safety_margin if big.safety_margin is not None else max(50, -(-big.input_tokens * 5 // 100))
    assert found == [("accounting.items_over_count", "warning",
                      f"the retained items add up to {items:,} tokens, {items - big.input_tokens:,} more than the "
                      f"counted input {big.input_tokens:,} (tolerance {tol:,}): one of the counts is not of what was "
                      f"sent; eq. 3.1 checked {big.input_tokens:,}")]
    assert [f.rule for f in assess(t).findings if f.rule == "accounting.items_over_count"] == []  # consistent: none
