"""eq. 3.1 with the provider-reported input, the overflow in words, and impossible capacities."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factories import make_trace

from ctxviewer.assess.bars import used_bar
from ctxviewer.assess.budget import check_capacity
from ctxviewer.assess.verdict import verdict_text
from ctxviewer.model.trace import Category, Endpoint, Usage
from ctxviewer.pipeline.stored_facts import with_facts


def test_counted_fit_but_reported_overflow_is_not_fits() -> None:
    t = make_trace(input_tokens=6800, usage=Usage(input_tokens=6900))
    chk = check_capacity(t)
    assert chk.fits is False and chk.input_source == "reported by the provider"
    assert verdict_text(chk) == ("over capacity by 100 tokens by the provider-reported input: "
                                 "had 6,800 tokens left, needed 6,900 (counted 6,800)")


def test_overflow_says_tokens_left_and_needed() -> None:
    chk = check_capacity(make_trace(input_tokens=7500))
    assert chk.input_source == "counted by the application"
    assert verdict_text(chk) == "over capacity by 700 tokens: had 6,800 tokens left, needed 7,500"


def test_slack_below_declared_margin_is_said() -> None:
    chk = check_capacity(make_trace(input_tokens=6500, usage=Usage(input_tokens=6550)))
    assert chk.fits is True
    assert verdict_text(chk) == "fits, 300 tokens margin (below the declared 800)"


def test_reserve_filling_the_window_is_an_error_in_words_not_a_negative_bar() -> None:
    t = make_trace(reserved_output_tokens=8000, input_tokens=100)
    assert verdict_text(check_capacity(t)) == (
        "reserved output 8,000 tokens fills the 8,000-token context window: no room for any input")
    assert all(seg.tokens >= 0 for seg in used_bar(t))


def test_a_reserve_filling_an_assumed_window_is_said_not_a_negative_room() -> None:
    """A new user's B_out of 10^12 on gpt-4o-mini (C 128,000 assumed) read "over capacity by ...: had
    -999,999,872,000 tokens left, needed 1"."""
    t = make_trace(endpoint=Endpoint(provider="openai", model="gpt-4o-mini"), reserved_output_tokens=10**12,
                   input_tokens=1, budget={})
    chk = check_capacity(t)
    assert (chk.capacity, chk.fits) == (128_000, False)
    assert verdict_text(chk) == (
        "reserved output 1,000,000,000,000 tokens fills the 128,000-token context window assumed "
        f"({chk.capacity_source.removeprefix('assumed (')}: no room for any input")
    assert chk.capacity_source.startswith("assumed (model catalogue: genai-prices ")


def test_capacity_equal_to_the_models_max_output_is_called_out() -> None:
    t = make_trace(endpoint=Endpoint(model="gpt-4o-2024-08-06", capacity=16384), input_tokens=1000)
    assert verdict_text(check_capacity(t)) == (
        "capacity 16,384 tokens equals gpt-4o's max output, not its 128,000-token context window: "
        "the output limit was recorded as C")
    unknown = replace(t, endpoint=Endpoint(model="my-deployment", capacity=16384))
    assert verdict_text(check_capacity(unknown)).startswith("fits, ")


def test_limits_check_findings() -> None:
    from ctxviewer.assess.checks.limits import LimitsCheck

    bad = make_trace(endpoint=Endpoint(model="gpt-4o", capacity=16384), input_tokens=1000)
    assert [f.rule for f in LimitsCheck().run(bad)] == ["budget.capacity_is_max_output"]
    assert list(LimitsCheck().run(make_trace())) == []


def test_breakdown_warns_when_the_residual_exceeds_the_tolerance() -> None:
    from ctxviewer.assess.breakdown import breakdown

    b = breakdown(make_trace(usage=Usage(input_tokens=9000)))
    assert b.warning is not None and b.warning.startswith("provider reported 9,000 input tokens, counted ")


def test_breakdown_adds_up() -> None:
    from ctxviewer.assess.breakdown import breakdown

    b = breakdown(make_trace(usage=Usage(input_tokens=5000)))
    assert b.total == sum(b.content.values()) + b.framing + b.tool_overhead
    assert b.residual == 5000 - b.total
    # reply priming + five retained messages (3 + 1 role token each); the tool definition has overhead
    assert b.framing == 3 + 5 * (3 + 1)
    assert b.tool_overhead > 0
    assert "recorded on the trace" in b.resolution.reason


def test_breakdown_lines_end_with_reported_residual_and_warning() -> None:
    from ctxviewer.assess.breakdown import breakdown

    b = breakdown(make_trace(usage=Usage(input_tokens=9000)))
    assert b.lines() == [
        "system policy           50", "history                 33", "evidence                44",
        "tools                   51", "user request            21", "framing                 23",
        "tool overhead           25", "counted total          247  (cl100k_base)",
        "reported input       9,000", "residual            +8,753  (tolerance 180)",
        "warning: provider reported 9,000 input tokens, counted 247: residual +8,753 tokens exceeds the tolerance of 180",
    ]
    assert 50 + 33 + 44 + 51 + 21 + 23 + 25 == b.total == 247
    assert b.to_json()["total"] == b.total and b.to_json()["residual"] == 9000 - b.total
    assert breakdown(make_trace(usage=Usage())).lines()[-1] == "reported input           —  not recorded"


@pytest.mark.slow
def test_a_million_space_tool_output_in_a_trace_is_counted_marked_and_kept(tmp_path) -> None:
    from ctxviewer.assess.breakdown import breakdown
    from ctxviewer.builder.whatif import Scenario, run
    from ctxviewer.model.trace import ContextItem, Kind
    from ctxviewer.store import TraceStore

    base = make_trace()
    out = ContextItem(kind=Kind.HISTORY, id="tool-output", content=" " * 1_000_000, priority=0.1, role="tool")
    trace = replace(base, items=(*base.items[:-1], out, base.items[-1]), input_tokens=None, usage=Usage())
    with TraceStore.create(tmp_path / "big.db") as store:
        store.add(with_facts([trace]))
    with TraceStore.open(tmp_path / "big.db") as store:
        back = store.load(trace.trace_id)
    assert len(back.item("tool-output").content) == 1_000_000
    b = breakdown(back)
    assert b.chunked == ("tool-output",)
    assert b.lines()[-1] == "counted in chunks (may be off by a few tokens): tool-output"
    hist_without = breakdown(base).content[Category.HIST]
    assert abs(b.content[Category.HIST] - hist_without - 7_813) <= 10  # 1,000,000 spaces in cl100k_base
    # the truncation check searched from every position of the run (quadratic, never finished);
    # the scanner's linear-time whitespace is tested in tests/scanner/test_rules.py
    from ctxviewer.assess.checks.truncation import TruncationCheck

    assert list(TruncationCheck().run(back)) == []
    o = run(back, Scenario())  # as recorded: it was sent, over C; the what-if says so and keeps it
    assert o.trace is not None and o.trace.item("tool-output").status.value == "retained"
    from ctxviewer.tokens.counting import count_tokens

    sent = sum(count_tokens(i.content or "", "cl100k_base") if i.tokens is None else i.tokens for i in back.retained)
    assert sent + 1200 > 8000
    assert o.notes[2] == (f"the recording's input of {sent:,} tokens is over its input budget of 6,800: the application "
                          "did not trim to it, so neither does the what-if while C and B_out are as recorded")
    o = run(back, Scenario(reserve=1000))  # a changed limit re-trims it: dropped with its tool call turn-1
    assert o.trace is not None and o.trace.item("tool-output").omission_reason == "budget (dropped with tool call turn-1)"


def test_items_trimmed_are_told_when_the_reported_input_decided() -> None:
    """rev4 N-5: 'trimmed' compares the count before trimming with the count, never with the
    provider-reported input (which holds framing): 6,600 counted + 250 omitted = 6,850 before
    trimming, over C by 50 with B_out; the report (6,900) decides eq. 3.1 and is above 6,850."""
    from ctxviewer.assess.assessment import conclude
    from ctxviewer.model.trace import Status

    base = make_trace(input_tokens=6600, usage=Usage(input_tokens=6900))
    t = replace(base, items=tuple(replace(i, tokens=250) if i.status is Status.OMITTED else i for i in base.items))
    chk = check_capacity(t)
    assert (chk.input_source, chk.input_before_trim, chk.over_before_trim, chk.trimmed) == (
        "reported by the provider", 6850, 50, True)
    assert [(f.rule, f.message) for f in conclude(t).findings if f.rule == "budget.over_before_trim"] == [
        ("budget.over_before_trim", "before trimming the candidates were over capacity by 50 tokens; 1 item(s) omitted")]
