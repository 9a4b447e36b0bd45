"""What a statistics cell says of a sum some calls did not record: the same words in ``ctxviewer
stats`` and the window's Statistics table.

A token sum (counted input, reported output) or a cost is a lower bound when some calls of the
group did not record it, and says how many: ``"≥ 1,840 (1 not recorded)"``, ``"≥ $0.007684 (1 not
known)"``; "not recorded" / "not known" when no call did (never 0). No Qt here.
"""

from __future__ import annotations

from ctxviewer.tokens.cost import NOT_KNOWN, fmt_cost


def token_sum(total: int, known: int, calls: int) -> str:
    """``total`` tokens over the ``known`` of ``calls`` calls that recorded them: ``"1,840"``,
    ``"≥ 1,840 (1 not recorded)"`` or ``"not recorded"`` (``known`` 0)."""
    if known == 0:
        return "not recorded"
    return f"{total:,}" if known == calls else f"≥ {total:,} ({calls - known:,} not recorded)"


def cost_sum(cost: float, known: int, calls: int) -> str:
    """``cost`` US dollars over the ``known`` of ``calls`` calls whose price is known:
    ``"$0.007684"``, ``"≥ $0.007684 (1 not known)"`` or ``"not known"`` (``known`` 0)."""
    if known == 0:
        return NOT_KNOWN
    text = fmt_cost(cost)
    return text if known == calls else f"≥ {text} ({calls - known:,} {NOT_KNOWN})"
