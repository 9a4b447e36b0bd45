"""Runtime guardrail results recorded with a trace: what a guard the application ran (a
prompt-injection classifier, a content-safety service, a policy engine) decided about one part of
the request, so a reviewer sees where it and the offline scanner disagree.

The shape follows the proposed OpenTelemetry GenAI security-guardrail conventions (an
``apply_guardrail`` span per evaluation, with ``gen_ai.guardian.*`` and ``gen_ai.security.*``
attributes and one ``gen_ai.security.finding`` event per finding); they are a proposal, not yet
in a released semantic-conventions version, so the importer also reads the ``microsoft.guardian.*``
/ ``microsoft.security.*`` names one SDK writes today. Every field the source did not record is
``None``. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

FLAGGING_DECISIONS = frozenset({"deny", "warn", "modify", "audit", "block", "blocked", "flag", "flagged"})
"""Decisions that say the guard found something (``allow`` and ``none`` do not)."""


@dataclass(frozen=True)
class GuardrailFinding:
    """One finding of a guardrail evaluation (a ``gen_ai.security.finding`` event)."""

    category: str | None = None
    """What kind of risk (``gen_ai.security.risk.category``), e.g. ``prompt_injection``, or a ctxviewer rule id."""
    severity: str | None = None
    """``gen_ai.security.risk.severity``: ``none``, ``low``, ``medium``, ``high``, ``critical``."""
    score: float | None = None
    """``gen_ai.security.risk.score``, 0..1 where the guard reports one."""
    detail: str | None = None
    """Why, in words (ctxviewer writes the finding's reason here)."""


@dataclass(frozen=True)
class GuardrailResult:
    """One guardrail evaluation of one target (an ``apply_guardrail`` span)."""

    guardian: str | None = None
    """The guard's name (``gen_ai.guardian.name``)."""
    target_type: str | None = None
    """What it evaluated (``gen_ai.security.target.type``): ``llm_input``, ``llm_output``, ``tool_call``, ..."""
    target_id: str | None = None
    """Which part (``gen_ai.security.target.id``): an item id or a tool call id of the trace."""
    decision: str | None = None
    """``gen_ai.security.decision.type``: ``allow``, ``audit``, ``deny``, ``modify``, ``warn``."""
    reason: str | None = None
    """``gen_ai.security.decision.reason``."""
    findings: tuple[GuardrailFinding, ...] = ()
    """Its findings, in the order recorded."""

    @property
    def flagged(self) -> bool:
        """Whether the guard found something: a flagging decision, or a finding of a severity other than ``none``."""
        if (self.decision or "").lower() in FLAGGING_DECISIONS:
            return True
        return any((f.severity or "not recorded").lower() != "none" for f in self.findings)
