"""The trace list's cells of what a call cost (:data:`ctxviewer.present.columns.TRACE_COLUMNS`' Cost
column): US dollars from the row's stored ``cost`` (:mod:`ctxviewer.tokens.cost`), "not known" --
never "$0" -- when the price library has no price or the usage was not recorded. No Qt here.
"""

from __future__ import annotations

from typing import Any

from ctxviewer.tokens.cost import NOT_KNOWN, fmt_cost


def cost_cell(row: Any) -> str:
    """The call's cost stored on the row (US dollars, genai-prices): ``"$0.000240"``; ``"not
    known"`` when the library has no price or the usage was not recorded (never ``"$0"``)."""
    return fmt_cost(getattr(row, "cost", None))


def cost_tooltip(row: Any) -> str | None:
    """The Cost cell's tooltip: where the figure comes from, or why it is not known."""
    if getattr(row, "cost", None) is None:
        return (f"cost {NOT_KNOWN}: no recorded usage, or a model genai-prices has no price for "
                "(the trace header says which)")
    return "from the recorded usage at genai-prices' rates when the call was sent (cache and reasoning tokens at their own)"
