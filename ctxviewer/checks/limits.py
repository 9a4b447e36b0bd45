"""Token accounting by the endpoint profile (issue 7): a capacity that is really the model's max
output, and a counted total that does not match what the provider reported.

Rule ids:

* ``budget.capacity_is_max_output`` (failure) -- C equals the model's known max output rather than
  its context window (:attr:`ctxviewer.budget.CapacityCheck.capacity_problem`), so eq. 3.1 was
  checked against the wrong limit.
* ``accounting.residual_over_tolerance`` (warning) -- ctxviewer's count by the endpoint's rule
  (content + framing + tool overhead, :func:`ctxviewer.accounting.breakdown.breakdown`) differs from
  the provider-reported input by more than the profile's tolerance.
"""

from __future__ import annotations

from typing import Iterable

from .. import budget
from ..accounting.breakdown import breakdown
from ..findings import Evidence, Finding, Severity
from ..model import RequestTrace
from . import register


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
        if trace.usage.input_tokens is not None:
            warning = breakdown(trace).warning
            if warning:
                yield Finding(rule="accounting.residual_over_tolerance", severity=Severity.WARNING,
                              message=warning, evidence=Evidence(fields=("usage.input_tokens",)))


register(LimitsCheck())
