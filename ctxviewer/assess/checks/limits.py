"""Token accounting by the endpoint profile: a capacity that is really the model's max
output. (The residual between ctxviewer's count and the provider's is shown by the breakdown,
:func:`ctxviewer.assess.breakdown.breakdown`, in ``whatif`` and the what-if panel; it is not a
finding because recorded item counts of other encodings make it noisy.)

Rule ids:

* ``budget.capacity_is_max_output`` (failure) -- C equals the model's known max output rather than
  its context window (:attr:`ctxviewer.assess.budget.CapacityCheck.capacity_problem`), so eq. 3.1 was
  checked against the wrong limit.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess import budget
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace


class LimitsCheck:
    """See the module docstring."""

    id = "limits"
    title = "capacity and counted input against the endpoint profile"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The findings for ``trace`` (none when nothing is wrong or nothing is known)."""
        chk = budget.capacity(trace)
        if chk.capacity_problem and "max output" in chk.capacity_problem:
            yield Finding(rule="budget.capacity_is_max_output", severity=Severity.FAILURE,
                          message=chk.capacity_problem, evidence=Evidence(fields=("endpoint.capacity",)))



CHECK = LimitsCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
