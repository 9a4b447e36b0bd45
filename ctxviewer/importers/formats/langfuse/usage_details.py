"""A Langfuse generation's usage: the OTel GenAI attributes when it holds them, else Langfuse's
``usageDetails`` (cache reads and writes kept out of ``input``: ``total`` is the sum), see the
package docstring. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.model.trace import Usage


def _details(obs: Mapping[str, Any], attrs: Mapping[str, Any]) -> tuple[str, Any] | None:
    """``(key, value)`` of the Langfuse usage object a generation's usage is read from
    (``usageDetails``, else ``usage``), or ``None`` when its OTel GenAI attributes hold it."""
    if "gen_ai.usage.input_tokens" in attrs or "gen_ai.usage.output_tokens" in attrs:
        return None
    return ("usageDetails", obs["usageDetails"]) if obs.get("usageDetails") else ("usage", obs.get("usage"))


def usage(obs: Mapping[str, Any], attrs: Mapping[str, Any]) -> Usage:
    """Usage of one generation (see module docstring)."""
    details = _details(obs, attrs)
    if details is None:
        return pm.usage_at(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
                           "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens",
                           "gen_ai.usage.reasoning.output_tokens")
    u = details[1] or {}
    if not isinstance(u, Mapping) or not u:
        return Usage()
    read = pm.int_or_none(u.get("input_cache_read", u.get("prompt_details.cache_read", u.get("cache_read_input_tokens"))))
    create = pm.int_or_none(u.get("input_cache_creation", u.get("cache_creation_input_tokens")))
    raw_in = pm.int_or_none(u.get("input"))
    return Usage(input_tokens=None if raw_in is None else raw_in + (read or 0) + (create or 0),
                 output_tokens=pm.int_or_none(u.get("output")), cached_input_tokens=read,
                 cache_creation_input_tokens=create,
                 reasoning_tokens=pm.int_or_none(u.get("output_reasoning", u.get("completion_details.reasoning"))))


def usage_problems(obs: Mapping[str, Any], attrs: Mapping[str, Any]) -> list[str]:
    """The values of the usage object :func:`usage` reads that are no token count
    (:func:`ctxviewer.importers.common.provider_messages.bad_counts`, every key a count)."""
    details = _details(obs, attrs)
    return [] if details is None else pm.bad_counts(details[1], details[0], every_key=True)
