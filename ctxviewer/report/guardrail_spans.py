"""The offline scanner's verdicts as OpenTelemetry guardrail spans (``ctxviewer export --guardrails``).

For each trace, one ``apply_guardrail`` span per part the scanner read -- every untrusted item
(target type ``llm_input``), every proposed tool call and the response that a sink finding names
(``tool_call``, ``llm_output``) -- a child of the trace's chat span, with the attributes of the
proposed OpenTelemetry GenAI security-guardrail conventions (``gen_ai.operation.name =
apply_guardrail``, ``gen_ai.guardian.name = ctxviewer scanner``, ``gen_ai.security.target.type``
and ``.target.id`` -- the item or call id --, ``gen_ai.security.decision.type``: ``deny`` for a
``failure`` or ``critical`` finding, ``warn`` for a ``warning``, else ``allow``) and one
``gen_ai.security.finding`` event per finding (``gen_ai.security.risk.category`` = the rule id,
``gen_ai.security.risk.severity``: info -> ``low``, warning -> ``medium``, failure -> ``high``,
critical -> ``critical``; ``ctxviewer.detail`` = the message). The conventions are a proposal:
names may change with them. Importing the file (``ctxviewer-otlp`` or ``otel``) reads these spans
back as the trace's runtime guardrail results (:class:`ctxviewer.model.guardrail.GuardrailResult`).
No Qt here.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ctxviewer.assess.scanner.scope import Scope, scan_items
from ctxviewer.assess.scanner.trace_scan import scan_trace
from ctxviewer.model.findings import Finding, Severity
from ctxviewer.model.guardrail import GuardrailFinding, GuardrailResult
from ctxviewer.model.trace import RequestTrace

GUARDIAN = "ctxviewer scanner"
"""``gen_ai.guardian.name`` of the exported verdicts."""
RISK_SEVERITY = {Severity.INFO: "low", Severity.WARNING: "medium", Severity.FAILURE: "high", Severity.CRITICAL: "critical"}
"""Finding severity -> ``gen_ai.security.risk.severity``."""


def _decision(findings: list[Finding]) -> str:
    worst = max((f.severity.rank for f in findings), default=-1)
    return "deny" if worst >= Severity.FAILURE.rank else "warn" if worst >= Severity.WARNING.rank else "allow"


def scanner_verdicts(trace: RequestTrace) -> list[GuardrailResult]:
    """The scanner's verdict on each part of ``trace`` it read (module docstring), in item order,
    then tool calls, then the response."""
    findings = [f for f in scan_trace(trace)]
    by_target: dict[tuple[str, str], list[Finding]] = {}
    for s in scan_items(trace):
        if s.scope is Scope.UNTRUSTED:
            by_target[("llm_input", s.item.id)] = []
    for f in findings:
        if f.evidence.tool_call_ids and f.rule.startswith(("injection.action_linkage", "injection.argument_from",
                                                           "injection.permitted_after")):
            key = ("tool_call", f.evidence.tool_call_ids[0])
        elif "response.text" in f.evidence.fields:
            key = ("llm_output", "response")
        elif f.evidence.item_ids:
            key = ("llm_input", f.evidence.item_ids[0])
        else:
            continue
        by_target.setdefault(key, []).append(f)
    return [GuardrailResult(GUARDIAN, kind, target, _decision(fs), None,
                            tuple(GuardrailFinding(f.rule, RISK_SEVERITY[f.severity], None, f.message) for f in fs))
            for (kind, target), fs in by_target.items()]


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, float):
        return {"doubleValue": v}
    return {"stringValue": str(v)}


def guardrail_spans(result_list: list[GuardrailResult], trace_hex: str, parent: str, start: str | None) -> list[dict[str, Any]]:
    """OTLP/JSON span objects for ``result_list``, children of span ``parent`` in trace ``trace_hex``
    (``start``: the parent's ``startTimeUnixNano``, reused for the spans and events)."""
    out = []
    for n, g in enumerate(result_list):
        attrs = {"gen_ai.operation.name": "apply_guardrail", "gen_ai.guardian.name": g.guardian,
                 "gen_ai.security.target.type": g.target_type, "gen_ai.security.target.id": g.target_id,
                 "gen_ai.security.decision.type": g.decision, "gen_ai.security.decision.reason": g.reason}
        span: dict[str, Any] = {
            "traceId": trace_hex, "spanId": hashlib.sha256(f"{parent}:{n}".encode()).hexdigest()[:16],
            "parentSpanId": parent, "name": f"apply_guardrail {g.guardian} {g.target_type}", "kind": 1,
            "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items() if v is not None],
            "events": [{"name": "gen_ai.security.finding", **({"timeUnixNano": start} if start else {}),
                        "attributes": [{"key": k, "value": _value(v)} for k, v in (
                            ("gen_ai.security.risk.category", f.category), ("gen_ai.security.risk.severity", f.severity),
                            ("gen_ai.security.risk.score", f.score), ("ctxviewer.detail", f.detail)) if v is not None]}
                       for f in g.findings]}
        if start:
            span["startTimeUnixNano"] = span["endTimeUnixNano"] = start
        out.append(span)
    return out
