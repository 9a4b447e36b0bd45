"""Flat attribute-map container: the JSON object *is* the attributes of one span
(``{"gen_ai.operation.name": "chat", "gen_ai.input.messages": [...]}``), as semconv test fixtures
write them. The span has no ids, times or resource; :func:`~.span.trace_id_for` names it by a
hash of its attributes. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator

from ctxviewer.importers.common.peek import JsonPeek
from ctxviewer.importers.common.spans.span import Span, SpanRecord, has_genai_key


def is_attribute_map(obj: Any) -> bool:
    """True for an object with at least one dotted key (``gen_ai.system``, ``llm.model_name``)."""
    return isinstance(obj, Mapping) and any(isinstance(k, str) and "." in k for k in obj)


def sniff(doc: JsonPeek) -> float:
    """0.9 for an object whose top-level keys include ``gen_ai.*`` ones (seen in the head); 0.3 for
    dotted keys in a head cut off before one (the registry reads further); else 0."""
    if doc.kind != "object":
        return 0.0
    keys = doc.keys()
    if has_genai_key(keys):
        return 0.9
    return 0.3 if not doc.complete and any("." in k for k in keys) else 0.0


def spans(obj: Mapping[str, Any], file: str, prefix: str = "") -> Iterator[SpanRecord]:
    """The one span of an attribute map (record ``"attributes"``)."""
    yield Span(None, None, None, None, None, None, dict(obj), {}, f"{prefix}attributes".strip())
