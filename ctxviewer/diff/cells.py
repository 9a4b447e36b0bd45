"""What every cell of the diff table says (the GUI's :class:`DiffItemModel` only serves these).

Side by side: A's position, id, tokens and status; the change symbol and word; B's position, id,
tokens and status; then the full description (:func:`ctxviewer.diff.render.describe`). The
evidence-order table has its own columns (:data:`EVIDENCE_COLUMNS`). No Qt here.
"""

from __future__ import annotations

from ctxviewer.diff.items import Change, ItemDiff
from ctxviewer.diff.render import CHANGE_LABELS, CHANGE_SYMBOLS, describe
from ctxviewer.diff.result import EvidencePlace
from ctxviewer.model.trace import ContextItem
from ctxviewer.model.words import fmt_int
from ctxviewer.present.columns import DASH, Column


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


_SHORT: dict[Change, str] = {Change.CONTENT_CHANGED: "content", Change.STATUS_CHANGED: "status",
                             Change.PRIORITY_CHANGED: "priority", Change.RETOKENIZED: "re-tokenized",
                             Change.MOVED: "moved"}


def change_cell(d: ItemDiff) -> str:
    """``"↕ moved #2"``, ``"+ added"``, ``"= unchanged"``: symbol, word, and the move number; a row
    with more than one change shows every symbol and names the others: ``"↕^ moved #2, priority"``."""
    symbols = "".join(CHANGE_SYMBOLS[c] for c in d.changes) or CHANGE_SYMBOLS[d.change]
    text = f"{symbols} {CHANGE_LABELS[d.change]}"
    if d.change is Change.MOVED:
        text += f" #{d.move_number}"
    others = [_SHORT.get(c, CHANGE_LABELS[c]) for c in d.changes if c is not d.change]
    if others:
        text += ", " + ", ".join(others)
    return text


DIFF_COLUMNS: tuple[Column[ItemDiff], ...] = (
    Column("pos_a", "A pos", lambda d: _pos(d.a), numeric=True, width_chars=4),
    Column("id_a", "A item", lambda d: d.a.id if d.a else "", width_chars=22),
    Column("tokens_a", "A tokens", lambda d: fmt_int(d.tokens_a) if d.a else "", numeric=True, width_chars=6),
    Column("change", "Change", change_cell, width_chars=20, tooltip=describe),
    Column("pos_b", "B pos", lambda d: _pos(d.b), numeric=True, width_chars=4),
    Column("id_b", "B item", lambda d: d.b.id if d.b else "", width_chars=22),
    Column("tokens_b", "B tokens", lambda d: fmt_int(d.tokens_b) if d.b else "", numeric=True, width_chars=6),
    Column("status_b", "B status", lambda d: _status(d.b), width_chars=8,
           tooltip=lambda d: f"A: {_status(d.a) or 'absent'}\nB: {_status(d.b) or 'absent'}"),
    Column("what", "What changed", describe, width_chars=30, tooltip=describe),
)
"""Diff-table columns. Not sortable: the aligned order is the point."""


def _rank_move(e: EvidencePlace) -> str:
    if e.rank_a is None and e.rank_b is None:
        return "not sent in either"
    if e.rank_a is None:
        return "sent only in B" if e.position_a is None else "omitted in A"
    if e.rank_b is None:
        return "sent only in A"
    if e.rank_a == e.rank_b:
        return "same place"
    step = e.rank_a - e.rank_b
    return f"{abs(step)} place{'s' if abs(step) != 1 else ''} {'earlier' if step > 0 else 'later'}"


def needed_cell(e: EvidencePlace) -> str:
    """``"needed"`` when the answer needed the document in both requests, ``"needed in A"`` /
    ``"needed in B"`` when only one side names it, else empty."""
    if e.needed_a and e.needed_b:
        return "needed"
    return "needed in A" if e.needed_a else ("needed in B" if e.needed_b else "")


EVIDENCE_COLUMNS: tuple[Column[EvidencePlace], ...] = (
    Column("id", "Document", lambda e: e.id, width_chars=22),
    Column("needed", "Needed", needed_cell, width_chars=8,
           tooltip=lambda e: "The document the answer needed (Table 3.1 row 3): marked by the user, else the "
                             "best match with the question" if e.needed else ""),
    Column("rank_a", "A rank", lambda e: DASH if e.rank_a is None else str(e.rank_a), numeric=True, width_chars=5),
    Column("rank_b", "B rank", lambda e: DASH if e.rank_b is None else str(e.rank_b), numeric=True, width_chars=5),
    Column("pos_a", "A pos", lambda e: DASH if e.position_a is None else str(e.position_a), numeric=True, width_chars=5),
    Column("pos_b", "B pos", lambda e: DASH if e.position_b is None else str(e.position_b), numeric=True, width_chars=5),
    Column("band_a", "A band", lambda e: e.band_a or DASH, width_chars=7),
    Column("band_b", "B band", lambda e: e.band_b or DASH, width_chars=7),
    Column("move", "In B", _rank_move, width_chars=16),
)
"""Evidence-order columns: each document, whether the answer needed it, its rank among the evidence
sent and its request position in A and in B (rows in B's order), its lost-in-the-middle band on
each side (:mod:`ctxviewer.assess.evidence_positions`), and where it went: ``"3 places earlier"``,
``"same place"``."""
