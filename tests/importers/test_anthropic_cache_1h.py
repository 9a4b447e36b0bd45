"""Anthropic's one-hour cache writes (``usage.cache_creation.ephemeral_1h_input_tokens``) are billed
above the five-minute rate, which genai-prices does not tell apart: the cost line says the figure
is low (new user nu2 #9: $0.013364 where Anthropic bills $0.020850, with no caveat)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.assess.trace_header import header_rows
from ctxviewer.importers import detect
from ctxviewer.model.trace import RequestTrace

FILE = Path(__file__).resolve().parents[1] / "data" / "anthropic" / "cache-1h.extracted.json"


def test_the_cost_line_says_one_hour_writes_are_priced_low() -> None:
    (trace,) = [r for r in detect(FILE).load(FILE) if isinstance(r, RequestTrace)]
    assert trace.attributes["anthropic.usage.cache_creation.ephemeral_1h_input_tokens"] == 3327
    assert trace.usage.cache_creation_input_tokens == 3327
    assert dict(header_rows(trace))["Cost"].endswith(
        "; its 3,327 one-hour cache-write tokens are priced at the five-minute write rate "
        "(genai-prices has one cache-write rate): the cost is low")
