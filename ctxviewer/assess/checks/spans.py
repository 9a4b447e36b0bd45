"""The model-call span ended in error or never ended (OpenTelemetry span status and end time).

The OTel importer records the span's state in ``trace.attributes``: ``otel.status_code`` =
``"error"`` with ``otel.status_message``, and ``otel.span.ended`` = False for a span without an
end time. The GenAI convention's ``error.type`` attribute counts as an error too.

* ``span.error`` (failure) -- the request failed; its response (if any) is not an answer.
* ``span.not_ended`` (warning) -- exported while open (crash, cancellation, missing ``end()``).
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
        """At most one ``span.error`` and one ``span.not_ended`` finding."""
        a = trace.attributes
        if a.get("otel.status_code") == "error" or a.get("error.type"):
            why = a.get("otel.status_message") or a.get("error.type") or "no message recorded"
            fields = tuple(k for k in ("otel.status_code", "otel.status_message", "error.type") if k in a)
            yield rule_finding("span.error", Severity.FAILURE, f"the span ended in error: {why}",
                               Evidence(fields=tuple(f"attributes.{k}" for k in fields)))
        if a.get("otel.span.ended") is False:
            yield rule_finding("span.not_ended", Severity.WARNING,
                               "the span never ended (no end time): the request may not have completed",
                               Evidence(fields=("attributes.otel.span.ended",)))


CHECK = SpanCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
