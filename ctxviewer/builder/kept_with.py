"""Why a what-if keeps an item the recording omitted though nobody pinned it: it is in a pinned
item's removal unit (:func:`ctxviewer.builder.candidates.units`: an assistant tool call and its tool
results are kept or dropped together, chapter 3.3 rule 4).

:func:`kept_with` names, for each such item, the pinned member that brought it back, in the
trimmer's words turned round: the trimmer drops a result "with tool call turn-09"; a pin keeps it
"with tool call turn-01, pinned". No Qt here.
"""

from __future__ import annotations

from typing import Sequence

from ctxviewer.builder.candidates import Candidate, units


def kept_with(cands: Sequence[Candidate]) -> dict[str, str]:
    """Candidate id -> ``"kept with tool call turn-01, pinned"`` (or ``"kept with its tool result
    turn-02, pinned"`` for a call whose result was pinned), for every candidate that is not pinned
    itself but shares a removal unit with a pinned one. Empty without pins."""
    cands = list(cands)
    if not any(c.pinned for c in cands):
        return {}
    out: dict[str, str] = {}
    for unit in units(cands):
        pinned = [k for k in unit.members if cands[k].pinned]
        if not pinned or len(unit.members) == 1:
            continue
        head = unit.members[0]
        for k in unit.members:
            if cands[k].pinned:
                continue
            if head in pinned:
                out[cands[k].id] = f"kept with tool call {cands[head].id}, pinned"
            else:
                out[cands[k].id] = f"kept with its tool result {cands[pinned[0]].id}, pinned"
    return out
