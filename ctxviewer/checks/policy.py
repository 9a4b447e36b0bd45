"""Table 3.1 row 1, "correct policy omitted": the required policy version was unavailable.

A request built without its pinned policy version should be rejected, whatever its token count
(chapter 3.3: "if the required policy version is unavailable, reject the request").
"""

from __future__ import annotations

from typing import Iterable

from ..findings import Evidence, Finding, Severity
from ..model import RequestTrace
from ..table31 import row
from . import register


class PolicyCheck:
    """Finds ``policy.unavailable``: ``trace.policy.available`` is False (Table 3.1 row 1)."""

    id = "policy"
    title = "correct policy omitted (Table 3.1 row 1)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """One ``failure`` finding when the required policy version could not be loaded."""
        if trace.policy.available is False:
            table = row(1)
            version = trace.policy.version or "not recorded"
            yield Finding(
                rule="policy.unavailable",
                severity=Severity.FAILURE,
                message=(
                    f"required policy version {version} unavailable: the request should be rejected"
                ),
                evidence=Evidence(fields=("policy.available", "policy.version")),
                table_row=1,
                first_evidence=table.first_evidence,
                repair=table.repair,
            )


register(PolicyCheck())
