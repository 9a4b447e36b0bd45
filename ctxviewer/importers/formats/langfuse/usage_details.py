"""A Langfuse generation's usage: the OTel GenAI attributes when it holds them, else Langfuse's
``usageDetails`` (cache reads and writes kept out of ``input``, and reasoning out of ``output``
where ``total`` is the sum of the buckets), under each key spelling Langfuse writes
(:data:`READ_KEYS`, :data:`REASONING_KEYS`), see the package docstring; else the deprecated
``usage {input, output, total}``; else the flattened ``inputUsage`` / ``outputUsage`` /
``totalUsage`` (:data:`FLAT_KEYS`). The more detailed object is read; another present that
disagrees with it is said once (:func:`usage_problems`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.model.trace import Usage

FLAT_KEYS = {"inputUsage": "input", "outputUsage": "output", "totalUsage": "total"}
"""The public API's flattened usage (``Observation.inputUsage`` ...) and the bucket each stands
for. Langfuse derives them from ``usageDetails`` (``observations_converters.ts``
``reduceUsageOrCostDetails``: ``input`` = the sum of every key starting ``input``, cache reads
included; ``output`` likewise, reasoning included) and writes 0 when no key matched
(``promptTokens: reduced.input ?? 0``), so a flattened 0 is read as not recorded."""


def _flat(obs: Mapping[str, Any]) -> dict[str, Any]:
    """The flattened counts of ``obs`` as ``{input, output, total}``, zeros left out (not recorded)."""
    return {bucket: obs[key] for key, bucket in FLAT_KEYS.items() if obs.get(key) not in (None, 0)}


def _sources(obs: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(key, value)`` of every Langfuse usage object ``obs`` holds, the more detailed first:
    ``usageDetails``, ``usage``, the flattened counts (``"inputUsage/outputUsage"``)."""
    out: list[tuple[str, Any]] = [(k, obs[k]) for k in ("usageDetails", "usage") if obs.get(k)]
    flat = _flat(obs)
    return out + ([("inputUsage/outputUsage", flat)] if flat else [])


def _details(obs: Mapping[str, Any], attrs: Mapping[str, Any]) -> tuple[str, Any] | None:
    """``(key, value)`` of the Langfuse usage object a generation's usage is read from
    (``usageDetails``, else ``usage``, else the flattened counts), or ``None`` when its OTel GenAI
    attributes hold it."""
    if "gen_ai.usage.input_tokens" in attrs or "gen_ai.usage.output_tokens" in attrs:
        return None
    found = _sources(obs)
    return found[0] if found else ("usage", obs.get("usage"))


def failed_placeholder(obs: Mapping[str, Any], u: Any) -> bool:
    """Whether the usage object ``u`` of generation ``obs`` is Langfuse's placeholder for a failed
    call, not a provider's report: the observation is ``level: ERROR`` and every count in ``u`` is
    0 (``{input: 0, output: 0, total: 0, unit: "TOKENS"}``, with ``usageDetails`` empty). Langfuse
    writes those zeros when the call failed and the provider reported no usage (a 400
    ``context_length_exceeded`` is rejected before any token is billed, and no usage comes back);
    read as counts they would say "the provider reported 0 input tokens", which it never did. Only
    this pairing is read as not recorded: a 0 on a call that did not fail, or an ERROR call with
    any non-zero count, is a report and is kept as it is."""
    if obs.get("level") != "ERROR" or not isinstance(u, Mapping):
        return False
    counts = [v for v in u.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return bool(counts) and all(v == 0 for v in counts)


def usage(obs: Mapping[str, Any], attrs: Mapping[str, Any]) -> Usage:
    """Usage of one generation (see module docstring); not recorded (an empty :class:`Usage`) for
    Langfuse's all-zero placeholder on a failed call (:func:`failed_placeholder`)."""
    details = _details(obs, attrs)
    if details is None:
        return pm.usage_at(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
                           "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens",
                           "gen_ai.usage.reasoning.output_tokens")
    u = details[1] or {}
    if not isinstance(u, Mapping) or not u or failed_placeholder(obs, u):
        return Usage()
    if details[0] == "inputUsage/outputUsage":  # Langfuse's sums: cache reads in input, reasoning in output
        return Usage(input_tokens=pm.int_or_none(u.get("input")), output_tokens=pm.int_or_none(u.get("output")))
    read = pm.int_or_none(_first(u, READ_KEYS))
    create = pm.int_or_none(u.get("input_cache_creation", u.get("cache_creation_input_tokens")))
    raw_in = pm.int_or_none(u.get("input"))
    reasoning = pm.int_or_none(_first(u, REASONING_KEYS))
    out = pm.int_or_none(u.get("output"))
    if out is not None and reasoning and _exclusive(u):  # Langfuse's buckets: output without its reasoning
        out += reasoning
    return Usage(input_tokens=None if raw_in is None else raw_in + (read or 0) + (create or 0),
                 output_tokens=out, cached_input_tokens=read, cache_creation_input_tokens=create,
                 reasoning_tokens=reasoning)


READ_KEYS = ("input_cache_read", "prompt_details.cache_read", "cache_read_input_tokens", "input_cached_tokens")
"""The cache-read bucket under each spelling: Langfuse's own, its OpenAI integration's
(``input_cached_tokens``, from ``prompt_tokens_details.cached_tokens``), Anthropic's."""
REASONING_KEYS = ("output_reasoning", "completion_details.reasoning", "output_reasoning_tokens")
"""The reasoning bucket under each spelling (``output_reasoning_tokens``: the OpenAI integration's)."""


def _first(u: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((u[k] for k in keys if u.get(k) is not None), None)


def _exclusive(u: Mapping[str, Any]) -> bool:
    """Whether ``u``'s ``total`` is the sum of every other count: Langfuse's buckets are then
    exclusive (``{input: 2140, input_cached_tokens: 1024, output: 96, output_reasoning_tokens: 310,
    total: 3570}``: the 310 reasoning tokens are not in the 96), so the output that OTel GenAI
    counts (reasoning included) is output + reasoning. Without a total the output is kept as reported."""
    total = pm.int_or_none(u.get("total"))
    counts = [v for k, v in u.items() if k != "total" and isinstance(v, (int, float)) and not isinstance(v, bool)]
    return total is not None and bool(counts) and total == sum(counts)


def _sums(u: Mapping[str, Any], bucket: str) -> set[int]:
    """The ways Langfuse has summed ``bucket`` (``input`` / ``output``) of usage object ``u``: the
    keys starting with it (``reduceUsageOrCostDetails``), and (later releases) the keys holding
    it (``cache_read_input_tokens``); and ``u[bucket]`` itself."""
    counts = {k: pm.int_or_none(v) for k, v in u.items() if k != "total" and not isinstance(v, Mapping)}
    out = {n for n in (pm.int_or_none(u.get(bucket)),) if n is not None}
    for keep in (lambda k: k.startswith(bucket), lambda k: bucket in k):
        picked = [n for k, n in counts.items() if keep(k) and n is not None]
        if picked:
            out.add(sum(picked))
    return out


def _disagreement(obs: Mapping[str, Any], read: tuple[str, Any], u: Usage) -> str | None:
    """One line naming every other usage object of ``obs`` whose input or output is none of the
    read object's (``read``, giving ``u``) sums, or ``None``: ``"usage: inputUsage/outputUsage
    (input 170, output 12) disagree with usageDetails (input 160, output 12); usageDetails is
    read (the more detailed)"``."""
    main = read[1] if isinstance(read[1], Mapping) else {}
    said = []
    for key, other in _sources(obs)[1:]:
        if key == read[0] or not isinstance(other, Mapping):
            continue
        off = []
        for bucket, mine in (("input", u.input_tokens), ("output", u.output_tokens)):
            theirs = pm.int_or_none(other.get(bucket))
            if theirs is not None and theirs not in _sums(main, bucket) | {mine}:
                off.append(bucket)
        if off:
            said.append(f"{key} (" + ", ".join(f"{b} {other.get(b)}" for b in ("input", "output")
                                               if other.get(b) is not None) + ")")
    if not said:
        return None
    read_counts = ", ".join(f"{b} {n}" for b, n in (("input", u.input_tokens), ("output", u.output_tokens))
                            if n is not None)
    return (f"usage: {' and '.join(said)} disagree with {read[0]} ({read_counts or 'no count'}); "
            f"{read[0]} is read (the more detailed)")


def usage_problems(obs: Mapping[str, Any], attrs: Mapping[str, Any]) -> list[str]:
    """The values of the usage object :func:`usage` reads that are no token count
    (:func:`ctxviewer.importers.common.provider_messages.bad_counts`, every key a count), then one
    line when a less detailed usage object of the observation disagrees with it
    (:func:`_disagreement`)."""
    details = _details(obs, attrs)
    if details is None:
        return []
    out = ([f"{k}: {obs[k]!r} is not a token count; shown as not recorded" for k in FLAT_KEYS
            if obs.get(k) is not None and pm.int_or_none(obs[k]) is None] if details[0] == "inputUsage/outputUsage"
           else pm.bad_counts(details[1], details[0], every_key=True))
    said = _disagreement(obs, details, usage(obs, attrs)) if isinstance(details[1], Mapping) else None
    return out + ([said] if said else [])
