"""An OTel span whose input excludes the cache (Anthropic's convention written as
gen_ai.usage.input_tokens) is read as the semconv's inclusive input, said (new user 2026-12-07,
F18: "input 50 · cached 3,000", cost "not known ... no price")."""

from __future__ import annotations

from ctxviewer.importers.formats.otel.mapping import usage_from
from ctxviewer.model.trace import Usage
from ctxviewer.tokens.cost import call_cost


def test_a_cache_read_above_the_input_is_anthropics_convention() -> None:
    problems: list[str] = []
    usage = usage_from({"gen_ai.provider.name": "anthropic", "gen_ai.usage.input_tokens": 50, "gen_ai.usage.output_tokens": 7,
                        "gen_ai.usage.cache_read.input_tokens": 3000,
                        "gen_ai.usage.cache_creation.input_tokens": 200}, problems)
    assert usage == Usage(input_tokens=3250, output_tokens=7, cached_input_tokens=3000, cache_creation_input_tokens=200)
    assert problems == ["gen_ai.usage.input_tokens (50) is below the cache read (3,000): read as Anthropic's convention "
                        "(input without the cache); input taken as 3,250, the semconv's inclusive count"]
    assert str(call_cost("anthropic", "claude-3-5-sonnet-20241022", None, usage).total) == "0.001905"


def test_an_inclusive_input_is_kept_as_reported() -> None:
    problems: list[str] = []
    usage = usage_from({"gen_ai.usage.input_tokens": 3250, "gen_ai.usage.cache_read.input_tokens": 3000}, problems)
    assert (usage.input_tokens, usage.cached_input_tokens, problems) == (3250, 3000, [])


def test_another_providers_contradiction_is_kept_and_said() -> None:
    """Review rev4 F-6: an OpenAI span with cache read 120,000 above input 100,000 became 220,000 (an
    over-capacity failure by the reported input); only Anthropic writes the exclusive convention."""
    problems: list[str] = []
    usage = usage_from({"gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
                        "gen_ai.usage.input_tokens": 100_000, "gen_ai.usage.cache_read.input_tokens": 120_000}, problems)
    assert (usage.input_tokens, usage.cached_input_tokens) == (100_000, 120_000)
    assert problems == ["gen_ai.usage.input_tokens (100,000) is below the cache read (120,000), which it should "
                        "include; both kept as reported"]
    bedrock = usage_from({"gen_ai.provider.name": "aws.bedrock", "gen_ai.request.model": "anthropic.claude-3-5-sonnet",
                          "gen_ai.usage.input_tokens": 50, "gen_ai.usage.cache_read.input_tokens": 3000}, [])
    assert bedrock.input_tokens == 3050
