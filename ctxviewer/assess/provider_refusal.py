"""What the provider's own answer says about the context window: a refusal as over it, read from
the span's error message (:func:`refusal`), an answer larger than the window assumed for the
model (:func:`refuted_window`), and the margin the reported input leaves (:func:`reported_margin`).

When the request does not fit, the provider answers an error instead of a completion, and the
message states both numbers: OpenAI ``"This model's maximum context length is 128000 tokens.
However, your messages resulted in 131072 tokens"`` (or ``"you requested 131072 tokens (130000 in
the messages, 1072 in the completion)"``), Anthropic ``"prompt is too long: 210000 tokens > 200000
maximum"``, Gemini ``"The input token count (1200000) exceeds the maximum number of tokens allowed
(1048576)"``. That is the endpoint's own count of what was sent, which a trace whose captured
text is shorter (capture limits, truncation) cannot show: eq. 3.1 said "fits" beside the refusal.
:func:`refusal` reads the numbers; :func:`ctxviewer.assess.budget.check_capacity` then decides
by them. No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctxviewer.assess.input_source import REPORTED_SOURCE
from ctxviewer.assess.plausibility import reported_input
from ctxviewer.assess.tolerance import tolerance
from ctxviewer.model.capture import answered
from ctxviewer.model.span_facts import ERROR, span_status, status_message
from ctxviewer.model.trace import RequestTrace
from ctxviewer.model.words import fmt_int

_PATTERNS = (
    (re.compile(r"maximum context length is ([\d,]+) tokens?\.?.{0,40}?(?:resulted in|requested) ([\d,]+) tokens?",
                re.IGNORECASE | re.DOTALL), 1, 2),
    (re.compile(r"prompt is too long:\s*([\d,]+) tokens?\s*>\s*([\d,]+)", re.IGNORECASE), 2, 1),
    (re.compile(r"input token count \(([\d,]+)\) exceeds the maximum number of tokens allowed \(([\d,]+)\)",
                re.IGNORECASE), 2, 1),
)
"""``(pattern, group of the window, group of the tokens sent)`` per provider's wording."""
_ANTHROPIC_SUM = re.compile(r"exceed context limit:\s*([\d,]+)\s*\+\s*([\d,]+)\s*>\s*([\d,]+)", re.IGNORECASE)
"""Anthropic's input + ``max_tokens`` over the window: ``"input length and `max_tokens` exceed context
limit: 190000 + 20000 > 200000"`` (sent = input + max_tokens)."""


@dataclass(frozen=True)
class Refusal:
    """The provider's statement that a request exceeded its context window."""

    window: int
    """The context window the provider names, in tokens."""
    sent: int
    """The tokens the provider counted for the request (input, or input + requested output), in tokens."""
    message: str
    """The provider's sentence, as recorded (``otel.status_message``)."""


def refusal(trace: RequestTrace) -> Refusal | None:
    """The :class:`Refusal` in ``trace``'s span error message, or ``None``: the span did not end in
    error, or its message states no context-window overflow with both numbers."""
    if span_status(trace.attributes) != ERROR:
        return None
    text = status_message(trace.attributes) or ""
    for pattern, window, sent in _PATTERNS:
        m = pattern.search(text)
        if m:
            c, n = int(m.group(window).replace(",", "")), int(m.group(sent).replace(",", ""))
            if n > c:
                return Refusal(c, n, m.group(0))
    m = _ANTHROPIC_SUM.search(text)  # "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000"
    if m:
        inp, out, c = (int(g.replace(",", "")) for g in m.groups())
        if inp + out > c:
            return Refusal(c, inp + out, m.group(0))
    return None



def refuted_window(trace: RequestTrace, cap: int | None, cap_source: str, used: int | None) -> str | None:
    """Why an *assumed* C cannot be this deployment's window, in words, or ``None``: the provider
    answered the call (:func:`ctxviewer.model.capture.answered`) and reported more input tokens than
    that C (``used``: the reported input; a count is no evidence of what the endpoint accepted -- it
    may hold text that was never sent) -- Gemini 1.5 Pro served 1,500,000 input
    tokens against a catalogue window of 1,000,000, Claude Sonnet 4 400,000 with its 1M-context
    beta. An endpoint that accepted the input proves the assumption wrong, not the request over
    capacity. A C the trace recorded or the user set is never doubted here."""
    if cap is None or used is None or not cap_source.startswith("assumed") or used <= cap or not answered(trace):
        return None
    return (f"the provider answered with {fmt_int(used)} input tokens, more than the assumed context window of "
            f"{fmt_int(cap)} tokens ({cap_source.removeprefix('assumed (').removesuffix(')')}): that assumption does "
            "not hold for this deployment, so eq. 3.1 is not checked (set the window in ctxviewer.toml)")


def reported_margin(trace: RequestTrace, fits: bool | None, source: str | None, cap: int | None,
                     counted: int | None, b_out: int | None) -> int | None:
    """:attr:`CapacityCheck.reported_margin` (see there), or ``None``."""
    reported = reported_input(trace)
    if trace.attributes.get("ctxviewer.whatif.changed"):  # another selection than the provider counted
        return None
    if not fits or source == REPORTED_SOURCE or cap is None or counted is None or b_out is None or reported is None:
        return None
    tol = tolerance(trace)
    if tol is None or reported - counted <= tol:
        return None
    return cap - (reported + b_out)
