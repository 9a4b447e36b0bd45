"""The prompt-injection check: the scanner's hits in untrusted items and the action linkage.

Rule ids ``injection.<family>`` (see :mod:`ctxviewer.assess.scanner`), ``injection.action_linkage`` and
``injection.permitted_after_flag`` (Table 3.1 row 5, "unsafe tool proposal").
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks import register
from ctxviewer.assess.scanner.trace_scan import scan_trace
from ctxviewer.model.findings import Finding
from ctxviewer.model.trace import RequestTrace


class InjectionCheck:
    """Instruction-like text in untrusted data, and tool calls whose arguments it supplied."""

    id = "injection"
    title = "prompt injection in untrusted data (chapter 3.5)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The findings of :func:`ctxviewer.assess.scanner.trace_scan.scan_trace`."""
        return scan_trace(trace)


register(InjectionCheck())
