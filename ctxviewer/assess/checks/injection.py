"""The prompt-injection check: the scanner's hits in untrusted items and the action linkage.

Rule ids ``injection.<family>`` (see :mod:`ctxviewer.assess.scanner`), ``injection.action_linkage`` and
``injection.permitted_after_flag`` (Table 3.1 row 5, "unsafe tool proposal"), and the sinks
``injection.response_exfiltration`` and ``injection.argument_from_flagged``
(:mod:`ctxviewer.assess.scanner.sinks`). A scanner-rule
plug-in that could not be loaded is one ``check.error`` finding (severity ``warning``) naming it:
the scan ran without that rule.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.scanner.registry import RULES
from ctxviewer.assess.scanner.trace_scan import scan_trace
from ctxviewer.model.findings import Finding, Severity
from ctxviewer.model.trace import RequestTrace


class InjectionCheck:
    """Instruction-like text in untrusted data, and tool calls whose arguments it supplied."""

    id = "injection"
    title = "prompt injection in untrusted data (chapter 3.5)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The findings of :func:`ctxviewer.assess.scanner.trace_scan.scan_trace`, then one
        ``check.error`` per scanner-rule plug-in that could not be loaded."""
        missing = [Finding(rule="check.error", severity=Severity.WARNING,
                           message=f"scanner rule plug-in {p.name!r} ({p.source}) could not be loaded: {p.message}")
                   for p in RULES.load_problems]
        return scan_trace(trace) + missing


CHECK = InjectionCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
