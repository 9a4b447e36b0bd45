"""Token accounting consistency: the numbers of a trace that cannot all be right.

Rule ids (not Table 3.1 rows; words in ``resources/check_rules.json``):

* ``accounting.no_room_for_input`` (failure) -- C - B_out - safety margin leaves no room, or less
  than the required items (policy and user request) need.
* ``accounting.count_mismatch`` (warning) -- the application's counted input and the provider's
  reported input differ by more than the tolerance: the declared safety margin (chapter 3.3: it
  absorbs count variation), else :data:`DEFAULT_TOLERANCE` of the reported count (at least
  :data:`MIN_TOLERANCE` tokens). (ctxviewer's own recount against the report, with the endpoint
  profile's tolerance, is :func:`ctxviewer.assess.breakdown.breakdown`, shown by
  ``ctxviewer whatif`` and the what-if panel; see :mod:`ctxviewer.assess.checks.limits`.)
* ``accounting.reasoning_exceeds_output`` (warning) -- reasoning tokens > output tokens, which
  cannot be: output includes reasoning (OTel ``gen_ai.usage.reasoning.output_tokens``).

A reserve >= C and a reported input + B_out over C are eq. 3.1 overflows: ``budget.over_capacity``
(:mod:`ctxviewer.assess.checks.capacity`) reports them, which judges the reported input too, and
``no_room_for_input`` defers to it, so one overflow is one finding.
"""

from __future__ import annotations

import math
from typing import Iterable

from ctxviewer.assess import budget
from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import LimitMode, RequestTrace

DEFAULT_TOLERANCE = 0.05
"""Share of the reported input the counts may differ by when no safety margin is declared."""
MIN_TOLERANCE = 50
"""Smallest tolerance in tokens (short requests carry a fixed chat-template overhead)."""


def tolerance(trace: RequestTrace) -> int | None:
    """Allowed |counted - reported| in tokens; ``None`` when the reported input is unknown."""
    if trace.usage.input_tokens is None:
        return None
    if trace.safety_margin is not None:
        return trace.safety_margin
    return max(MIN_TOLERANCE, math.ceil(DEFAULT_TOLERANCE * trace.usage.input_tokens))


class AccountingCheck:
    """Token accounting consistency (see the module docstring)."""

    id = "accounting"
    title = "token accounting consistency"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``accounting.*`` findings for ``trace``."""
        c, out = trace.endpoint.capacity, trace.reserved_output_tokens
        shared = trace.endpoint.limit_mode is not LimitMode.SEPARATE
        margin = trace.safety_margin or 0
        cap_fields = ("endpoint.capacity", "reserved_output_tokens")
        over = budget.capacity(trace).fits is False  # budget.over_capacity says it already
        if shared and c is not None and out is not None and not over:
            room = c - out - margin
            required = sum(i.tokens or 0 for i in trace.items if i.kind.required and i.content is not None)
            if room <= 0 or room < required:
                yield rule_finding(
                    "accounting.no_room_for_input", Severity.FAILURE,
                    f"capacity {c:,} - reserved output {out:,} - safety margin {margin:,} leaves {room:,} "
                    f"tokens for input; the required items need {required:,}",
                    Evidence(fields=(*cap_fields, "safety_margin")))
        counted, reported = trace.input_tokens, trace.usage.input_tokens
        tol = tolerance(trace)
        if counted is not None and reported is not None and tol is not None and abs(counted - reported) > tol:
            yield rule_finding(
                "accounting.count_mismatch", Severity.WARNING,
                f"counted input {counted:,} and reported input {reported:,} tokens differ by "
                f"{abs(counted - reported):,}, more than the tolerance of {tol:,}",
                Evidence(fields=("input_tokens", "usage.input_tokens")))
        r, o = trace.usage.reasoning_tokens, trace.usage.output_tokens
        if r is not None and o is not None and r > o:
            yield rule_finding(
                "accounting.reasoning_exceeds_output", Severity.WARNING,
                f"reasoning tokens {r:,} exceed output tokens {o:,} (output includes reasoning)",
                Evidence(fields=("usage.reasoning_tokens", "usage.output_tokens")))


CHECK = AccountingCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
