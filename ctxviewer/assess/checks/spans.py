"""The model-call span ended in error or never ended (OpenTelemetry span status and end time).

The OTel importer records the span's state in ``trace.attributes``: ``otel.status_code`` =
``"error"`` with ``otel.status_message``, and ``otel.span.ended`` = False for a span without an
end time. The GenAI convention's ``error.type`` attribute counts as an error too.

* ``span.error`` (failure) -- the request failed; its response (if any) is not an answer.
* ``span.not_ended`` (warning) -- exported while open (crash, cancellation, missing ``end()``).

A span with an error status and no end time says one thing: ``span.error`` with "..., end time
not recorded" (the error status is itself the end; the missing end time is only not recorded), not
also "never ended".
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import RequestTrace


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
            yield rule_finding("span.error", Severity.FAILURE, f"the span ended in error: {why}{tail}",
                               Evidence(fields=tuple(f"attributes.{k}" for k in fields)))
        elif open_span:
            yield rule_finding("span.not_ended", Severity.WARNING,
                               "the span never ended (no end time): the request may not have completed",
                               Evidence(fields=("attributes.otel.span.ended",)))


CHECK = SpanCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
