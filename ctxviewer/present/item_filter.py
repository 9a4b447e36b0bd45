"""Which items of one trace the item table shows, and the way to the next omitted one.

An :class:`ItemFilter` keeps items by kind, status and a text (case-insensitive, matched against
the id, kind, role, source label and omission reason -- the words the table shows). The window's
item table applies it row by row; :func:`step_to` finds the next or previous flagged row (an
omitted item) from the current one, wrapping around. No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxviewer.model.trace import ContextItem, Kind, Status


@dataclass(frozen=True)
class ItemFilter:
    """What the item table keeps; the default keeps everything."""

    kind: Kind | None = None
    """Only items of this kind; ``None`` = every kind."""
    status: Status | None = None
    """Only retained or only omitted items; ``None`` = both ("omitted only" sets ``OMITTED``)."""
    text: str = ""
    """Case-insensitive text looked for in the id, kind, role, source label and omission reason."""

    @property
    def active(self) -> bool:
        """True when the filter hides anything."""
        return self.kind is not None or self.status is not None or bool(self.text.strip())

    def matches(self, item: ContextItem) -> bool:
        """Whether ``item`` is kept."""
        if self.kind is not None and item.kind is not self.kind:
            return False
        if self.status is not None and item.status is not self.status:
            return False
        needle = self.text.strip().casefold()
        if not needle:
            return True
        label = item.source.label() if item.source is not None else None
        hay = (item.id, item.kind.value, item.role, label, item.omission_reason, item.status.value)
        return any(needle in h.casefold() for h in hay if h)


def step_to(flags: Sequence[bool], current: int, step: int) -> int | None:
    """The next (``step=1``) or previous (``step=-1``) index after ``current`` whose flag is True,
    wrapping around the end; ``current`` itself is found again only when it is the only one.
    ``current=-1`` starts before the first row. ``None`` when no flag is set."""
    n = len(flags)
    if n == 0 or not any(flags):
        return None
    start = current if 0 <= current < n else (-1 if step > 0 else n)
    for k in range(1, n + 1):
        i = (start + step * k) % n
        if flags[i]:
            return i
    return None
