"""A response that stopped at its output limit is cut off (budget.output_exhausted; new user
2026-12-07, F10: Inspect's stop_reason max_tokens at config.max_tokens 64 raised nothing)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factories import make_trace

from ctxviewer.assess.assessment import assess
from ctxviewer.model.trace import Response, Usage


def _exhausted(trace):  # type: ignore[no-untyped-def]
    return [(f.severity.value, f.message) for f in assess(trace).findings if f.rule == "budget.output_exhausted"]


@pytest.mark.parametrize("reason", ["length", "max_tokens", "MAX_TOKENS", "max_output_tokens"])
def test_each_providers_word_for_the_output_limit(reason: str) -> None:
    t = make_trace(response=Response(text="The refund policy allows returns within", finish_reason=reason),
                   reserved_output_tokens=64, usage=Usage(input_tokens=5000, output_tokens=64))
    assert _exhausted(t) == [("warning", f"the response stopped at the reserved output B_out of 64 tokens (finish "
                                         f"reason {reason}; 64 output tokens reported): the answer is cut off")]


def test_a_complete_answer_an_error_or_no_reserve() -> None:
    base = make_trace(response=Response(text="Done.", finish_reason="stop"), reserved_output_tokens=64)
    assert _exhausted(base) == []
    cut = replace(base, response=Response(text="Partial", finish_reason="length"))
    assert _exhausted(replace(cut, attributes={"otel.status_code": "error"})) == []
    assert _exhausted(replace(cut, reserved_output_tokens=None, usage=Usage())) == [
        ("warning", "the response stopped at its output limit (B_out not recorded) (finish reason length): "
                    "the answer is cut off")]


def test_far_below_b_out_the_context_window_ended_it_and_any_error_says_nothing() -> None:
    """Review rev4 F-2, F-3: "stopped at the reserved output B_out of 1,200 tokens (... 10 output
    tokens reported)" contradicted itself; error.type and an upper-case ERROR are errors too."""
    t = make_trace(response=Response(text="x", finish_reason="length"), reserved_output_tokens=1200,
                   usage=Usage(input_tokens=7990, output_tokens=10))
    assert _exhausted(t) == [("warning", "the response stopped at an output limit after 10 output tokens, below the "
                                         "reserved output B_out of 1,200: the context window ended it (input 7,990 "
                                         "reported) (finish reason length): the answer is cut off")]
    for attrs in ({"error.type": "Timeout"}, {"otel.status_code": "ERROR"}):
        assert _exhausted(replace(t, attributes=attrs)) == []
