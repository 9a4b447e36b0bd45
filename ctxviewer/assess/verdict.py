"""The eq. 3.1 verdict in words: what a :class:`~ctxviewer.assess.budget.CapacityCheck` decided,
as the header, the chart, ``show``, ``list`` and the ``budget.*`` findings say it (one wording for
every surface). No Qt here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxviewer.assess.input_source import REPORTED_SOURCE
from ctxviewer.model.trace import LimitMode
from ctxviewer.model.words import fmt_int

if TYPE_CHECKING:
    from ctxviewer.assess.budget import CapacityCheck



def verdict_text(chk: CapacityCheck) -> str:
    """The eq. 3.1 verdict in words, e.g. ``"fits, 800 tokens margin"`` or
    ``"over capacity by 700 tokens: had 6,800 tokens left, needed 7,500"`` (input room C - B_out
    and the input); a margin below the declared safety margin says so; an impossible C
    (:attr:`CapacityCheck.capacity_problem`) is said instead of a margin; separate limits give both checks joined by ``"; "``.
    Unknown quantities give ``"capacity not recorded"`` / ``"reserved output not recorded"``.
    """
    if chk.limit_mode is LimitMode.SEPARATE and chk.refusal is not None:
        return (f"input over the provider's window by its own count: it refused the request as "
                f"{fmt_int(chk.refusal.sent)} tokens against its {fmt_int(chk.refusal.window)}-token window")
    if chk.limit_mode is LimitMode.SEPARATE:
        parts = []
        if chk.input_fits is None:
            parts.append("input limit not recorded" if chk.max_input is None else "input tokens not recorded")
        elif chk.input_fits:
            parts.append(f"input fits, {fmt_int(chk.max_input - chk.input_tokens)} tokens to spare")  # type: ignore[operator]
        else:
            parts.append(f"input over limit by {fmt_int(chk.input_tokens - chk.max_input)} tokens")  # type: ignore[operator]
        if chk.output_fits is None:
            parts.append(
                "output limit not recorded" if chk.max_output is None else "reserved output not recorded"
            )
        elif chk.output_fits:
            parts.append(f"output reserve fits ({fmt_int(chk.reserved_output)} of {fmt_int(chk.max_output)})")
        else:
            parts.append(f"output reserve over limit by {fmt_int(chk.reserved_output - chk.max_output)} tokens")  # type: ignore[operator]
        return "; ".join(parts)
    if chk.capacity is None:
        return "capacity not recorded"
    if chk.capacity_problem:
        return chk.capacity_problem
    if chk.input_tokens is None:
        return "input tokens not recorded"
    if chk.reserved_output is None and not (chk.output_assumed or chk.input_limit_only):
        return "reserved output not recorded"
    assert chk.margin is not None
    text = _shared_verdict(chk)
    where = "capacity assumed" if chk.capacity_source.startswith("assumed") else "capacity from ctxviewer.toml"
    notes = [n for n, on in ((where, chk.capacity_assumed),
                             ("reserved output not recorded: input alone checked", chk.output_assumed),
                             ("an input limit: input alone checked", chk.input_limit_only)) if on]
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _shared_verdict(chk: CapacityCheck) -> str:
    """The shared-limit verdict of a decided check (C, the input and B_out or its assumption known)."""
    assert chk.capacity is not None and chk.input_tokens is not None and chk.margin is not None
    room = chk.capacity - (chk.reserved_output or 0)
    if chk.refusal is not None:
        return (f"over capacity by {fmt_int(chk.refusal.sent - chk.refusal.window)} tokens by the provider's own count: "
                f"it refused the request as {fmt_int(chk.refusal.sent)} tokens against its {fmt_int(chk.refusal.window)}-token "
                f"window (counted here {fmt_int(chk.input_tokens)}: the trace holds less than was sent)"
                if chk.input_tokens + (chk.reserved_output or 0) < chk.refusal.sent else
                f"over capacity by {fmt_int(chk.refusal.sent - chk.refusal.window)} tokens by the provider's own count: "
                f"it refused the request as {fmt_int(chk.refusal.sent)} tokens against its {fmt_int(chk.refusal.window)}-token window")
    if chk.input_source == REPORTED_SOURCE and chk.reported_input is not None:
        return (f"over capacity by {fmt_int(chk.reported_input - room)} tokens by the provider-reported input: "
                f"had {fmt_int(room)} tokens left, needed {fmt_int(chk.reported_input)} (counted {fmt_int(chk.input_tokens)})")
    if chk.margin >= 0:
        by_report = ("" if chk.reported_margin is None else
                     f"; {fmt_int(chk.reported_margin)} by the provider-reported input {fmt_int(chk.reported_input or 0)}")
        if chk.declared_margin is not None and chk.margin < chk.declared_margin:
            return f"fits, {fmt_int(chk.margin)} tokens margin (below the declared {fmt_int(chk.declared_margin)}{by_report})"
        return f"fits, {fmt_int(chk.margin)} tokens margin" + (f" (by the count{by_report})" if by_report else "")
    return f"over capacity by {fmt_int(-chk.margin)} tokens: had {fmt_int(room)} tokens left, needed {fmt_int(chk.input_tokens)}"
