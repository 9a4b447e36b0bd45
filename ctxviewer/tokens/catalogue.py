"""The model catalogue: a model's context window C and output limit when the trace did not record them.

Most exported traces (OpenTelemetry GenAI spans, Langfuse, LangSmith, Inspect logs) record the model
name but not its context window, so eq. 3.1 could not be checked for them. :func:`lookup` finds the
window by provider and model name (aliases and dated snapshots included) in a kept data package,
`genai-prices <https://github.com/pydantic/genai-prices>`_ (its bundled data, offline: nothing is
fetched), and, for what it does not carry -- the output limit, separate vs shared limits, models it
does not list -- in ctxviewer's endpoint profiles (``ctxviewer/resources/endpoint_profiles.json`` and
the user's profiles file, :mod:`ctxviewer.tokens.profiles`). What it finds is an *assumption*, said as
such wherever it is shown (:attr:`ModelLimits.source`); the trace's own recorded values always win.

genai-prices is imported on the first lookup (its data is about 0.2 s to load), never at start-up.
No Qt here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ctxviewer.tokens import price_memo
from ctxviewer.tokens.profiles import ProfileError, resolve

PACKAGE = "genai-prices"
"""The data package whose bundled model data gives context windows."""

PROVIDER_IDS = {
    "openai": "openai", "azure.ai.openai": "azure", "azure": "azure", "anthropic": "anthropic",
    "aws.bedrock": "aws", "aws": "aws", "bedrock": "aws", "gcp.gemini": "google", "gcp.vertex_ai": "google",
    "gcp.gen_ai": "google", "google": "google", "vertex_ai": "google", "gemini": "google", "mistral_ai": "mistral",
    "mistral": "mistral", "groq": "groq", "deepseek": "deepseek", "x_ai": "x-ai", "xai": "x-ai",
    "perplexity": "perplexity", "cohere": "cohere", "openrouter": "openrouter", "together": "together",
    "fireworks": "fireworks",
}
"""OpenTelemetry ``gen_ai.provider.name`` values (and common older spellings) -> genai-prices provider ids."""


@dataclass(frozen=True)
class ModelLimits:
    """What the catalogue knows of one model; token quantities in tokens, ``None`` = not known."""

    model: str
    """The catalogue's id of the model matched (``gpt-4o-mini`` for ``gpt-4o-mini-2024-07-18``)."""
    capacity: int | None
    """The context window C."""
    max_output: int | None
    """The output limit (largest ``max_tokens``)."""
    limit_mode: str
    """``"shared"`` (input + output <= C) or ``"separate"`` (input and output limits)."""
    source: str
    """Where C came from, for the words ``assumed (model catalogue: SOURCE)``: e.g.
    ``"genai-prices 0.2.3, gpt-4o-mini"`` or ``"endpoint profile claude"``."""


def package_version() -> str | None:
    """The installed genai-prices version, or ``None`` when it is not installed (kept in
    :mod:`ctxviewer.tokens.price_memo`: ``importlib.metadata`` alone costs about 20 ms)."""
    version = price_memo.answer("version", _installed_version)
    return None if version is None else str(version)


def _installed_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=512)
def lookup(provider: str | None, model: str | None) -> ModelLimits | None:
    """The limits of ``model`` (as a request names it) served by ``provider`` (a
    ``gen_ai.provider.name`` value or ``None``), or ``None`` when neither genai-prices nor a
    profile knows a context window for it. Never raises for a name; a bad user profiles file is
    left to the counting that reads it (it raises :class:`~ctxviewer.tokens.profiles.ProfileError`)."""
    if not model:
        return None
    try:
        res = resolve(model)
    except ProfileError:
        res = None
    profile = None if res is None or res.assumed else res.profile
    found = _genai_prices(provider, model)
    if found is not None:
        model_id, window = found
        return ModelLimits(model_id, window, profile.max_output if profile else None,
                           profile.limit_mode if profile else "shared", f"{PACKAGE} {package_version()}, {model_id}")
    if profile is not None and profile.capacity:
        return ModelLimits(profile.name, profile.capacity, profile.max_output, profile.limit_mode,
                           f"endpoint profile {profile.name}")
    return None


def _genai_prices(provider: str | None, model: str) -> tuple[str, int] | None:
    """``(model id, context window)`` from genai-prices' bundled data, or ``None`` (kept in
    :mod:`ctxviewer.tokens.price_memo`)."""
    found = price_memo.answer(f"window\x1f{provider or ''}\x1f{model}", lambda: _window(provider, model))
    return None if found is None else (str(found[0]), int(found[1]))


def _window(provider: str | None, model: str) -> list[Any] | None:
    from ctxviewer.tokens.price_library import load

    try:
        load()  # without its price-update client
        from genai_prices import data_snapshot
    except ImportError:  # not installed: the profiles still answer
        return None
    snapshot = data_snapshot.get_snapshot()
    provider_id = PROVIDER_IDS.get((provider or "").lower()) if provider else None
    from ctxviewer.tokens.model_names import lookup_names

    for name in lookup_names(model):  # "openai/gpt-4o" (LiteLLM), "us.anthropic.claude-..." (Bedrock)
        for pid in dict.fromkeys((provider_id, None)):
            try:
                _prov, info = snapshot.find_provider_model(name, None, pid, None)
            except (LookupError, ValueError):
                continue
            if info.context_window:
                return [info.id, int(info.context_window)]
    return None
