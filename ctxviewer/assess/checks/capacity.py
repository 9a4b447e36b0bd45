"""The eq. 3.1 capacity check as findings: over capacity, over a separate limit, below the declared
safety margin, not checkable, and "over before trimming".

    B_sys + B_hist + B_evidence + B_tools + B_user + B_out <= C          (eq. 3.1)

Rule ids (all start with ``budget.``):

* ``budget.over_capacity`` (failure) -- shared limit: input + B_out > C.
* ``budget.input_over_limit`` / ``budget.output_over_limit`` (failure) -- separate limits:
  input > max_input, or B_out > max_output.
* ``budget.below_safety_margin`` (warning) -- it fits, but with less slack than the trace's
  declared safety margin (chapter 3.3: the margin absorbs chat-template overhead and count drift).
* ``budget.not_checked`` (info) -- eq. 3.1 cannot be decided: C (recorded or from the model
  catalogue, :func:`ctxviewer.assess.budget.catalogue_capacity`), a separate limit or the input was
  not recorded. Neutral: an exporter that never captures a quantity is nothing the user can fix in
  the trace (a capacity for an unknown model can be given in the user's endpoint profiles).
* ``budget.over_before_trim`` (info) -- the candidates exceeded C before trimming; trimming made
  the request fit (the omitted items are the evidence).
* ``budget.output_exhausted`` (warning) -- the response stopped at its output limit (finish reason
  ``length``, ``max_tokens``, ``MAX_TOKENS``, ``max_output_tokens``: :data:`ctxviewer.assess.checks.output_limit.OUTPUT_LIMIT_REASONS`):
  the answer is cut off, the reserved output B_out was too small for it (or the context window's
  room after the input was). Not for a call whose span ended in error.

The numbers come from :func:`ctxviewer.assess.budget.capacity` (one eq. 3.1 computation per trace, shared
with the assessment). No Qt here.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess import budget
from ctxviewer.assess.checks.output_limit import output_exhausted
from ctxviewer.assess.verdict import verdict_text
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import LimitMode, RequestTrace, Status

_LIMIT_FIELDS = ("endpoint.capacity", "input_tokens", "reserved_output_tokens")


UNKNOWN_WINDOW = "the context-window catalogue (genai-prices' context windows, the endpoint profiles)"
"""Which catalogue knows no C for the model: the context windows, not the prices (genai-prices may
price a model it gives no window for, as ``babbage-002``)."""


def _n(v: int | None) -> str:
    return "not recorded" if v is None else f"{v:,}"


def capacity_findings(trace: RequestTrace, chk: budget.CapacityCheck) -> list[Finding]:
    """The findings of the eq. 3.1 result ``chk`` for ``trace`` (see the module docstring)."""
    out: list[Finding] = []
    if chk.fits is None:
        model = trace.endpoint.model
        unknown = (f"; {UNKNOWN_WINDOW} has no window for {model!r}" if chk.capacity is None and model
                   else "; the model was not recorded" if chk.capacity is None else "")
        out.append(Finding(  # a quantity the exporter did not capture: neutral, said as "not recorded"
            rule="budget.not_checked", severity=Severity.INFO,
            message=f"eq. 3.1 cannot be checked: {verdict_text(chk)}{unknown}",
            evidence=Evidence(fields=_LIMIT_FIELDS),
        ))
    elif chk.limit_mode is LimitMode.SEPARATE:
        if chk.input_fits is False:
            out.append(Finding(
                rule="budget.input_over_limit", severity=Severity.FAILURE,
                message=(f"input {_n(chk.input_tokens)} tokens exceeds the input limit "
                         f"{_n(chk.max_input)} by {_n((chk.input_tokens or 0) - (chk.max_input or 0))} tokens"),
                evidence=Evidence(fields=("endpoint.max_input_tokens", "input_tokens")),
            ))
        if chk.output_fits is False:
            out.append(Finding(
                rule="budget.output_over_limit", severity=Severity.FAILURE,
                message=(f"reserved output {_n(chk.reserved_output)} tokens exceeds the output limit "
                         f"{_n(chk.max_output)} by {_n((chk.reserved_output or 0) - (chk.max_output or 0))} tokens"),
                evidence=Evidence(fields=("endpoint.max_output_tokens", "reserved_output_tokens")),
            ))
    elif chk.fits is False:
        out.append(Finding(
            rule="budget.over_capacity", severity=Severity.FAILURE,
            message=f"{verdict_text(chk)} (eq. 3.1)",
            evidence=Evidence(fields=(*_LIMIT_FIELDS, *(("usage.input_tokens",) if chk.reported_input else ()))),
        ))
    if (chk.fits and chk.margin is not None and chk.declared_margin is not None
            and chk.margin < chk.declared_margin):
        out.append(Finding(
            rule="budget.below_safety_margin", severity=Severity.WARNING,
            message=(f"only {_n(chk.margin)} tokens of slack, below the declared safety margin of "
                     f"{_n(chk.declared_margin)} tokens"),
            evidence=Evidence(fields=("safety_margin", *_LIMIT_FIELDS)),
        ))
    over = chk.over_before_trim if chk.limit_mode is not LimitMode.SEPARATE else None
    if over is not None and over > 0 and chk.trimmed:
        omitted = tuple(i.id for i in trace.items if i.status is Status.OMITTED)
        out.append(Finding(
            rule="budget.over_before_trim", severity=Severity.INFO,
            message=(f"before trimming the candidates were over capacity by {_n(over)} tokens; "
                     f"{len(omitted)} item(s) omitted"),
            evidence=Evidence(item_ids=omitted, fields=_LIMIT_FIELDS),
        ))
    exhausted = output_exhausted(trace)
    if exhausted is not None:
        out.append(exhausted)
    return out


class BudgetCheck:
    """The eq. 3.1 check as findings (see the module docstring)."""

    id = "budget"
    title = "token budget against the context capacity (eq. 3.1)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``budget.*`` findings for ``trace``."""
        return capacity_findings(trace, budget.capacity(trace))


CHECK = BudgetCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
