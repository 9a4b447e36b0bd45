"""How far a token count and the provider's reported input may differ and still agree.

A count made by ctxviewer (or the application) and the provider's ``gen_ai.usage.input_tokens``
differ by the chat template's framing and tokenizer details; the declared safety margin is there
to absorb that difference. :func:`tolerance` is the allowed difference: the token accounting
check (``accounting.*``) calls a larger gap a disagreement, and eq. 3.1's verdict names the
margin by the reported input beside the counted one when the report is above the count by more
(:mod:`ctxviewer.assess.verdict`). No Qt here.
"""

from __future__ import annotations

import math

from ctxviewer.assess.plausibility import reported_input
from ctxviewer.model.trace import RequestTrace

DEFAULT_TOLERANCE = 0.05
"""Share of the reported input the counts may differ by when no safety margin is declared."""
MIN_TOLERANCE = 50
"""Smallest tolerance in tokens (short requests carry a fixed chat-template overhead)."""


def tolerance(trace: RequestTrace) -> int | None:
    """Allowed |counted - reported| in tokens: the declared safety margin, else 5 % of the reported
    input (at least :data:`MIN_TOLERANCE`); ``None`` when the reported input is unknown."""
    reported = reported_input(trace)
    if reported is None:
        return None
    if trace.safety_margin is not None:
        return trace.safety_margin
    return max(MIN_TOLERANCE, math.ceil(DEFAULT_TOLERANCE * reported))
