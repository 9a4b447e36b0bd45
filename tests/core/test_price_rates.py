"""Our arithmetic from genai-prices' rates (ctxviewer.tokens.price_rates) gives the very amounts
``genai_prices.calc_price`` gives: for every model of every provider in the bundled data, at each
date its prices change and at two times of day, for usages with cache reads, cache writes,
reasoning, inputs past the 200k tier, and refused ones (more cache reads than input, negative)."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from decimal import Decimal

import genai_prices
import pytest
from genai_prices import data_snapshot
from genai_prices.types import StartDateConstraint
from genai_prices.units import _get_registry

from ctxviewer.tokens import price_rates
from ctxviewer.tokens.price_rates import INPUT_KEYS, OUTPUT_KEYS, TOKENS_PER_RATE, price

USAGES: list[dict[str, int]] = [
    {"input_tokens": 1000, "output_tokens": 200},
    {"input_tokens": 1000, "output_tokens": 200, "cache_read_tokens": 400},
    {"input_tokens": 1000, "output_tokens": 200, "cache_read_tokens": 400, "cache_write_tokens": 100},
    {"input_tokens": 1000, "output_tokens": 200, "output_reasoning_tokens": 150},
    {"input_tokens": 250_000, "output_tokens": 3_000, "cache_read_tokens": 50_000, "cache_write_tokens": 7},
    {"input_tokens": 0, "output_tokens": 0},
    {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 20},  # refused: reads exceed input
    {"input_tokens": 10, "output_tokens": 5, "output_reasoning_tokens": 9},
    {"input_tokens": -1, "output_tokens": 5},  # refused: negative
]


def _library(provider_id: str, model: str, when: datetime, counts: dict[str, int]) -> object:
    try:
        c = genai_prices.calc_price(genai_prices.Usage(**counts), model, provider_id=provider_id,
                                    genai_request_timestamp=when)
    except (LookupError, ValueError) as exc:
        return f"refused ({type(exc).__name__})"  # call_cost catches both alike: "no price"
    return (c.total_price, c.input_price, c.output_price, c.model.id, c.provider.id)


def _ours(provider_id: str, model: str, when: datetime, counts: dict[str, int]) -> object:
    try:
        return price(provider_id, model, when, counts)
    except (LookupError, ValueError) as exc:
        return f"refused ({type(exc).__name__})"


def _times(model: object) -> list[datetime]:
    """Now-ish, each start date of the model's prices and the day before, at 03:00 UTC, and at
    15:00 too for a model with a time-of-day price (off-peak rates)."""
    days = {datetime(2026, 11, 2).date()}
    hours = [time(3)]
    for conditional in model.prices if isinstance(model.prices, list) else []:  # type: ignore[attr-defined]
        if isinstance(conditional.constraint, StartDateConstraint):
            days |= {conditional.constraint.start_date, conditional.constraint.start_date - timedelta(days=1)}
        elif conditional.constraint is not None:
            hours = [time(3), time(15)]
    return [datetime.combine(d, t, tzinfo=timezone.utc) for d in sorted(days) for t in hours]


def test_every_bundled_price_gives_the_library_amounts() -> None:
    fast = compared = 0
    for provider in data_snapshot.get_snapshot().providers:
        for model in provider.models:
            for when in _times(model):
                for counts in USAGES:
                    mine, lib = _ours(provider.id, model.id, when, counts), _library(provider.id, model.id, when, counts)
                    if isinstance(lib, str):  # which of the two it raises first does not matter to call_cost
                        assert isinstance(mine, str), (provider.id, model.id, when, counts, mine, lib)
                        continue
                    assert mine == lib, (provider.id, model.id, when, counts)
                    if isinstance(lib, tuple):  # the same Decimals, digit for digit
                        assert [str(x) for x in mine] == [str(x) for x in lib]  # type: ignore[union-attr]
                    compared += 1
            fast += price_rates._rates(model.get_prices(datetime(2026, 11, 2, tzinfo=timezone.utc))) is not None
    assert compared > 10_000
    assert fast > 1_500  # most prices are done here, not handed back to calc_price


def test_the_rates_done_here_are_the_registrys_token_units() -> None:
    registry = _get_registry()
    for key, field in {**INPUT_KEYS, **OUTPUT_KEYS}.items():
        unit = registry.unit_for_price_key(key)
        assert (unit.usage_key, unit.per) == (field, TOKENS_PER_RATE)
        assert unit.dimensions["direction"] == ("input" if key in INPUT_KEYS else "output")


def test_a_price_with_a_request_fee_goes_to_the_library() -> None:
    """A model whose price has ``requests_kcount`` is priced by ``calc_price`` itself (the fee is
    charged once per call, whatever the usage)."""
    found = [(p.id, m) for p in data_snapshot.get_snapshot().providers for m in p.models
             if not isinstance(m.prices, list) and m.prices.requests_kcount is not None]
    assert found
    provider_id, model = found[0]
    assert price_rates._rates(model.prices) is None
    counts = {"input_tokens": 0, "output_tokens": 0}
    assert _ours(provider_id, model.id, datetime(2026, 11, 2, tzinfo=timezone.utc), counts) == \
        _library(provider_id, model.id, datetime(2026, 11, 2, tzinfo=timezone.utc), counts)
    total = _ours(provider_id, model.id, datetime(2026, 11, 2, tzinfo=timezone.utc), counts)
    assert isinstance(total, tuple) and total[0] > Decimal(0)


@pytest.mark.parametrize("model", ["gpt-4o-mini", "no-such-model-7"])
def test_an_unknown_model_raises_as_the_library_does(model: str) -> None:
    when = datetime(2026, 11, 2, tzinfo=timezone.utc)
    assert _ours("openai", model, when, USAGES[0]) == _library("openai", model, when, USAGES[0])
