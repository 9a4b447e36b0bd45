"""Table 3.1 row 5, "unsafe tool proposal" (first evidence "Authorization and action checks").

One finding per proposed call with a failed check (ctxviewer's or the application's; see
:mod:`ctxviewer.assess.tool_review`), its severity set by the recorded verdict:

* ``tool.permitted_despite_failed_check`` (critical) -- the application permitted it anyway;
* ``tool.unsafe_no_verdict`` (failure) -- no verdict was recorded;
* ``tool.unsafe_needs_approval`` (warning) -- held for approval;
* ``tool.unsafe_blocked`` (warning) -- blocked: the application did its job, but the model
  proposed an unsafe call, so the context (e.g. a prompt injection) deserves a look.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import table_finding
from ctxviewer.assess.tool_review import review_calls
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace, ToolVerdict

_BY_VERDICT = {
    ToolVerdict.PERMITTED: ("tool.permitted_despite_failed_check", Severity.CRITICAL, "permitted although"),
    ToolVerdict.BLOCKED: ("tool.unsafe_blocked", Severity.WARNING, "blocked because"),
    ToolVerdict.NEEDS_APPROVAL: ("tool.unsafe_needs_approval", Severity.WARNING, "held for approval;"),
    None: ("tool.unsafe_no_verdict", Severity.FAILURE, "no verdict recorded although"),
}


class ToolCallCheck:
    """Table 3.1 row 5 (see the module docstring)."""

    id = "tool"
    title = "unsafe tool proposal (Table 3.1 row 5)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``tool.*`` findings for ``trace``."""
        for r in review_calls(trace):
            failed = r.failed
            if not failed:
                continue
            rule, severity, how = _BY_VERDICT[r.verdict]
            names = ", ".join(c.name for c in failed)
            by = f" (decided by {r.call.decided_by})" if r.call.decided_by and r.verdict else ""
            yield table_finding(
                rule, severity,
                f"{r.call.name} proposed and {how} {len(failed)} check(s) failed{by}: {names}",
                Evidence(item_ids=(r.tool_item_id,) if r.tool_item_id else (), tool_call_ids=(r.ref,),
                         fields=tuple(c.field for c in failed if c.field)),
                5,
            )


CHECK = ToolCallCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
