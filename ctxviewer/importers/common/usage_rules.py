"""Usage rules a source documents but its usage fields do not show: Gemini's thinking tokens.

Gemini (``UsageMetadata``: ``promptTokenCount``, ``candidatesTokenCount``, ``thoughtsTokenCount``,
``totalTokenCount``) counts thinking apart from the candidates: ``total = prompt + candidates +
thoughts`` (+ tool-use prompt tokens). Instrumentations that report ``candidatesTokenCount`` as the
output tokens and ``totalTokenCount`` as the total lose the thinking unless it is taken back from
the total. :func:`thinking_in_total` does that for the Gemini providers (the OTel GenAI rule:
output includes reasoning) on OTel and OpenInference spans and LangSmith runs (LangChain
``usage_metadata.total_tokens``); the trace's ``ctxviewer.usage_rule`` (:data:`RULE`) says the
reasoning was derived. ``input`` is the normalised input (cache reads included, eq. 3.1), as
Gemini's ``promptTokenCount`` includes ``cachedContentTokenCount``, so the cache is not taken off
again. Langfuse's ``total`` is its own sum of the usage keys and hides nothing. No Qt here.
"""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.model.source_notes import GEMINI_THINKING_RULE
from ctxviewer.model.trace import Usage

GEMINI_PROVIDERS = frozenset({"gemini", "gcp.gemini", "gcp.vertex_ai", "vertex_ai", "google", "google_genai",
                              "google_vertexai", "vertexai", "gcp.gen_ai"})
"""Provider names (``gen_ai.provider.name`` / ``gen_ai.system`` / ``llm.provider`` values) whose
usage follows Gemini's rule."""

RULE = GEMINI_THINKING_RULE
"""The ``ctxviewer.usage_rule`` text when :func:`thinking_in_total` changed the usage (shared with
the header that says the reasoning was derived: :data:`~ctxviewer.model.source_notes.GEMINI_THINKING_RULE`)."""


def thinking_in_total(usage: Usage, total: int | None, provider: str | None, model: str | None = None) -> Usage | None:
    """``usage`` with Gemini's thinking tokens taken from ``total`` (tokens), or ``None`` when the
    rule does not apply: not a Gemini provider (nor a ``gemini-*`` model), reasoning already
    recorded, or ``total`` not above ``input + output``. Then ``reasoning = total - input - output``
    and ``output += reasoning`` (834 total, 210 input, 312 output -> output 624, reasoning 312)."""
    gemini = (provider or "").lower() in GEMINI_PROVIDERS or (model or "").lower().startswith("gemini")
    if not gemini or total is None or usage.reasoning_tokens is not None:
        return None
    if usage.input_tokens is None or usage.output_tokens is None:
        return None
    thinking = total - usage.input_tokens - usage.output_tokens
    if thinking <= 0:
        return None
    return replace(usage, output_tokens=usage.output_tokens + thinking, reasoning_tokens=thinking)
