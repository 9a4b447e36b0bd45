"""Item-level diff: align the items of two traces by identity and say what changed for each pair.

Alignment (:mod:`ctxviewer.diff.identity`): policy by id and version, tool definitions by name,
evidence and other items by kind + id, messages by id and -- when the id finds no partner -- by
content hash; messages whose ids are only indexes (``msg-3``, OTel and provider logs) pair by
content, then by place between paired neighbours. A pair whose relative order among the items sent in both requests changed is
**moved** (the fewest such items: everything outside a longest increasing subsequence of the
positions), never removed + added; an item that only shifted because others moved or were added
keeps its old and new position but is not a move.

Each :class:`ItemDiff` lists its changes in :data:`CHANGE_ORDER`; ``change`` is the first. The
aligned rows come in B's order, with removed items placed after their nearest kept predecessor
in A. No Qt here.
"""

from __future__ import annotations

import bisect
import enum
from collections import defaultdict, deque
from dataclasses import dataclass

from ctxviewer.diff.identity import MESSAGE_KINDS, content_digest, identity, is_positional_id, normalise_content
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, Status


class Change(str, enum.Enum):
    """What happened to one aligned item between trace A and trace B."""

    UNCHANGED = "unchanged"
    ADDED = "added"
    REMOVED = "removed"
    MOVED = "moved"
    CONTENT_CHANGED = "content_changed"
    STATUS_CHANGED = "status_changed"
    """Retained <-> omitted, or omitted for another reason (both reasons are kept on the row)."""
    PRIORITY_CHANGED = "priority_changed"
    RETOKENIZED = "retokenized"
    """Same content, different token count: an accounting change, content identical."""


CHANGE_ORDER: tuple[Change, ...] = (
    Change.ADDED,
    Change.REMOVED,
    Change.STATUS_CHANGED,
    Change.CONTENT_CHANGED,
    Change.MOVED,
    Change.PRIORITY_CHANGED,
    Change.RETOKENIZED,
    Change.UNCHANGED,
)
"""Precedence of changes: an item's ``change`` is the first of its changes in this order."""


@dataclass(frozen=True)
class ItemDiff:
    """One aligned row: item ``a`` of trace A and/or item ``b`` of trace B (``None`` = absent)."""

    kind: Kind
    """Kind of the item (B's when both exist)."""
    id: str
    """Item id (B's when both exist)."""
    a: ContextItem | None
    b: ContextItem | None
    index_a: int | None
    """0-based index of ``a`` in ``A.items`` (final order, omitted included)."""
    index_b: int | None
    """0-based index of ``b`` in ``B.items``."""
    changes: tuple[Change, ...]
    """All changes, in :data:`CHANGE_ORDER`; ``(UNCHANGED,)`` when there are none."""
    move_number: int | None = None
    """1-based number of this move among the moved items (in B's order); ``None`` unless moved."""
    paired_by_content: bool = False
    """True when the pair was found by content hash because the ids differ (messages)."""

    @property
    def change(self) -> Change:
        """The most important change (first of :attr:`changes`)."""
        return self.changes[0]

    @property
    def position_a(self) -> int | None:
        """1-based position of ``a`` in request A; ``None`` when absent or omitted."""
        return self.a.position if self.a is not None else None

    @property
    def position_b(self) -> int | None:
        """1-based position of ``b`` in request B; ``None`` when absent or omitted."""
        return self.b.position if self.b is not None else None

    @property
    def tokens_a(self) -> int | None:
        """Tokens of ``a``; ``None`` when absent or not recorded."""
        return self.a.tokens if self.a is not None else None

    @property
    def tokens_b(self) -> int | None:
        """Tokens of ``b``; ``None`` when absent or not recorded."""
        return self.b.tokens if self.b is not None else None

    @property
    def is_change(self) -> bool:
        """True unless the row is unchanged."""
        return self.changes != (Change.UNCHANGED,)


def _changes(a: ContextItem, b: ContextItem, norm_a: str | None, norm_b: str | None) -> list[Change]:
    out: list[Change] = []
    if a.status is not b.status or (a.status is Status.OMITTED and a.omission_reason != b.omission_reason):
        out.append(Change.STATUS_CHANGED)  # omitted for another reason is a status change too
    same_content = norm_a == norm_b and norm_a is not None
    if not same_content and (norm_a is not None or norm_b is not None or a.tokens != b.tokens):
        out.append(Change.CONTENT_CHANGED)
    if a.priority != b.priority:
        out.append(Change.PRIORITY_CHANGED)
    if same_content and a.tokens != b.tokens:
        out.append(Change.RETOKENIZED)
    return out


def _pair(ta: RequestTrace, tb: RequestTrace) -> tuple[dict[int, int], set[int], list[str | None], list[str | None]]:
    """Map A index -> B index; also the B indexes paired by content, and normalised contents."""
    norm_a = [normalise_content(i.content) for i in ta.items]
    norm_b = [normalise_content(i.content) for i in tb.items]
    keys_b: dict[tuple[str, ...], deque[int]] = defaultdict(deque)
    for j, it in enumerate(tb.items):
        keys_b[identity(it, tb)].append(j)
    pairs: dict[int, int] = {}
    used_b: set[int] = set()
    deferred: list[int] = []
    for i, it in enumerate(ta.items):
        cands = keys_b.get(identity(it, ta))
        if not cands:
            deferred.append(i)
            continue
        if it.kind in MESSAGE_KINDS and norm_a[i] != norm_b[cands[0]]:
            deferred.append(i)  # same id, other text: try a content match first (OTel ids are indexes)
            continue
        j = cands.popleft()
        pairs[i] = j
        used_b.add(j)
    by_content: set[int] = set()
    # by role + content, across message kinds: last call's user request is this call's history
    digests_b: dict[str, deque[int]] = defaultdict(deque)
    for j, it in enumerate(tb.items):
        if j not in used_b and it.kind in MESSAGE_KINDS:
            d = content_digest(it)
            if d is not None:
                digests_b[d].append(j)
    still: list[int] = []
    for i in deferred:
        it = ta.items[i]
        d = content_digest(it) if it.kind in MESSAGE_KINDS else None
        cands = digests_b.get(d) if d is not None else None
        while cands and cands[0] in used_b:
            cands.popleft()
        if cands:
            j = cands.popleft()
            pairs[i] = j
            used_b.add(j)
            if tb.items[j].id != it.id:
                by_content.add(j)
        else:
            still.append(i)
    positional = [i for i in still if ta.items[i].kind in MESSAGE_KINDS and is_positional_id(ta.items[i].id)]
    for i in still:  # same identity, changed content
        if i in positional:
            continue
        cands = keys_b.get(identity(ta.items[i], ta))
        while cands and cands[0] in used_b:
            cands.popleft()
        if cands:
            j = cands.popleft()
            pairs[i] = j
            used_b.add(j)
    _pair_in_gaps(positional, ta, tb, pairs, used_b)
    return pairs, by_content, norm_a, norm_b


def _pair_in_gaps(left: list[int], ta: RequestTrace, tb: RequestTrace, pairs: dict[int, int], used_b: set[int]) -> None:
    """Pair messages whose ids are only indexes (``msg-3``) by place: between the partners of the
    nearest paired neighbours (never across them: a dropped turn), the leftover A messages pair in
    order with the unpaired B messages there only when both sides hold as many, role for role (an
    edited turn of a replay). It is a count rule: a gap of five earlier turns in A against one new
    question in B (a conversation summarised between two calls) pairs nothing, the question being no
    edit of the first turn; one old turn against one new question pairs as "content changed", which
    nothing recorded tells from an edit."""
    gaps: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i in left:
        lo = max((pairs[k] for k in range(i - 1, -1, -1) if k in pairs), default=-1)
        hi = next((pairs[k] for k in range(i + 1, len(ta.items)) if k in pairs), len(tb.items))
        gaps[(lo, hi)].append(i)
    for (lo, hi), in_a in gaps.items():
        in_b = [j for j in range(lo + 1, hi) if j not in used_b and tb.items[j].kind in MESSAGE_KINDS]
        if len(in_b) != len(in_a) or any(ta.items[i].role != tb.items[j].role for i, j in zip(in_a, in_b)):
            continue
        for i, j in zip(in_a, in_b):
            pairs[i] = j
            used_b.add(j)


def _moved(pairs: dict[int, int], ta: RequestTrace, tb: RequestTrace) -> set[int]:
    """A indexes of the moved pairs: sent in both requests but outside a longest increasing
    subsequence of B positions taken in A order (O(n log n))."""
    seq = [(i, tb.items[j].position) for i, j in sorted(pairs.items())
           if ta.items[i].position is not None and tb.items[j].position is not None]
    tails: list[int] = []  # tails[k] = smallest B position ending an increasing run of length k+1
    tail_idx: list[int] = []
    prev: list[int] = [-1] * len(seq)
    for n, (_i, pos) in enumerate(seq):
        assert pos is not None
        k = bisect.bisect_left(tails, pos)
        if k == len(tails):
            tails.append(pos)
            tail_idx.append(n)
        else:
            tails[k] = pos
            tail_idx[k] = n
        prev[n] = tail_idx[k - 1] if k else -1
    keep: set[int] = set()
    n = tail_idx[-1] if tail_idx else -1
    while n >= 0:
        keep.add(seq[n][0])
        n = prev[n]
    return {i for i, _pos in seq if i not in keep}


def diff_items(ta: RequestTrace, tb: RequestTrace) -> tuple[ItemDiff, ...]:
    """The aligned rows of ``ta`` (A) against ``tb`` (B), in B's order with removed items placed
    after their nearest paired predecessor in A (module docstring)."""
    pairs, by_content, norm_a, norm_b = _pair(ta, tb)
    moved = _moved(pairs, ta, tb)
    rows: list[tuple[tuple[int, int, int], ItemDiff]] = []
    paired_b = {j: i for i, j in pairs.items()}
    for j, b in enumerate(tb.items):
        i = paired_b.get(j)
        if i is None:
            rows.append(((j, 0, 0), ItemDiff(b.kind, b.id, None, b, None, j, (Change.ADDED,))))
            continue
        a = ta.items[i]
        ch = _changes(a, b, norm_a[i], norm_b[j])
        if i in moved:
            ch.append(Change.MOVED)
        ordered = tuple(c for c in CHANGE_ORDER if c in ch) or (Change.UNCHANGED,)
        rows.append(((j, 0, 0), ItemDiff(b.kind, b.id, a, b, i, j, ordered, paired_by_content=j in by_content)))
    anchor = -1
    for i, a in enumerate(ta.items):
        if i in pairs:
            anchor = pairs[i]
            continue
        rows.append(((anchor, 1, i), ItemDiff(a.kind, a.id, a, None, i, None, (Change.REMOVED,))))
    rows.sort(key=lambda r: r[0])
    out: list[ItemDiff] = []
    number = 0
    for _key, d in rows:
        if Change.MOVED in d.changes:
            number += 1
            d = ItemDiff(d.kind, d.id, d.a, d.b, d.index_a, d.index_b, d.changes, number, d.paired_by_content)
        out.append(d)
    return tuple(out)


def retained_sequence(trace: RequestTrace) -> list[ContextItem]:
    """The items sent, in request order (by ``position``, then final order)."""
    sent = [(i.position if i.position is not None else 0, n, i) for n, i in enumerate(trace.items)
            if i.status is Status.RETAINED]
    return [i for _p, _n, i in sorted(sent, key=lambda t: (t[0], t[1]))]
