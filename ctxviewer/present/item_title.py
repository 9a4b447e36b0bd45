"""An item's one-line title (the content pane's heading) and the note on items the exporter
truncated, in the item-table wording (:mod:`ctxviewer.present.columns`). No Qt here."""

from __future__ import annotations

from ctxviewer.model.trace import NOT_RECORDED, ContextItem
from ctxviewer.model.words import fmt_int
from ctxviewer.present.columns import item_status_words
from ctxviewer.util.visible import one_line

TRUNCATED_WORDS = "truncated by the exporter"
"""What an item whose stored text the exporter cut says (:func:`ctxviewer.assess.truncated.truncation`)."""


def item_title(item: ContextItem, truncated: bool = False) -> str:
    """The one-line title of an item's content, in the item-table wording, e.g.
    ``"KB-1014 — evidence, untrusted, 354 tokens, omitted: budget"``; a ``truncated`` item says so
    after its count (``"26 tokens of truncated text (truncated by the exporter)"``)."""
    tokens = f"{fmt_int(item.tokens)} tokens" if item.tokens is not None else f"tokens {NOT_RECORDED}"
    if truncated:
        tokens += f" of truncated text ({TRUNCATED_WORDS})"
    return one_line(f"{item.id} — {item.kind_label}, {item.trust.value}, {tokens}, {item_status_words(item)}")


def truncated_note(item_ids: tuple[str, ...]) -> str | None:
    """The line under the item table naming the items whose text the exporter truncated, or ``None``:
    ``"truncated by the exporter: msg-0 (their counts are of the captured text only)"``."""
    if not item_ids:
        return None
    return one_line(f"{TRUNCATED_WORDS}: {', '.join(item_ids)} (their counts are of the captured text only)")
