"""Which input eq. 3.1 took, in words: :attr:`ctxviewer.assess.budget.CapacityCheck.input_source`
when it is the provider-reported input rather than the application's count or the items' sum
(the header's numbers line and the verdict say which). No Qt here.
"""

from __future__ import annotations

REPORTED_SOURCE = "reported by the provider"
""":attr:`CapacityCheck.input_source` when the count fits but the reported input is over C: the
endpoint enforces its own count, so the verdict and :attr:`CapacityCheck.margin` are by the
reported input (``margin < 0`` finds the trace), and ``input_tokens`` stays the count."""
TRUNCATED_SOURCE = "reported by the provider (the captured text is truncated)"
""":attr:`CapacityCheck.input_source` when truncated text made the items' sum too low."""
NOT_CAPTURED_SOURCE = "reported by the provider (the message content was not captured)"
""":attr:`CapacityCheck.input_source` when the span kept usage and metadata only (no items to sum)."""
