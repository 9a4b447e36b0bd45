"""Implausible recorded values: ``input.implausible`` (warning), one finding per trace.

Lists every value :func:`ctxviewer.assess.plausibility.implausible` names (a context window of 0, a token
count the content cannot hold, 0 tokens on text), with those fields as evidence, so a trace whose
numbers cannot be true shows as suspect rather than as a clean verdict. The import warns with the
same words.
"""

from __future__ import annotations

import re
from typing import Iterable

from ctxviewer.assess.plausibility import implausible
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace

_ITEM = re.compile(r"items\[(\d+)\]")


class PlausibleCheck:
    """See the module docstring."""

    id = "input"
    title = "recorded values that cannot be true"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """At most one ``input.implausible`` finding."""
        found = implausible(trace)
        if not found:
            return
        ids = []
        for field, _ in found:
            m = _ITEM.match(field)
            if m:
                ids.append(trace.items[int(m.group(1))].id)
        message = "implausible recorded values: " + "; ".join(msg.replace("; kept, shown as suspect", "")
                                                             for _, msg in found)
        yield Finding(rule="input.implausible", severity=Severity.WARNING, message=message,
                      evidence=Evidence(item_ids=tuple(ids), fields=tuple(f for f, _ in found)))


CHECK = PlausibleCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
