"""Content truncated by the exporter: the stored text is not what was sent.

``content.truncated`` (warning), one finding per trace, lists the items (and the response) whose
text ends in an exporter's truncation marker (:data:`MARKER`, e.g. ``...[truncated]``,
``[truncated 2048 chars]``, ``<truncated>``), with a span over each marker, and the attributes an
exporter set to say it truncated (a key ending in ``.truncated`` with value ``True``). Token counts
made from truncated text are too low; the diagnosis of such items is partial.
"""

from __future__ import annotations

import re
from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.model.findings import Evidence, Finding, Severity, TextSpan
from ctxviewer.model.trace import RequestTrace

MARKER = re.compile(
    r"(?:\.\.\.|\u2026)?\s*(?:\[(?:truncated|TRUNCATED)(?:[^\]\n]{0,40})\]|<truncated(?:[^>\n]{0,40})>|\((?:truncated|TRUNCATED)\))\s*$"
)
"""A truncation marker at the end of a text."""


def _marker(text: str) -> tuple[int, int] | None:
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


class TruncationCheck:
    """Content truncated by the exporter (see the module docstring)."""

    id = "content"
    title = "content truncated by the exporter"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """At most one ``content.truncated`` finding."""
        spans: list[TextSpan] = []
        for item in trace.items:
            m = _marker(item.content or "")
            if m:
                spans.append(TextSpan(item.id, *m))
        fields = [k for k, v in trace.attributes.items() if str(k).endswith(".truncated") and v is True]
        if trace.response and trace.response.text and _marker(trace.response.text):
            fields.append("response.text")
        if not spans and not fields:
            return
        ids = tuple(s.item_id for s in spans)
        named = ", ".join([*ids, *fields])
        yield rule_finding(
            "content.truncated", Severity.WARNING,
            f"the exporter truncated {named}: stored text (and its token count) is shorter than what was sent",
            Evidence(item_ids=ids, spans=tuple(spans), fields=tuple(fields)))


CHECK = TruncationCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
