"""The cost of one model call from its recorded usage, priced by genai-prices.

:func:`call_cost` prices the provider-reported usage of a call (OTel ``gen_ai.usage.*`` as
:class:`ctxviewer.model.trace.Usage` normalises it: ``input_tokens`` includes the cache reads and
writes, ``output_tokens`` includes the reasoning tokens) with the prices of `genai-prices
<https://github.com/pydantic/genai-prices>`_' bundled data (offline: nothing is fetched), at the
price in force when the call was sent (``genai_request_timestamp``). Cache reads
(``cache_read_tokens``), cache writes (``cache_write_tokens``) and reasoning tokens
(``output_reasoning_tokens``) go to the library at their own rates; where a model has no separate
rate for one of them the library charges it at the plain input or output rate, its rule.

A price the library does not know is "not known", never 0: :attr:`Cost.total` is ``None`` and
:attr:`Cost.reason` says why (usage not recorded, a model genai-prices does not list). Amounts are
US dollars as :class:`~decimal.Decimal` (the library's own arithmetic, unrounded).

genai-prices is imported on the first price (its data is about 0.2 s to load). No Qt here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any, Protocol

PACKAGE = "genai-prices"
"""The price library's distribution name (:data:`ctxviewer.tokens.catalogue.PACKAGE`); the catalogue
itself -- importlib.metadata and the token profiles, about 20 ms -- is imported on the first price
asked for, not by a command that only formats costs (``list``)."""


def package_version() -> str | None:
    """:func:`ctxviewer.tokens.catalogue.package_version` (imported on first use)."""
    from ctxviewer.tokens.catalogue import package_version as version

    return version()

NOT_KNOWN = "not known"
"""What a surface says for a cost the price library cannot give (never ``$0``)."""

MOST_TOKENS = 100_000_000
"""Most input or output tokens one call can report: ten times the largest context window offered
(10,000,000, Llama 4 Scout). A reported count above it is an exporter's or a hand's error, not
usage: it is not priced (a 10**15-token input read "$2,510,000,000.00" beside a recorded $0.00237)
and :func:`ctxviewer.assess.plausibility.implausible` names it."""


class UsageLike(Protocol):
    """The recorded usage fields priced (:class:`ctxviewer.model.trace.Usage`), tokens; ``None`` = not recorded."""

    @property
    def input_tokens(self) -> int | None: ...
    @property
    def output_tokens(self) -> int | None: ...
    @property
    def cached_input_tokens(self) -> int | None: ...
    @property
    def cache_creation_input_tokens(self) -> int | None: ...
    @property
    def reasoning_tokens(self) -> int | None: ...


@dataclass(frozen=True)
class Cost:
    """The price of one call, US dollars; every amount ``None`` when not known."""

    total: Decimal | None
    """Input plus output, or ``None`` ("not known": :attr:`reason` says why)."""
    input: Decimal | None = None
    """The input side: uncached input, cache reads and cache writes, each at its rate."""
    output: Decimal | None = None
    """The output side, reasoning tokens included."""
    model: str | None = None
    """genai-prices' id of the model priced (``gpt-4o-mini`` for ``gpt-4o-mini-2024-07-18``)."""
    provider: str | None = None
    """genai-prices' id of the provider whose prices were used (``openai``)."""
    reason: str | None = None
    """Why the cost is not known (``"usage not recorded"``); ``None`` when it is."""

    @property
    def known(self) -> bool:
        """True when :attr:`total` is a price."""
        return self.total is not None


def source() -> str:
    """Where prices come from, with the data date: ``"genai-prices 0.2.3 (bundled data, prices
    dated up to 2026-10-14)"``; ``"genai-prices not installed"`` when it is missing."""
    version = package_version()
    if version is None:
        return f"{PACKAGE} not installed"
    newest = data_date()
    dated = f", prices dated up to {newest.isoformat()}" if newest else ""
    return f"{PACKAGE} {version} (bundled data{dated})"


def short_source() -> str:
    """:func:`source` in few words: ``"genai-prices 0.2.3 (prices to 2026-12-01)"``."""
    version = package_version()
    if version is None:
        return f"{PACKAGE} not installed"
    newest = data_date()
    return f"{PACKAGE} {version}" + (f" (prices to {newest.isoformat()})" if newest else "")


@functools.lru_cache(maxsize=1)
def data_date() -> date | None:
    """The data date of the bundled prices: the newest start date of a dated price in the data
    that is not after today (a scheduled change is not counted), or ``None`` when the data holds no
    dated price or genai-prices is not installed. The package records no date of its own for its
    data, so this is the last price change it knows. Kept per day in :mod:`ctxviewer.tokens.price_memo`."""
    from ctxviewer.tokens import price_memo

    today = datetime.now(timezone.utc).date()
    found = price_memo.answer(f"date\x1f{today.isoformat()}", lambda: _data_date(today))
    return None if found is None else date.fromisoformat(found)


def _data_date(today: date) -> str | None:
    from ctxviewer.tokens.price_library import load

    try:
        load()  # without its price-update client
        from genai_prices import data_snapshot
        from genai_prices.types import StartDateConstraint
    except ImportError:
        return None
    newest: date | None = None
    for provider in data_snapshot.get_snapshot().providers:
        for model in provider.models:
            prices = model.prices if isinstance(model.prices, list) else []
            for conditional in prices:
                constraint = getattr(conditional, "constraint", None)
                if isinstance(constraint, StartDateConstraint) and constraint.start_date <= today:
                    if newest is None or constraint.start_date > newest:
                        newest = constraint.start_date
    return None if newest is None else newest.isoformat()


def call_cost(provider: str | None, model: str | None, sent: datetime | None, usage: UsageLike) -> Cost:
    """The cost of a call to ``model`` served by ``provider`` (a ``gen_ai.provider.name`` value, or
    ``None``: genai-prices picks the provider by the model name) sent at ``sent`` (aware UTC; ``None``:
    today's prices), from ``usage`` (tokens). Not known -- :attr:`Cost.total` ``None`` -- when
    the model is not recorded, input or output tokens are not recorded or above
    :data:`MOST_TOKENS`, or genai-prices does not
    know the model or provider. Never raises for a name or a count."""
    if not model:
        return Cost(None, reason="model not recorded")
    if usage.input_tokens is None and usage.output_tokens is None:
        return Cost(None, reason="usage not recorded")
    if usage.input_tokens is None:
        return Cost(None, reason="input tokens not recorded")
    if usage.output_tokens is None:
        return Cost(None, reason="output tokens not recorded")
    for what, n in (("input", usage.input_tokens), ("output", usage.output_tokens)):
        if n > MOST_TOKENS:
            return Cost(None, reason=f"{what} tokens implausible ({n:,} reported, more than any call can use)")
    counts = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cached_input_tokens,
        "cache_write_tokens": usage.cache_creation_input_tokens,
        "output_reasoning_tokens": usage.reasoning_tokens,
    }
    from ctxviewer.tokens.catalogue import PROVIDER_IDS

    return _price(PROVIDER_IDS.get((provider or "").lower()), model, sent,
                  tuple((k, v) for k, v in counts.items() if v is not None))


def _price(provider_id: str | None, model: str, sent: datetime | None, counts: tuple[tuple[str, int], ...]) -> Cost:
    """The :class:`Cost` of ``counts`` as genai-prices prices them (:func:`ctxviewer.tokens.price_rates.price`:
    its rates looked up once per model price, the same amounts as ``calc_price``), kept in
    :mod:`ctxviewer.tokens.price_memo` (amounts as decimal strings: the same ``Decimal`` back)."""
    from ctxviewer.tokens import price_memo

    when = sent.isoformat() if sent is not None else "today " + datetime.now(timezone.utc).date().isoformat()
    key = "\x1f".join(("cost", provider_id or "", model, when,
                       ",".join(f"{k}={v}" for k, v in counts)))
    kept = price_memo.answer(key, lambda: _cost_json(_price_now(provider_id, model, sent, counts)))
    total, inp, out = (None if v is None else Decimal(v) for v in kept[:3])
    return Cost(total, inp, out, *kept[3:])


def _cost_json(cost: Cost) -> list[Any]:
    """``cost`` as a JSON list: ``[total, input, output, model, provider, reason]``, amounts as strings."""
    return [None if v is None else str(v) for v in (cost.total, cost.input, cost.output)] + [
        cost.model, cost.provider, cost.reason]


def _price_now(provider_id: str | None, model: str, sent: datetime | None, counts: tuple[tuple[str, int], ...]) -> Cost:
    from ctxviewer.tokens.price_library import load

    try:
        load()  # installed? (imported without its price-update client)
    except ImportError:
        return Cost(None, reason=f"{PACKAGE} not installed")
    from ctxviewer.tokens.model_names import lookup_names
    from ctxviewer.tokens.price_rates import price

    names = lookup_names(model)  # "openai/gpt-4o" (LiteLLM, OpenRouter), "us.anthropic.claude-..." (Bedrock)
    when = sent if sent is None or sent.tzinfo is not None else sent.replace(tzinfo=timezone.utc)
    for name in names:
        try:
            total, inp, out, model_id, provider = price(provider_id, name, when, dict(counts))
        except (LookupError, ValueError, ArithmeticError, TypeError):
            continue
        return Cost(total, inp, out, model_id, provider)
    where = f" for provider {provider_id}" if provider_id else ""
    return Cost(None, reason=f"{PACKAGE} {package_version()} has no price for {model}{where}")


def fmt_cost(total: Decimal | float | None) -> str:
    """A cost in words: ``"$0.000240"`` (six decimals below a dollar: calls cost fractions of a
    cent), ``"$12.35"`` from a dollar up; ``None`` -> ``"not known"`` (never ``"$0"``)."""
    if total is None:
        return NOT_KNOWN
    value = Decimal(str(total)) if isinstance(total, float) else total
    if abs(value) >= 1:
        return f"${value:,.2f}"
    return f"${value:.6f}"
