"""A call's cost from its recorded usage (ctxviewer.tokens.cost), on the header, the list row,
the ``cost`` filter and sort: genai-prices' own figures, cache and reasoning tokens at their own
rates, and "not known" (never $0) for a price the library does not have."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from decimal import Decimal
from importlib import metadata
from pathlib import Path

import genai_prices
import pytest
from factories import make_rich_trace, make_trace

from ctxviewer.assess.trace_header import header_rows
from ctxviewer.model.trace import Endpoint, Usage
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.columns import cost_cell
from ctxviewer.store import TraceQuery, TraceStore
from ctxviewer.tokens.cost import call_cost, data_date, fmt_cost, source

LIB = f"genai-prices {metadata.version('genai-prices')}"
"""The price library as the messages name it: the installed release (its range is pyproject's)."""

SENT = datetime(2026, 11, 2, 9, 14, 5, tzinfo=timezone.utc)


def test_cached_tokens_at_the_cache_read_rate() -> None:
    """gpt-4o-mini at OpenAI: $0.15 / M input, $0.075 / M cached input, $0.60 / M output. 1,000
    input of which 400 cached, 200 output: 600 x 0.15 + 400 x 0.075 + 200 x 0.60 = 240 micro-dollars."""
    c = call_cost("openai", "gpt-4o-mini-2024-07-18", SENT, Usage(1000, 200, cached_input_tokens=400))
    assert (c.total, c.input, c.output) == (Decimal("0.00024"), Decimal("0.00012"), Decimal("0.00012"))
    assert (c.model, c.provider, c.reason) == ("gpt-4o-mini", "openai", None)


def test_cache_writes_and_reasoning_equal_the_library() -> None:
    """Claude Sonnet 4.5: $3 / M input, $0.30 / M cache read, $3.75 / M cache write, $15 / M output:
    500 x 3 + 400 x 0.3 + 100 x 3.75 = 1,995 and 200 x 15 = 3,000 micro-dollars."""
    c = call_cost("anthropic", "claude-sonnet-4-5", SENT, Usage(1000, 200, 400, 100))
    assert (c.input, c.output, c.total) == (Decimal("0.001995"), Decimal("0.003"), Decimal("0.004995"))
    reasoning = call_cost("openai", "o3-mini", SENT, Usage(1000, 200, reasoning_tokens=150))
    lib = genai_prices.calc_price(genai_prices.Usage(input_tokens=1000, output_tokens=200, output_reasoning_tokens=150),
                                  "o3-mini", provider_id="openai", genai_request_timestamp=SENT)
    assert reasoning.total == lib.total_price == Decimal("0.00198")


@pytest.mark.parametrize(("provider", "model", "usage", "reason"), [
    ("openai", "gpt-4o-mini", Usage(), "usage not recorded"),
    ("openai", "gpt-4o-mini", Usage(output_tokens=200), "input tokens not recorded"),
    ("openai", None, Usage(1000, 200), "model not recorded"),
    ("openai", "support-bot-7", Usage(1000, 200), f"{LIB} has no price for support-bot-7 for provider openai"),
])
def test_a_price_not_known_is_never_zero(provider: str, model: str | None, usage: Usage, reason: str) -> None:
    c = call_cost(provider, model, SENT, usage)
    assert (c.total, c.known, c.reason) == (None, False, reason)
    t = replace(make_trace(), endpoint=Endpoint(provider=provider, model=model), usage=usage)
    assert dict(header_rows(t))["Cost"] == f"not known: {reason}"
    assert fmt_cost(None) == "not known"


def test_header_names_the_prices_and_their_date() -> None:
    assert data_date() is not None and data_date() <= datetime.now(timezone.utc).date()
    assert source() == f"{LIB} (bundled data, prices dated up to {data_date().isoformat()})"
    # make_rich_trace: gpt-4o-mini at openai, input 412 (128 cached), output 96 (32 reasoning)
    assert dict(header_rows(make_rich_trace()))["Cost"] == (
        f"$0.000110 · gpt-4o-mini, {LIB} (prices to {data_date().isoformat()})")
    assert call_cost("openai", "gpt-4o-mini", make_rich_trace().created, make_rich_trace().usage).total == \
        Decimal("0.0001098")  # 284 x 0.15 + 128 x 0.075 + 96 x 0.6 = 109.8 micro-dollars


def test_cost_is_stored_filtered_and_sorted(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    cheap = replace(make_trace(), trace_id="cheap", usage=Usage(1000, 200, cached_input_tokens=400))
    dear = replace(make_trace(), trace_id="dear", endpoint=Endpoint(provider="anthropic", model="claude-sonnet-4-5"),
                   usage=Usage(1000, 200, 400, 100))
    unknown = replace(make_trace(), trace_id="unknown", usage=Usage())
    with TraceStore.create(db) as store:
        store.add(with_facts([cheap, dear, unknown]))
    with TraceStore.open(db) as store:
        rows = {r.trace_id: r for r in store.list()}
        assert rows["cheap"].cost == pytest.approx(0.00024, rel=1e-12)
        assert rows["dear"].cost == pytest.approx(0.004995, rel=1e-12)
        assert rows["unknown"].cost is None
        assert [cost_cell(rows[k]) for k in ("cheap", "dear", "unknown")] == ["$0.000240", "$0.004995", "not known"]
        assert (rows["cheap"].output_tokens, rows["unknown"].output_tokens) == (200, None)
        assert [r.trace_id for r in store.list(TraceQuery(text="cost > 0.001"))] == ["dear"]
        assert [r.trace_id for r in store.list(TraceQuery(text="cost"))] == ["cheap", "dear"]
        assert [r.trace_id for r in store.list(TraceQuery(text="not cost"))] == ["unknown"]
        assert [r.trace_id for r in store.list(TraceQuery(sort="cost", descending=True))] == ["dear", "cheap", "unknown"]


def test_the_package_name_is_the_catalogues() -> None:
    from ctxviewer.tokens import catalogue, cost

    assert cost.PACKAGE == catalogue.PACKAGE == "genai-prices"
    assert cost.package_version() == catalogue.package_version()
