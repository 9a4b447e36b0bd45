"""A reported usage no call can have (new user 2026-12-07, #15): a Langfuse generation recording
10**15 input tokens was priced at $2,510,000,000.00 over the $0.00237 it recorded, and the same
count "refuted" the assumed context window and made a 999,999,999,999,921-token accounting gap.
Now it is named once (``input.implausible``), not priced, and no other check decides by it."""

from __future__ import annotations

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess.assessment import conclude
from ctxviewer.assess.plausibility import reported_input
from ctxviewer.assess.trace_header import cost_line
from ctxviewer.model.trace import Usage
from ctxviewer.tokens.cost import MOST_TOKENS


def _huge() -> object:
    base = make_trace(input_tokens=None, attributes={"langfuse.cost.total": 0.00237})
    return replace(base, endpoint=replace(base.endpoint, capacity=None),
                   usage=Usage(input_tokens=10**15, output_tokens=31))


def test_an_impossible_input_is_named_once_and_decides_nothing() -> None:
    t = _huge()
    assert reported_input(t) is None
    c = conclude(t)
    assert [(f.rule, f.severity.value) for f in c.findings] == [("input.implausible", "warning")]
    assert c.findings[0].message == (
        "implausible recorded values: usage.input_tokens: 1,000,000,000,000,000 tokens reported, more than any "
        "call can use (the largest context window is about 10,000,000), not priced")
    assert c.capacity.fits is True and c.capacity.capacity_problem is None  # by the count, C as assumed
    assert cost_line(t) == ("not known: input tokens implausible (1,000,000,000,000,000 reported, more than any "
                            "call can use); the trace records $0.002370 (langfuse.cost.total)")


def test_the_largest_plausible_input_still_counts() -> None:
    t = replace(_huge(), usage=Usage(input_tokens=MOST_TOKENS, output_tokens=31))
    assert reported_input(t) == 100_000_000
    assert "input.implausible" not in [f.rule for f in conclude(t).findings]
