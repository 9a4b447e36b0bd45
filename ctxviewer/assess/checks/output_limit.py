"""A response that stopped at its output limit: the ``budget.output_exhausted`` finding of the
eq. 3.1 check (:mod:`ctxviewer.assess.checks.capacity`), whose B_out it is about. No Qt here.
"""

from __future__ import annotations

from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace

OUTPUT_LIMIT_REASONS = frozenset({"length", "max_tokens", "max_output_tokens", "model_length",
                                  "incomplete_max_output_tokens"})
"""Finish reasons (lower-cased) that say generation stopped at the output limit: OpenAI ``length``,
Anthropic ``max_tokens``, Gemini ``MAX_TOKENS``, the Responses API's ``max_output_tokens``
(``incomplete_details.reason``), vLLM's ``model_length``."""


def _n(v: int) -> str:
    return f"{v:,}"


def output_exhausted(trace: RequestTrace) -> Finding | None:
    """``budget.output_exhausted`` for a response that stopped at its output limit (module
    docstring), naming B_out and the output tokens reported; ``None`` otherwise."""
    r = trace.response
    reason = (r.finish_reason or "").strip().lower() if r is not None else ""
    if reason not in OUTPUT_LIMIT_REASONS or trace.attributes.get("otel.status_code") == "error":
        return None
    b_out, used = trace.reserved_output_tokens, trace.usage.output_tokens
    limit = (f"the reserved output B_out of {_n(b_out)} tokens" if b_out is not None
             else "its output limit (B_out not recorded)")
    spent = f"; {_n(used)} output tokens reported" if used is not None else ""
    return Finding(
        rule="budget.output_exhausted", severity=Severity.WARNING,
        message=(f"the response stopped at {limit} (finish reason {r.finish_reason}{spent}): "  # type: ignore[union-attr]
                 "the answer is cut off"),
        evidence=Evidence(fields=("response.finish_reason", "reserved_output_tokens", "usage.output_tokens")),
    )
