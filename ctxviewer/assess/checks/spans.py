"""The model-call span ended in error or never ended (OpenTelemetry span status and end time).

The OTel importer records the span's state in ``trace.attributes``: ``otel.status_code`` =
``"error"`` with ``otel.status_message``, and ``otel.span.ended`` = False for a span without an
end time. The GenAI convention's ``error.type`` attribute counts as an error too.

* ``span.error`` (failure) -- the request failed; its response (if any) is not an answer.
* ``span.not_ended`` (warning) -- exported while open (crash, cancellation, missing ``end()``).

A standalone tool span (:func:`~ctxviewer.assess.checks.server_state.is_tool_span`) whose error
refused the call it ran (its call's verdict read as blocked or held for approval:
:mod:`ctxviewer.importers.common.tool_outcome`) is a ``span.error`` warning, "the tool refused the
call": the action check did its job, and Table 3.1 row 5 judges the proposal.

A span with an error status and no end time says one thing: ``span.error`` with "..., end time
not recorded" (the error status is itself the end; the missing end time is only not recorded), not
also "never ended".
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.assess.checks.server_state import is_tool_span
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace, ToolVerdict


class SpanCheck:
    """Span status and end (see the module docstring)."""

    id = "span"
    title = "span ended in error or never ended"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """At most one finding: ``span.error`` (with ", end time not recorded" when the span has
        no end time either), else ``span.not_ended``."""
        a = trace.attributes
        open_span = a.get("otel.span.ended") is False
        if a.get("otel.status_code") == "error" or a.get("error.type"):
            why = a.get("otel.status_message") or a.get("error.type") or "no message recorded"
            keys = ("otel.status_code", "otel.status_message", "error.type", "otel.span.ended")
            fields = tuple(k for k in keys if k in a)
            tail = ", end time not recorded" if open_span else ""
            evidence = Evidence(fields=tuple(f"attributes.{k}" for k in fields))
            if _refused(trace):
                yield rule_finding("span.error", Severity.WARNING,
                                   f"the tool refused the call: {why}{tail} (the proposed call was not run)", evidence)
            else:
                yield rule_finding("span.error", Severity.FAILURE, f"the span ended in error: {why}{tail}", evidence)
        elif open_span:
            yield rule_finding("span.not_ended", Severity.WARNING,
                               "the span never ended (no end time): the request may not have completed",
                               Evidence(fields=("attributes.otel.span.ended",)))


def _refused(trace: RequestTrace) -> bool:
    """True for a standalone tool span whose every call was refused by the span's own error."""
    stopped = (ToolVerdict.BLOCKED, ToolVerdict.NEEDS_APPROVAL)
    return is_tool_span(trace) and bool(trace.tool_calls) and all(c.verdict in stopped for c in trace.tool_calls)


CHECK = SpanCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
