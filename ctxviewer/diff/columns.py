"""What every cell of the diff table says (the GUI's :class:`DiffItemModel` only serves these).

Side by side: A's position, id, tokens and status; the change symbol and word; B's position, id,
tokens and status; then the full description (:func:`ctxviewer.diff.render.describe`). No Qt here.
"""

from __future__ import annotations

from ..columns import DASH, Column, fmt_int
from ..model import ContextItem
from .items import Change, ItemDiff
from .render import CHANGE_LABELS, CHANGE_SYMBOLS, describe


def _pos(item: ContextItem | None) -> str:
    if item is None:
        return ""
    return DASH if item.position is None else str(item.position)


def _status(item: ContextItem | None) -> str:
    if item is None:
        return ""
    if item.status.value == "omitted":
        return f"omitted: {item.omission_reason}" if item.omission_reason else "omitted"
    return "retained"


def change_cell(d: ItemDiff) -> str:
    """``"↕ moved #2"``, ``"+ added"``, ``"= unchanged"``: symbol, word, and the move number."""
    text = f"{CHANGE_SYMBOLS[d.change]} {CHANGE_LABELS[d.change]}"
    if d.change is Change.MOVED:
        text += f" #{d.move_number}"
    if len(d.changes) > 1:
        text += " +" + str(len(d.changes) - 1)
    return text


DIFF_COLUMNS: tuple[Column[ItemDiff], ...] = (
    Column("pos_a", "A pos", lambda d: _pos(d.a), numeric=True, width_chars=4),
    Column("id_a", "A item", lambda d: d.a.id if d.a else "", width_chars=22),
    Column("tokens_a", "A tokens", lambda d: fmt_int(d.tokens_a) if d.a else "", numeric=True, width_chars=6),
    Column("change", "Change", change_cell, width_chars=15, tooltip=describe),
    Column("pos_b", "B pos", lambda d: _pos(d.b), numeric=True, width_chars=4),
    Column("id_b", "B item", lambda d: d.b.id if d.b else "", width_chars=22),
    Column("tokens_b", "B tokens", lambda d: fmt_int(d.tokens_b) if d.b else "", numeric=True, width_chars=6),
    Column("status_b", "B status", lambda d: _status(d.b), width_chars=8,
           tooltip=lambda d: f"A: {_status(d.a) or 'absent'}\nB: {_status(d.b) or 'absent'}"),
    Column("what", "What changed", describe, width_chars=30, tooltip=describe),
)
"""Diff-table columns. Not sortable: the aligned order is the point."""
