"""A required item trimmed: the policy or the current user request was omitted (section 3.3: the
builder may trim optional items only; when the required items do not fit, reject the request).

``required.trimmed`` (failure), one finding per omitted required item. A policy item omitted
because the required version was unavailable is ``policy.unavailable``'s (Table 3.1 row 1), so
policy items are skipped when ``policy.available`` is False.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import Kind, RequestTrace


class RequiredItemCheck:
    """Required items trimmed (see the module docstring)."""

    id = "required"
    title = "required item trimmed"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``required.trimmed`` findings."""
        for item in trace.omitted:
            if not item.kind.required:
                continue
            if item.kind is Kind.POLICY and trace.policy.available is False:
                continue
            yield rule_finding(
                "required.trimmed", Severity.FAILURE,
                f"required {item.kind.value} item {item.id} was trimmed "
                f"({item.omission_reason or 'reason not recorded'})",
                Evidence(item_ids=(item.id,), fields=("items.status",)))


CHECK = RequiredItemCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
