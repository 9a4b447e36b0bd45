"""What each cell of the content-search hits says (the window's Search Content dock).

One :class:`~ctxviewer.present.columns.Column` per cell, so the search dock shows trace text the way
the trace list and the item table do: the trace id through
:func:`ctxviewer.util.visible.visible_id` (the trace list's Trace id cell), the item id and the
snippet through :func:`ctxviewer.util.visible.one_line` (what every ``Column`` applies), so a
right-to-left override never reorders an id on screen and a zero-width space reads ``⟨ZWSP⟩``. The
stored ids are not changed (opening a hit uses them). Tooltips are the full text, revealed the same
way. No Qt here and no store: a hit is anything with the fields of :class:`SearchHitLike`.
"""

from __future__ import annotations

from typing import Protocol

from ctxviewer.present.columns import Column
from ctxviewer.util.visible import visible_id


class SearchHitLike(Protocol):
    """The fields of ``ctxviewer.store.fts.SearchHit`` the dock shows (read-only)."""

    @property
    def trace_id(self) -> str:
        """The trace holding the item, as stored."""

    @property
    def item_id(self) -> str:
        """The item's id, as stored."""

    @property
    def snippet(self) -> str:
        """A one-line window of the content around the match (already revealed by the store)."""


SEARCH_COLUMNS: tuple[Column[SearchHitLike], ...] = (
    Column("trace_id", "Trace", lambda h: visible_id(h.trace_id), width_chars=22, tooltip=lambda h: h.trace_id),
    Column("item_id", "Item", lambda h: h.item_id, width_chars=16, tooltip=lambda h: h.item_id),
    Column("snippet", "Snippet", lambda h: h.snippet, width_chars=60, tooltip=lambda h: h.snippet),
)
"""The dock's columns in order: Trace, Item, Snippet (their ``format`` is the cell's text)."""
