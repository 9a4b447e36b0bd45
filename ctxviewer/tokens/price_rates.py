"""One call's price from genai-prices' rates, looked up once per model price, for
:func:`ctxviewer.tokens.cost.call_cost`.

``genai_prices.calc_price`` finds the model, picks the price in force at the send time and then
walks its unit registry for every call (about 0.07 ms a call: most of an import's pricing). The
rates of a model price do not change between calls, so here the model is found once per
``(provider id, model name)`` (:func:`_model`) and the price in force is picked per call as the
library picks it (``ModelInfo.get_prices``: start dates and times of day), and the arithmetic is
done here from that price's rates -- for the prices made only of the five token rates the usage
fills (``input_mtok``, ``output_mtok``, ``cache_read_mtok``, ``cache_write_mtok``,
``output_reasoning_mtok``, flat or tiered) plus tool-call rates the usage never fills. Any other
price (per-request fees, audio, images, cache-write TTLs) goes to ``calc_price`` itself.

The arithmetic is the library's, unit by unit: a rate charges its own tokens less those of the
more specific rates the price also has (uncached input = input - cache reads - cache writes,
where the price has those rates; otherwise they are charged at the input rate); each unit costs
``calc_unit_price(rate, tokens, input tokens, 1,000,000)`` (a tier by the total input tokens),
summed in the price's own key order from ``Decimal(0)``, so the amounts are the same
:class:`~decimal.Decimal` values ``calc_price`` returns (tests/core/test_price_rates.py compares
them for every model price of the bundled data). No Qt here.
"""

from __future__ import annotations

import functools
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Mapping

TOKENS_PER_RATE = 1_000_000
"""Tokens one ``*_mtok`` rate is quoted for (genai-prices' unit registry: ``per``)."""

INPUT_KEYS = {"input_mtok": "input_tokens", "cache_read_mtok": "cache_read_tokens",
              "cache_write_mtok": "cache_write_tokens"}
"""The input-side rates done here and the usage field each charges."""
OUTPUT_KEYS = {"output_mtok": "output_tokens", "output_reasoning_mtok": "output_reasoning_tokens"}
"""The output-side rates done here and the usage field each charges."""
UNUSED_KEYS = {"web_searches_kcount": "web_searches", "storage_searches_kcount": "storage_searches",
               "code_executions_kcount": "code_executions", "social_searches_kcount": "social_searches",
               "rerank_searches_kcount": "rerank_searches"}
"""Rates (per 1,000) of usage :func:`~ctxviewer.tokens.cost.call_cost` never reports (tool calls):
each adds a zero, as in the library."""
PER_UNUSED = 1000
"""Calls one ``*_kcount`` rate is quoted for."""
_MORE_SPECIFIC = {"input_mtok": ("cache_read_mtok", "cache_write_mtok"), "output_mtok": ("output_reasoning_mtok",)}
_SPECIAL_MODELS = {("groq", "whisper-large-v3"), ("groq", "whisper-large-v3-turbo")}
"""Models ``calc_price`` bills by a rule of its own (minimum audio seconds): always priced there."""

Rates = tuple[tuple[str, str, Any, str | None], ...]
"""A price's units done here: ``(rate key, usage field, rate, direction)`` in the price's key order
(direction ``"input"``, ``"output"`` or ``None`` for a tool-call rate)."""


def price(provider_id: str | None, model: str, sent: datetime | None,
          counts: Mapping[str, int]) -> tuple[Decimal, Decimal, Decimal, str, str]:
    """``(total, input, output, model id, provider id)`` in US dollars of ``counts`` (genai-prices
    ``Usage`` fields: ``input_tokens``, ``output_tokens``, ``cache_read_tokens``,
    ``cache_write_tokens``, ``output_reasoning_tokens``; tokens) for ``model`` at ``provider_id``
    sent at ``sent`` (aware; ``None``: now), the amounts ``genai_prices.calc_price`` gives. Raises
    what it raises: ``LookupError`` for a model or provider it does not know, ``ValueError`` for
    usage it refuses (a negative count, more cache reads than input tokens)."""
    from ctxviewer.tokens.price_library import load

    genai_prices = load()  # without its price-update client
    from genai_prices.types import calc_unit_price

    found = _model(provider_id, model.lower())
    if isinstance(found, LookupError):
        raise found
    provider, info = found
    when = sent or datetime.now(tz=timezone.utc)
    rates = _rates(info.get_prices(when)) if (provider.id, info.id) not in _SPECIAL_MODELS else None
    if rates is None or any(v < 0 for v in counts.values()):
        calc = genai_prices.calc_price(genai_prices.Usage(**counts), model, provider_id=provider_id,
                                       genai_request_timestamp=sent)
        return calc.total_price, calc.input_price, calc.output_price, calc.model.id, calc.provider.id
    priced = {key for key, _field, _rate, _way in rates}
    tokens = {field: counts.get(field, 0) for _key, field, _rate, _way in rates}
    for key, more_specific in _MORE_SPECIFIC.items():
        field = INPUT_KEYS.get(key) or OUTPUT_KEYS[key]
        if key in priced:
            tokens[field] -= sum(tokens[INPUT_KEYS.get(k) or OUTPUT_KEYS[k]] for k in more_specific if k in priced)
            if tokens[field] < 0:
                raise ValueError(f"{field} is less than its parts")
    tiered = any(not isinstance(rate, Decimal) for _key, _field, rate, _way in rates)
    total_input = counts.get("input_tokens", 0) if tiered else 0
    total = inp = out = Decimal(0)
    for _key, field, rate, direction in rates:
        cost = calc_unit_price(rate, tokens[field], total_input, TOKENS_PER_RATE if direction else PER_UNUSED)
        total += cost
        if direction == "input":
            inp += cost
        elif direction == "output":
            out += cost
    return total, inp, out, info.id, provider.id


@functools.lru_cache(maxsize=1024)
def _model(provider_id: str | None, name: str) -> tuple[Any, Any] | LookupError:
    """genai-prices' ``(Provider, ModelInfo)`` for ``name`` (lower case) at ``provider_id``, or the
    ``LookupError`` its lookup raised (remembered too: an unknown model is looked up once)."""
    from ctxviewer.tokens.price_library import load

    load()  # without its price-update client
    from genai_prices import data_snapshot

    try:
        return data_snapshot.get_snapshot().find_provider_model(name, None, provider_id, None)
    except LookupError as exc:
        return exc


_RATES: dict[int, tuple[object, Rates | None]] = {}


def _rates(model_price: object) -> Rates | None:
    """The units of ``model_price`` (a genai-prices ``ModelPrice``) done here, in its key order;
    ``None`` when it has a rate this module leaves to ``calc_price``. Remembered per price object
    (the bundled data's prices live as long as the process)."""
    kept = _RATES.get(id(model_price))
    if kept is not None and kept[0] is model_price:
        return kept[1]
    from genai_prices.types import TieredPrices

    units: list[tuple[str, str, Any, str | None]] = []
    ok = True
    for key, rate in vars(model_price).items():
        if key.startswith("_") or rate is None:
            continue
        field = INPUT_KEYS.get(key) or OUTPUT_KEYS.get(key) or UNUSED_KEYS.get(key)
        if field is None or not isinstance(rate, (Decimal, TieredPrices)):
            ok = False
            break
        units.append((key, field, rate, "input" if key in INPUT_KEYS else "output" if key in OUTPUT_KEYS else None))
    rates = tuple(units) if ok else None
    _RATES[id(model_price)] = (model_price, rates)
    return rates
