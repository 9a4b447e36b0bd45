"""Langfuse usage buckets under the OpenAI integration's spellings (input_cached_tokens,
output_reasoning_tokens) are read: they were dropped without a word, the input shown 16x too low
and the cost 5x (new user 2026-12-07, F16)."""

from __future__ import annotations

from ctxviewer.importers.formats.langfuse.usage_details import usage
from ctxviewer.model.trace import Usage


def _usage(details: dict) -> Usage:  # type: ignore[type-arg]
    return usage({"type": "GENERATION", "usageDetails": details}, {})


def test_the_openai_integrations_spellings() -> None:
    assert _usage({"input": 200, "input_cached_tokens": 3000, "output": 50, "output_reasoning_tokens": 20,
                   "total": 3250}) == Usage(input_tokens=3200, output_tokens=50, cached_input_tokens=3000,
                                            reasoning_tokens=20)  # total without the 20: output kept


def test_exclusive_buckets_add_the_reasoning_to_the_output() -> None:
    """total = the sum of every bucket: the 310 reasoning tokens are not in output's 96."""
    assert _usage({"input": 2140, "input_cached_tokens": 1024, "output": 96, "output_reasoning_tokens": 310,
                   "total": 3570}) == Usage(input_tokens=3164, output_tokens=406, cached_input_tokens=1024,
                                            reasoning_tokens=310)
    assert _usage({"input": 10, "output": 96, "output_reasoning": 30}).output_tokens == 96  # no total: as reported
