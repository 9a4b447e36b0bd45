"""Guardrail spans -> runtime guardrail results (:class:`ctxviewer.model.guardrail.GuardrailResult`).

A span is a guardrail evaluation when its ``gen_ai.operation.name`` is ``apply_guardrail`` (or
``run_guardrail``) or its name starts with one of those -- the proposed OpenTelemetry GenAI
security-guardrail conventions, also what ``ctxviewer export --guardrails`` writes. Attributes
read, each under the proposal's ``gen_ai.*`` name first, then the ``microsoft.*`` name one SDK
writes today: the guardian's name (``gen_ai.guardian.name``, ``gen_ai.security.guardrail.name``),
the target type and id (``gen_ai.security.target.type`` / ``.id``), the decision type and reason
(``gen_ai.security.decision.*``, ``gen_ai.security.verdict.*``); one finding per
``gen_ai.security.finding`` event (risk category, severity, score; the detail from
``ctxviewer.detail`` or ``gen_ai.security.risk.metadata``). Absent values are ``None``. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common.spans.span import Span
from ctxviewer.model.guardrail import GuardrailFinding, GuardrailResult

_OPS = ("apply_guardrail", "run_guardrail")


def is_guardrail_span(span: Span) -> bool:
    """Whether ``span`` is a guardrail evaluation (module docstring)."""
    op = str(span.attributes.get("gen_ai.operation.name") or "")
    return op in _OPS or any((span.name or "").startswith(o) for o in _OPS)


def _get(attrs: Mapping[str, Any], *suffixes: str) -> str | None:
    for suffix in suffixes:
        for prefix in ("gen_ai.", "microsoft."):
            v = attrs.get(prefix + suffix)
            if v is not None and v != "":
                return str(v)
    return None


def _score(v: Any) -> float | None:
    try:
        return None if v is None or isinstance(v, bool) else float(v)
    except (TypeError, ValueError):
        return None


def guardrail_from_span(span: Span) -> GuardrailResult:
    """The guardrail result ``span`` records (module docstring)."""
    a = span.attributes
    findings = []
    for ev in span.events:
        if not str(ev.get("name") or "").endswith("security.finding"):
            continue
        e = ev.get("attributes") or {}
        findings.append(GuardrailFinding(
            category=_get(e, "security.risk.category", "security.risk.finding"),
            severity=_get(e, "security.risk.severity"),
            score=_score(e.get("gen_ai.security.risk.score", e.get("microsoft.security.risk.score"))),
            detail=str(e["ctxviewer.detail"]) if e.get("ctxviewer.detail") else _get(e, "security.risk.metadata")))
    return GuardrailResult(
        guardian=_get(a, "guardian.name", "security.guardrail.name"),
        target_type=_get(a, "security.target.type"),
        target_id=_get(a, "security.target.id"),
        decision=_get(a, "security.decision.type", "security.verdict.type"),
        reason=_get(a, "security.decision.reason", "security.verdict.reason"),
        findings=tuple(findings))
