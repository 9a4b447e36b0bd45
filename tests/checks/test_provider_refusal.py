"""A call the provider refused as over its context window is over capacity by the provider's own
numbers (ctxviewer.assess.provider_refusal): the header said "eq. 3.1 fits" beside OpenAI's
context_length_exceeded (new user 2026-12-07, F8), the captured text being shorter than what was sent."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factories import make_trace

from ctxviewer.assess.budget import check_capacity
from ctxviewer.assess.provider_refusal import refusal
from ctxviewer.assess.verdict import verdict_text

OPENAI = ("Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, "
          "your messages resulted in 131072 tokens. Please reduce the length of the messages.\", 'code': "
          "'context_length_exceeded'}}")


@pytest.mark.parametrize(("message", "window", "sent"), [
    (OPENAI, 128_000, 131_072),
    ("This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, "
     "1000 in the completion).", 8192, 9000),
    ("prompt is too long: 210000 tokens > 200000 maximum", 200_000, 210_000),
    ("The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1_048_576, 1_200_000),
    ("input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or "
     "`max_tokens` and try again", 200_000, 210_000),  # review rev4 F-5
])
def test_each_providers_wording(message: str, window: int, sent: int) -> None:
    t = make_trace(attributes={"otel.status_code": "error", "otel.status_message": message})
    r = refusal(t)
    assert r is not None and (r.window, r.sent) == (window, sent)


def test_the_verdict_is_by_the_providers_count() -> None:
    t = make_trace(attributes={"otel.status_code": "error", "otel.status_message": OPENAI})
    chk = check_capacity(t)
    assert (chk.fits, chk.capacity, chk.margin, chk.capacity_assumed) == (False, 128_000, -3_072, False)
    assert verdict_text(chk).startswith("over capacity by 3,072 tokens by the provider's own count: it refused the "
                                        "request as 131,072 tokens against its 128,000-token window")
    assert refusal(replace(t, attributes={"otel.status_code": "ok", "otel.status_message": OPENAI})) is None
    assert refusal(replace(t, attributes={"otel.status_code": "error", "otel.status_message": "rate limited"})) is None


def test_a_refusal_counting_the_completion_is_no_claim_that_the_trace_holds_less() -> None:
    """Review 2026-12-07 (rev4 F-1): OpenAI's "you requested 4200 tokens (3000 in your prompt; 1200 for
    the completion)" counts B_out too; a trace holding the 3,000 holds all that was sent."""
    from ctxviewer.model.trace import ContextItem, Kind, Status, Trust

    item = ContextItem(kind=Kind.USER, id="u", content="x", tokens=3000, status=Status.RETAINED, position=1,
                       trust=Trust.UNTRUSTED)
    t = make_trace(items=(item,), input_tokens=None, reserved_output_tokens=1200, attributes={
        "otel.status_code": "error",
        "otel.status_message": ("This model's maximum context length is 4097 tokens, however you requested 4200 "
                                "tokens (3000 in your prompt; 1200 for the completion).")})
    assert verdict_text(check_capacity(t)) == ("over capacity by 103 tokens by the provider's own count: it refused "
                                               "the request as 4,200 tokens against its 4,097-token window")


def test_a_refusal_on_separate_limits_is_no_fit() -> None:
    """Review rev4 F-4: with separate input and output limits the refusal was never read: "input fits,
    127,801 tokens to spare" beside context_length_exceeded."""
    from ctxviewer.model.trace import Endpoint, LimitMode

    t = make_trace(endpoint=Endpoint(provider="openai", model="gpt-4o", limit_mode=LimitMode.SEPARATE,
                                     max_input_tokens=128_000, max_output_tokens=4096),
                   attributes={"otel.status_code": "error", "otel.status_message": OPENAI})
    chk = check_capacity(t)
    assert (chk.fits, chk.input_fits) == (False, False)
    assert verdict_text(chk) == ("input over the provider's window by its own count: it refused the request as "
                                 "131,072 tokens against its 128,000-token window")
