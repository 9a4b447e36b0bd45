"""Token accounting consistency: reserve vs capacity, counted vs reported, reasoning vs output."""

from factories import make_trace

from ctxviewer.assess.checks import run_checks
from ctxviewer.assess.checks.accounting import AccountingCheck
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import Endpoint, LimitMode, Usage


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
