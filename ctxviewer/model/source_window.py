"""A context window the trace's source recorded from its own model catalogue.

Some exporters write, beside the call, what *their* model catalogue says of the model: LiteLLM's
``StandardLoggingPayload.model_map_information.model_map_value`` holds ``max_input_tokens``
(128,000 for ``gpt-4o``) -- the limits LiteLLM applied to the deployment, including a custom
one (``azure/my-deployment``) that no public catalogue knows. That is not the request's own limit
(the trace records no capacity): it is an assumption, as good as ctxviewer's catalogue and more
specific. The importer stores it as :data:`SOURCE_WINDOW_ATTRIBUTE`; eq. 3.1
(:func:`ctxviewer.assess.budget.catalogue_capacity`) takes it as the assumed C before its own
model catalogue and names it as the source. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SOURCE_WINDOW_ATTRIBUTE = "ctxviewer.source_context_window"
"""Trace attribute: ``{"tokens": int, "source": str}`` -- the context window in tokens and, in
words, whose catalogue said so (``"LiteLLM model map recorded in the trace: gpt-4o"``)."""


def source_window(tokens: Any, source: str) -> dict[str, Any] | None:
    """The :data:`SOURCE_WINDOW_ATTRIBUTE` value for a recorded window of ``tokens`` (an int above
    zero; anything else -- a bool, a float, a string, zero -- gives ``None``: nothing recorded)."""
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens <= 0:
        return None
    return {"tokens": tokens, "source": source}


def recorded_source_window(attributes: Mapping[str, Any]) -> tuple[int, str] | None:
    """``(tokens, source)`` of the window in ``attributes`` (:data:`SOURCE_WINDOW_ATTRIBUTE`), or
    ``None`` when there is none or it is malformed (a hand-edited record: never raises)."""
    value = attributes.get(SOURCE_WINDOW_ATTRIBUTE)
    if not isinstance(value, Mapping):
        return None
    tokens, source = value.get("tokens"), value.get("source")
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens <= 0 or not isinstance(source, str):
        return None
    return tokens, source
