"""An assumed context window the call itself refutes is no over-capacity failure: the provider
answered with more input tokens than the catalogue's C for the model (new user 2026-12-07: Gemini
1.5 Pro served 1,500,000 input tokens against genai-prices' 1,000,000 -> "failure: over capacity by
500,000 tokens")."""

from __future__ import annotations

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess.assessment import assess
from ctxviewer.assess.budget import check_capacity
from ctxviewer.assess.verdict import verdict_text
from ctxviewer.model.trace import Endpoint, Response, Usage
from ctxviewer.tokens.catalogue import package_version

REFUTED = ("the provider answered with 1,500,000 input tokens, more than the assumed context window of "
           f"1,000,000 tokens (model catalogue: genai-prices {package_version()}, gemini-1.5-pro): that assumption "
           "does not hold for this deployment, so eq. 3.1 is not checked (set the window in ctxviewer.toml)")


def _gemini(**kw: object):  # type: ignore[no-untyped-def]
    base = make_trace(endpoint=Endpoint(provider="gcp.gemini", model="gemini-1.5-pro"),
                      usage=Usage(input_tokens=1_500_000, output_tokens=100),
                      response=Response(text="The summary is ...", finish_reason="stop"),
                      reserved_output_tokens=1200, safety_margin=None)
    return replace(base, **kw)


def test_an_answered_call_over_the_assumed_window_is_not_checked() -> None:
    chk = check_capacity(_gemini())
    assert (chk.capacity, chk.fits, chk.margin) == (1_000_000, None, None)
    assert verdict_text(chk) == REFUTED
    a = assess(_gemini())
    assert [(f.rule, f.severity.value) for f in a.findings if f.rule.startswith("budget.")] == [
        ("budget.not_checked", "info")]
    assert a.state.value != "failure"


def test_a_failed_call_or_a_recorded_window_is_still_over_capacity() -> None:
    failed = _gemini(attributes={"otel.status_code": "error"}, response=None)
    assert check_capacity(failed).fits is False  # the endpoint refused it: the assumption may well hold
    recorded = _gemini(endpoint=Endpoint(provider="gcp.gemini", model="gemini-1.5-pro", capacity=1_000_000))
    chk = check_capacity(recorded)
    assert chk.fits is False and verdict_text(chk).startswith("over capacity by 501,200 tokens by the provider-reported input")
    within = _gemini(usage=Usage(input_tokens=900_000, output_tokens=100))
    assert check_capacity(within).fits is True  # not refuted: 900,000 fit the assumed window


def test_a_fitting_call_names_its_margin_by_the_providers_count_too() -> None:
    """New user F2: gpt-4o, 7 tokens counted, 100,000 reported: "fits, 127,993 tokens margin" alone
    overstated the headroom the provider's own count leaves (28,000). The margin stays by the count
    (the declared safety margin is planned in it); the verdict names both once the report is above
    the count by more than the tolerance."""
    from ctxviewer.model.trace import ContextItem, Kind, Status, Trust

    item = ContextItem(kind=Kind.USER, id="u", content="Summarise the attached report.", tokens=7,
                       status=Status.RETAINED, position=1, trust=Trust.UNTRUSTED)
    t = make_trace(endpoint=Endpoint(provider="openai", model="gpt-4o"), items=(item,), input_tokens=None,
                   usage=Usage(input_tokens=100_000, output_tokens=100), reserved_output_tokens=None,
                   safety_margin=None, response=Response(text="ok"))
    chk = check_capacity(t)
    assert (chk.margin, chk.reported_margin, chk.fits) == (127_993, 28_000, True)
    assert verdict_text(chk) == ("fits, 127,993 tokens margin (by the count; 28,000 by the provider-reported input "
                                 "100,000) (capacity assumed; reserved output not recorded: input alone checked)")
    near = replace(t, usage=Usage(input_tokens=7 + 50, output_tokens=100))  # within the 50-token tolerance
    assert check_capacity(near).reported_margin is None
    assert verdict_text(check_capacity(near)).startswith("fits, 127,993 tokens margin (capacity assumed")


def test_the_chart_draws_the_reported_input_and_no_margin_when_the_input_is_unknown() -> None:
    """New user F15: an input not recorded was drawn as a 128,000-token margin ("the whole window
    free"), and the provider's 100,000 beyond a 7-token count as margin too."""
    from ctxviewer.assess.bars import used_bar
    from ctxviewer.model.trace import ContextItem, Kind, Status, Trust

    item = ContextItem(kind=Kind.USER, id="u", content="Summarise the attached report.", tokens=7,
                       status=Status.RETAINED, position=1, trust=Trust.UNTRUSTED)
    t = make_trace(endpoint=Endpoint(provider="openai", model="gpt-4o"), items=(item,), input_tokens=None,
                   usage=Usage(input_tokens=100_000, output_tokens=100), reserved_output_tokens=None,
                   safety_margin=None, response=Response(text="ok"))
    assert [(s.key, s.start, s.tokens) for s in used_bar(t)] == [
        ("user", 0, 7), ("unaccounted", 7, 99_993), ("margin", 100_000, 28_000)]
    unknown = replace(t, items=(replace(item, tokens=None),), usage=Usage())
    assert [s.key for s in used_bar(unknown)] == []
