"""The native trace record: the JSON form of a :class:`~ctxviewer.model.trace.RequestTrace` on one line of
the ``ctxviewer.trace/1`` JSON Lines format (``docs/native-format.md``), and the store's JSON columns.

The same conversion as every other JSON output (:mod:`ctxviewer.model.codec`: cattrs, enums as values,
``created`` ISO 8601 UTC with ``Z``), written compact -- keys whose value is ``None`` (not
recorded) or an empty list/object are left out, except ``items`` -- and in the format's key order.
``trace_to_dict`` and ``trace_from_dict`` are exact inverses for every trace the model can hold
(times to the millisecond). Errors: :class:`TraceFormatError` naming the JSON path of the field
(``items[3].status: 'kept' is not one of retained, omitted``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cattrs import Converter
from cattrs.gen import make_dict_unstructure_fn

from ctxviewer.model.codec import (
    TraceFormatError,
    format_created,
    from_builtins,
    make_converter,
    parse_created,
    to_builtins,
)
from ctxviewer.model.trace import ContextItem, RequestTrace, SourceRef, ToolCall

__all__ = [
    "TraceFormatError",
    "format_created",
    "from_builtins",
    "item_from_dict",
    "item_to_dict",
    "parse_created",
    "source_to_dict",
    "to_builtins",
    "trace_from_dict",
    "trace_to_dict",
]

WIRE_ORDER: dict[type, tuple[str, ...]] = {
    RequestTrace: ("trace_id", "created", "service", "session_id", "user_id", "replay_of", "endpoint", "policy",
                   "user_request", "budget", "reserved_output_tokens", "input_tokens", "safety_margin", "usage",
                   "request", "response", "tool_calls", "validations", "guardrails", "source_format", "omissions_recorded",
                   "attributes", "items"),
    ContextItem: ("kind", "id", "status", "position", "priority", "trust", "tokens", "tokens_provenance",
                  "omission_reason", "role", "source", "content"),
    ToolCall: ("name", "arguments", "id", "verdict", "decided_by", "checks"),
}
"""Key order of the native format where it differs from field order (committed files compare as text)."""

KEEP_EMPTY: dict[type, frozenset[str]] = {RequestTrace: frozenset({"items"})}
"""Keys written even when empty."""
SKIP_DEFAULT: dict[type, dict[str, Any]] = {RequestTrace: {"omissions_recorded": True}}
"""Keys left out when they hold this value, the field's default (``omissions_recorded`` is written
only when False: a native record of an application's own trace stays as it was)."""


def _wire_hook(conv: Converter, cls: type) -> Callable[[Any], dict[str, Any]]:
    full: Callable[[Any], dict[str, Any]] = make_dict_unstructure_fn(cls, conv)
    order = WIRE_ORDER.get(cls)
    keep = KEEP_EMPTY.get(cls, frozenset())
    skip = SKIP_DEFAULT.get(cls, {})

    def unstructure(obj: Any) -> dict[str, Any]:
        d = full(obj)
        keys = order if order is not None else tuple(d)
        return {k: d[k] for k in keys if k in keep or (d[k] not in (None, [], {}) and not (k in skip and d[k] == skip[k]))}

    return unstructure


WIRE = make_converter(_wire_hook)
"""The native record's converter: :data:`ctxviewer.model.codec.CONVERTER` with compact, format-ordered objects."""


def trace_to_dict(t: RequestTrace) -> dict[str, Any]:
    """JSON form of a request trace (one line of the native JSON Lines format)."""
    out: dict[str, Any] = WIRE.unstructure(t, RequestTrace)
    return out


def item_to_dict(it: ContextItem) -> dict[str, Any]:
    """JSON form of one context item (as inside ``items`` of :func:`trace_to_dict`)."""
    out: dict[str, Any] = WIRE.unstructure(it, ContextItem)
    return out


def source_to_dict(source: SourceRef) -> dict[str, Any]:
    """JSON form of an item's source, as inside :func:`item_to_dict` (``{}`` when nothing is recorded)."""
    out: dict[str, Any] = WIRE.unstructure(source, SourceRef)
    return out


def trace_from_dict(d: Any) -> RequestTrace:
    """Parse the JSON form back into a :class:`RequestTrace`.

    Required: ``trace_id`` (non-empty string); ``items`` may be missing (no items). Everything else
    may be missing and is then ``None`` (not recorded). Raises :class:`TraceFormatError`.
    """
    return from_builtins(RequestTrace, d)


def item_from_dict(d: Any, path: str) -> ContextItem:
    """Parse one item. Raises :class:`TraceFormatError` with the path below ``path``."""
    try:
        return from_builtins(ContextItem, d)
    except TraceFormatError as exc:
        raise TraceFormatError(f"{path}.{exc.path}" if exc.path else path, exc.message) from None
