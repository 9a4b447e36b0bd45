"""Content truncated by the exporter: the stored text is not what was sent.

``content.truncated`` (warning), one finding per trace, lists the items (and the response) whose
text the exporter truncated (:func:`ctxviewer.assess.truncated.truncation`: a text ending in an
exporter's truncation marker such as ``...[truncated]``, ``[truncated 2048 chars]``,
``<truncated>``, with a span over each marker; the items a content attribute cut mid-JSON became),
and the attributes an exporter set to say it truncated (a key ending in ``.truncated`` with value
``True``). Token counts made from truncated text are too low (eq. 3.1 then takes the
provider-reported input where there is one); the diagnosis of such items is partial.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.assess.plausibility import reported_input
from ctxviewer.assess.truncated import truncation
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace


class TruncationCheck:
    """Content truncated by the exporter (see the module docstring)."""

    id = "content"
    title = "content truncated by the exporter"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """At most one ``content.truncated`` finding."""
        cut = truncation(trace)
        if not cut:
            return
        named = ", ".join([*cut.item_ids, *cut.fields])
        reported = reported_input(trace)
        tail = (f"; eq. 3.1 takes the provider-reported input ({reported:,} tokens)"
                if reported is not None and trace.input_tokens is None and cut.item_ids else "")
        yield rule_finding(
            "content.truncated", Severity.WARNING,
            f"the exporter truncated {named}: stored text (and its token count) is shorter than what was sent{tail}",
            Evidence(item_ids=cut.item_ids, spans=cut.spans, fields=cut.fields))


CHECK = TruncationCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
