"""Routed model names resolve to the model they name (ctxviewer.tokens.model_names): a Bedrock
cross-region profile or ARN, and an OpenRouter name through LiteLLM, were counted with OpenAI's
tokenizer as if exact and had no context window (new user 2026-12-07, F12)."""

from __future__ import annotations

import pytest

from ctxviewer.model.trace import Usage
from ctxviewer.tokens.catalogue import lookup
from ctxviewer.tokens.cost import call_cost
from ctxviewer.tokens.model_names import lookup_names
from ctxviewer.tokens.profiles import resolve

ARN = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20241022-v2:0"


def test_lookup_names_most_specific_first() -> None:
    assert lookup_names("us.anthropic.claude-3-5-sonnet-20241022-v2:0") == [
        "us.anthropic.claude-3-5-sonnet-20241022-v2:0", "anthropic.claude-3-5-sonnet-20241022-v2:0",
        "claude-3-5-sonnet-20241022"]
    assert lookup_names(ARN)[1:] == lookup_names("us.anthropic.claude-3-5-sonnet-20241022-v2:0")
    assert lookup_names("openrouter/anthropic/claude-3.5-sonnet") == [
        "openrouter/anthropic/claude-3.5-sonnet", "anthropic/claude-3.5-sonnet", "claude-3.5-sonnet"]
    assert lookup_names("openai/gpt-4o") == ["openai/gpt-4o", "gpt-4o"]
    assert lookup_names("anthropic.claude-v2:1") == ["anthropic.claude-v2:1", "claude-v2:1"]  # Claude 2.1 kept
    for whole in ("models/gemini-1.5-pro", "ft:gpt-4o-mini-2024-07-18:acme::abc123", "gpt-4o", ""):
        assert lookup_names(whole) == ([whole] if whole else [])


@pytest.mark.parametrize("model", ["us.anthropic.claude-3-5-sonnet-20241022-v2:0", ARN,
                                   "eu.anthropic.claude-3-5-sonnet-20241022-v2:0", "openrouter/anthropic/claude-3.5-sonnet"])
def test_a_routed_claude_is_claude(model: str) -> None:
    res = resolve(model)
    assert (res.profile.name, res.encoding, res.assumed) == ("claude", "cl100k_base", False)
    found = lookup(None, model)
    assert found is not None and (found.capacity, found.source.split(", ")[1]) == (200_000, "claude-3-5-sonnet")
    cost = call_cost(None, model, None, Usage(input_tokens=1000, output_tokens=100))
    assert str(cost.total) == "0.0045"  # $3 / $15 per million: 0.003 + 0.0015


@pytest.mark.parametrize("model", ["claude-instant-1.2", "anthropic.claude-instant-v1"])
def test_claude_instant_has_its_100k_window(model: str) -> None:
    """New user 2026-12-07 (F12): Claude Instant took the 200,000 of the claude profile (genai-prices
    lists no window for it)."""
    assert resolve(model).profile.name == "claude-100k"
    found = lookup(None, model)
    assert found is not None and (found.capacity, found.source) == (100_000, "endpoint profile claude-100k")
