"""A response that stopped at its output limit: the ``budget.output_exhausted`` finding of the
eq. 3.1 check (:mod:`ctxviewer.assess.checks.capacity`), whose B_out it is about. No Qt here.
"""

from __future__ import annotations

from ctxviewer.assess.plausibility import reported_input
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.span_facts import ERROR, span_status
from ctxviewer.model.trace import RequestTrace
from ctxviewer.model.words import fmt_int

OUTPUT_LIMIT_REASONS = frozenset({"length", "max_tokens", "max_output_tokens", "model_length",
                                  "incomplete_max_output_tokens"})
"""Finish reasons (lower-cased) that say generation stopped at the output limit: OpenAI ``length``,
Anthropic ``max_tokens``, Gemini ``MAX_TOKENS``, the Responses API's ``max_output_tokens``
(``incomplete_details.reason``), vLLM's ``model_length``."""


MIN_SLACK = 16
"""Output tokens below B_out still read as "stopped at B_out" (a provider's count of the last
token, stop sequences): the larger of this and 5 % of B_out."""



def output_exhausted(trace: RequestTrace) -> Finding | None:
    """``budget.output_exhausted`` for a response that stopped at its output limit (module
    docstring), naming B_out and the output tokens reported -- or, when the output reported is
    well below B_out (:data:`MIN_SLACK`), the context window as what ended it (OpenAI's ``length``
    also means input + output reached C); ``None`` otherwise, and for a call whose span ended in
    error (:func:`ctxviewer.model.span_facts.span_status`: the status code or ``error.type``)."""
    r = trace.response
    reason = (r.finish_reason or "").strip().lower() if r is not None else ""
    if reason not in OUTPUT_LIMIT_REASONS or span_status(trace.attributes) == ERROR:
        return None
    b_out, used = trace.reserved_output_tokens, trace.usage.output_tokens
    if b_out is not None and used is not None and used < b_out - max(MIN_SLACK, b_out // 20):
        # far below B_out: input + output reached the context window, not the reserve
        inp = reported_input(trace)
        limit = (f"an output limit after {fmt_int(used)} output tokens, below the reserved output B_out of {fmt_int(b_out)}: "
                 "the context window ended it" + (f" (input {fmt_int(inp)} reported)" if inp is not None else ""))
        spent = ""
    else:
        limit = (f"the reserved output B_out of {fmt_int(b_out)} tokens" if b_out is not None
                 else "its output limit (B_out not recorded)")
        spent = f"; {fmt_int(used)} output tokens reported" if used is not None else ""
    return Finding(
        rule="budget.output_exhausted", severity=Severity.WARNING,
        message=(f"the response stopped at {limit} (finish reason {r.finish_reason}{spent}): "  # type: ignore[union-attr]
                 "the answer is cut off"),
        evidence=Evidence(fields=("response.finish_reason", "reserved_output_tokens", "usage.output_tokens")),
    )
