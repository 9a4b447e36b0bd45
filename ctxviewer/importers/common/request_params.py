"""Request parameters (OpenAI / Anthropic / LangChain invocation parameter names) as OTel GenAI
``gen_ai.request.*`` attributes, so a parameter the source recorded is kept, not lost.

Names (OTel GenAI semantic conventions, registry ``gen_ai.request.*``): ``temperature``,
``top_p``, ``top_k``, ``frequency_penalty``, ``presence_penalty``, ``seed``, ``stop`` /
``stop_sequences`` -> ``gen_ai.request.stop_sequences``, ``n`` -> ``gen_ai.request.choice.count``,
``stream`` -> ``gen_ai.request.stream``; other scalar parameters
(``reasoning_effort``, ``service_tier``, ``parallel_tool_calls``...) as ``PREFIX.NAME``.
``max_tokens`` is the trace's ``reserved_output_tokens`` and is left to the caller. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

OTEL_NAMES = {
    "temperature": "gen_ai.request.temperature", "top_p": "gen_ai.request.top_p", "top_k": "gen_ai.request.top_k",
    "frequency_penalty": "gen_ai.request.frequency_penalty", "presence_penalty": "gen_ai.request.presence_penalty",
    "seed": "gen_ai.request.seed", "stop": "gen_ai.request.stop_sequences",
    "stop_sequences": "gen_ai.request.stop_sequences", "n": "gen_ai.request.choice.count",
    "stream": "gen_ai.request.stream",
}
"""Parameter name -> OTel GenAI request attribute."""

NOT_PARAMETERS = frozenset({"messages", "model", "model_name", "tools", "max_tokens", "max_completion_tokens",
                            "max_output_tokens", "prompts", "input", "system", "functions", "_type"})
"""Keys of an invocation-parameter mapping that are content or mapped elsewhere, never parameters."""


def request_parameters(params: Any, prefix: str) -> tuple[dict[str, Any], list[str]]:
    """The scalar parameters of ``params`` as attributes (OTel names where one exists, else
    ``prefix.NAME``) and the names it read. ``None`` values are not recorded (not kept); lists of
    scalars (stop sequences) are kept as lists; nested objects are not read here (their keys stay
    for the caller's unmapped-field account)."""
    out: dict[str, Any] = {}
    read: list[str] = []
    if not isinstance(params, Mapping):
        return out, read
    for key, value in params.items():
        if key in NOT_PARAMETERS or value is None:
            continue
        scalar = isinstance(value, (str, int, float, bool))
        if not scalar and not (isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value)):
            continue
        out[OTEL_NAMES.get(str(key), f"{prefix}.{key}")] = value
        read.append(str(key))
    return out, read
