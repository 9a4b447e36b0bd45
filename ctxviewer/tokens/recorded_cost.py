"""The cost a trace's own tool recorded for a call, beside ctxviewer's list-price cost.

Several exporters write what they charged or computed: Langfuse ``costDetails.total`` /
``totalCost`` (kept as ``langfuse.cost.total``), LiteLLM ``response_cost``
(``litellm.response_cost``), promptfoo's ``cost`` (``promptfoo.cost``, ``promptfoo.response.cost``)
and the ``gen_ai.cost.total_cost`` attribute some OpenTelemetry instrumentations add (not an
OpenTelemetry GenAI semantic-convention attribute). They may differ from the list price
(:func:`ctxviewer.tokens.cost.call_cost`): negotiated prices, a gateway's margin, an older price
table. A surface that shows the list price says the recorded figure when it differs by more than
:data:`REL_TOLERANCE`, so a reader never takes one for the other. No Qt here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Mapping

RECORDED_COST_KEYS: tuple[str, ...] = ("langfuse.cost.total", "litellm.response_cost", "gen_ai.cost.total_cost",
                                       "promptfoo.response.cost", "promptfoo.cost")
"""Trace attributes holding a recorded total cost in US dollars, the first present wins."""

REL_TOLERANCE = 0.01
"""Relative difference (1 %) under which a recorded and a list-price cost are the same figure
(rounding by the exporter)."""


@dataclass(frozen=True)
class RecordedCost:
    """A call's cost as its trace records it."""

    usd: float
    """US dollars."""
    key: str
    """The attribute it was read from (one of :data:`RECORDED_COST_KEYS`)."""


def recorded_cost(attributes: Mapping[str, Any]) -> RecordedCost | None:
    """The recorded total cost of the call, or ``None`` when no attribute of
    :data:`RECORDED_COST_KEYS` holds a finite, positive number (a number, or a string of one; a
    boolean is no number). A recorded 0 is no price: Langfuse writes ``totalCost: 0`` for a model
    it has no price for, so a 0 beside a list price would read as a discount."""
    for key in RECORDED_COST_KEYS:
        value = attributes.get(key)
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
            return RecordedCost(float(value), key)
    return None


def differs(recorded: RecordedCost, computed: Decimal | float | None) -> bool:
    """Whether ``recorded`` and the list-price ``computed`` (US dollars; ``None``: not known) are
    different figures: ``computed`` not known, or apart by more than :data:`REL_TOLERANCE` of the
    larger (and more than a millionth of a dollar)."""
    if computed is None:
        return True
    c = float(computed)
    gap = abs(recorded.usd - c)
    return gap > 1e-6 and gap > REL_TOLERANCE * max(recorded.usd, c)
