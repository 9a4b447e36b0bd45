"""Runtime guardrails next to the offline scanner: where the application's own guard and
ctxviewer's prompt-injection scanner disagree about a part of the request.

Reads :attr:`~ctxviewer.model.trace.RequestTrace.guardrails` (imported from the trace: the
``apply_guardrail`` spans of the OpenTelemetry GenAI security-guardrail proposal) and the
scanner's item scans (:func:`ctxviewer.assess.scanner.scope.scan_items`). Rules:

- ``guardrail.runtime`` (info) -- a runtime guard flagged a target: its name, decision, target and
  finding categories, as recorded;
- ``guardrail.disagree`` -- ``warning`` when a runtime guard evaluated an untrusted item and let it
  through (no flagging decision, no finding) while the scanner flags it (warning or worse), the
  scanner's reason quoted; ``info`` when the guard flagged an item the scanner finds clean (the
  scanner catches kinds of attack, not every attack: a reviewer reads the item).

An evaluation whose target is not an item of the trace (a tool call, the response, not recorded)
is listed by ``guardrail.runtime`` only. No Qt here.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.assess.scanner.scope import Scope, item_label, scan_items
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.guardrail import GuardrailResult
from ctxviewer.model.trace import RequestTrace


def _who(g: GuardrailResult) -> str:
    return f"runtime guard {g.guardian!r}" if g.guardian else "a runtime guard (name not recorded)"


class GuardrailCheck:
    """Runtime guardrail results and their disagreements with the scanner (see the module docstring)."""

    id = "guardrail"
    title = "runtime guardrails against the offline scanner"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """``guardrail.runtime`` per flagging evaluation, ``guardrail.disagree`` per disagreement."""
        if not trace.guardrails:
            return []
        scans = {s.item.id: s for s in scan_items(trace)}
        out: list[Finding] = []
        for g in trace.guardrails:
            target = g.target_id or "target not recorded"
            if g.flagged:
                cats = ", ".join(dict.fromkeys(f.category or "category not recorded" for f in g.findings)) or "no finding recorded"
                out.append(rule_finding(
                    "guardrail.runtime", Severity.INFO,
                    f"{_who(g)} decided {g.decision or 'not recorded'} on {g.target_type or 'target'} {target}: {cats}",
                    Evidence(item_ids=(g.target_id,) if g.target_id in scans else ())))
            s = scans.get(g.target_id or "")
            if s is None or s.scope is not Scope.UNTRUSTED:
                continue
            flagged_by_scanner = [h for h in s.hits if h.severity.rank >= Severity.WARNING.rank]
            label = item_label(s.item)
            if flagged_by_scanner and not g.flagged:
                h = flagged_by_scanner[0]
                out.append(rule_finding(
                    "guardrail.disagree", Severity.WARNING,
                    f"{_who(g)} let {label} through ({g.decision or 'decision not recorded'}); the offline "
                    f"scanner flags it: {h.reason}",
                    Evidence(item_ids=(s.item.id,), positions=(s.item.position,) if s.item.position else ())))
            elif g.flagged and not flagged_by_scanner:
                out.append(rule_finding(
                    "guardrail.disagree", Severity.INFO,
                    f"{_who(g)} flagged {label}; the offline scanner finds no instruction-like text there",
                    Evidence(item_ids=(s.item.id,), positions=(s.item.position,) if s.item.position else ())))
        return out


CHECK = GuardrailCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
