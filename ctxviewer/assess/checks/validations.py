"""Failed validations: the application's own checks on the output said no.

``validation.failed`` (failure), one finding per failed :class:`~ctxviewer.model.trace.ValidationResult`,
naming the check and its detail. A validation whose name says what it is about is an instance of
a Table 3.1 row (:data:`ROW_OF`: ``policy_version`` row 1, ``cited_ids`` / ``claim_support`` /
``json_schema`` row 4, ``tool_*`` row 5) and carries that row's words.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding, table_finding
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace

ROW_OF = {
    "policy_version": 1, "policy": 1,
    "commitments": 2,
    "retrieval": 3,
    "cited_ids": 4, "claim_support": 4, "json_schema": 4, "citations": 4, "grounding": 4,
}
"""Validation name -> Table 3.1 row; names starting with ``tool`` are row 5."""


def row_of(check: str) -> int | None:
    """The Table 3.1 row a validation named ``check`` belongs to, or ``None``."""
    return 5 if check.startswith("tool") else ROW_OF.get(check)


class ValidationCheck:
    """Failed validations (see the module docstring)."""

    id = "validation"
    title = "failed validations"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """One ``validation.failed`` finding per failed validation."""
        for n, v in enumerate(trace.validations):
            if v.passed:
                continue
            message = f"validation {v.check} failed: {v.detail or 'no detail recorded'}"
            evidence = Evidence(fields=(f"validations[{n}]",))
            r = row_of(v.check)
            if r is None:
                yield rule_finding("validation.failed", Severity.FAILURE, message, evidence)
            else:
                yield table_finding("validation.failed", Severity.FAILURE, message, evidence, r)


CHECK = ValidationCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
