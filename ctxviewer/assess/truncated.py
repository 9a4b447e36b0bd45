"""Where a trace's captured text is shorter than what was sent: the exporter truncated it.

Exporters cut long values: OTel SDKs at the attribute length limit (the JSON of
``gen_ai.input.messages`` then ends mid-value; the importer keeps the raw text and records the keys
in ``ctxviewer.truncated``), Langfuse and other SDKs with a marker at the end of the text
(:data:`MARKER`: ``...[truncated]``, ``[truncated 2048 chars]``, ``<truncated>``), some with an
attribute ``<key>.truncated = true``. :func:`truncation` finds all three, per item where it can:

* an item whose text ends in a marker;
* the items a cut content attribute became: ``gen_ai.input.messages`` -> the message items
  (``msg-N``), ``gen_ai.system_instructions`` -> the ``system`` item, ``gen_ai.output.messages``
  -> the response text;
* an item holding an image placeholder whose payload an exporter cut in the middle (Logfire's
  ``...``: ``[image/png blob, ..., cut by the exporter]``, :data:`ctxviewer.tokens.placeholders.CUT`);
* ``*.truncated = true`` attributes, and cut keys that made no item (``logfire.truncated`` names
  such as ``all_messages_events``), named as fields.

A count made from truncated text is too low, so eq. 3.1 takes the provider-reported input for such
a trace when it was reported (:func:`ctxviewer.assess.budget.check_capacity`). No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctxviewer.model.findings import TextSpan
from ctxviewer.model.trace import RequestTrace
from ctxviewer.tokens.placeholders import CUT
from ctxviewer.util.memo import by_identity

MARKER = re.compile(
    r"(?:\.\.\.|\u2026)?\s*(?:\[(?:truncated|TRUNCATED)(?:[^\]\n]{0,40})\]|<truncated(?:[^>\n]{0,40})>|\((?:truncated|TRUNCATED)\))\s*$"
)
"""A truncation marker at the end of a text."""

_ITEM_KEYS = ("gen_ai.input.messages", "gen_ai.system_instructions", "gen_ai.output.messages")
"""Cut keys whose items (or the response) are named instead of the key."""

CUT_KEYS = "ctxviewer.truncated"
"""The trace attribute listing the content attributes cut mid-JSON (set by the OTel importer)."""


def marker_span(text: str) -> tuple[int, int] | None:
    """``(start, end)`` of :data:`MARKER` in ``text`` (code points; trailing whitespace left out), or
    ``None``. Searched only in the last 120 characters before the trailing whitespace: searched
    over the whole text, its leading whitespace run made a 1,000,000-space tool output quadratic;
    and only when the text ends in ``]``, ``>`` or ``)``, as every marker does."""
    end = len(text.rstrip())
    if not end or text[end - 1] not in "]>)":  # every marker ends so (checked for every item at import)
        return None
    start = max(0, end - 120)
    m = MARKER.search(text[start:end])
    return None if m is None else (start + m.start(), start + m.end())


@dataclass(frozen=True)
class Truncation:
    """What of a trace was truncated: item ids in final order, marker spans, and fields."""

    item_ids: tuple[str, ...]
    spans: tuple[TextSpan, ...]
    """One span over each marker (items cut mid-JSON have none)."""
    fields: tuple[str, ...]
    """``response.text``, ``*.truncated`` attributes, and cut keys that made no item."""

    def __bool__(self) -> bool:
        return bool(self.item_ids or self.fields)


@by_identity(64)
def truncation(trace: RequestTrace) -> Truncation:
    """The :class:`Truncation` of ``trace`` (see the module docstring); memoised per trace object."""
    cut = {str(k) for k in trace.attributes.get(CUT_KEYS) or ()}
    ids: list[str] = []
    spans: list[TextSpan] = []
    for item in trace.items:
        m = marker_span(item.content or "")
        if m:
            spans.append(TextSpan(item.id, *m))
            ids.append(item.id)
        elif ("gen_ai.input.messages" in cut and item.id.startswith("msg-")) or \
                ("gen_ai.system_instructions" in cut and item.id == "system") or CUT + "]" in (item.content or ""):
            ids.append(item.id)
    fields = [str(k) for k, v in trace.attributes.items() if str(k).endswith(".truncated") and v is True]
    fields += sorted(cut - set(_ITEM_KEYS))
    response_cut = trace.response is not None and bool(trace.response.text) and marker_span(trace.response.text or "")
    if response_cut or "gen_ai.output.messages" in cut:
        fields.append("response.text")
    return Truncation(tuple(ids), tuple(spans), tuple(fields))
