"""Comparing: two request traces item by item, and what was dropped between the calls of one
conversation.

* :func:`diff_traces` (A, B) -> :class:`TraceDiff` (:mod:`.request`, :mod:`.result`): items
  aligned by identity (:mod:`.identity`, :mod:`.items`), per-item changes (:class:`Change`),
  moves, first point of divergence, policy, endpoint and reserve changes, per-category tokens and
  the eq. 3.1 verdict before and after, evidence order, response and tool calls. One frozen
  result for the GUI, the CLI and the tests.
* :func:`word_diff` (text A, text B) -> :class:`WordDiff` (:mod:`.words`): word-level text diff.
* :mod:`.arguments`: which tool-call arguments changed, per key.
* :mod:`.render`: the JSON object and the readable summary of a diff; :mod:`.cells`: what each
  cell of the diff table says.
* :mod:`.conversation`: "dropped between calls" for traces that record no omissions, between two
  calls of one thread; :mod:`.threads`: when a later call continues an earlier one (same agent or
  span lineage, the later input extending the earlier one, the reply matched in any shape);
  :mod:`.session_pair`: a session's call and the call before it (the sessions view's per-call diff).

May import: :mod:`ctxviewer.present`, :mod:`ctxviewer.assess`, :mod:`ctxviewer.store` (to find a
conversation's calls), :mod:`ctxviewer.model`, :mod:`ctxviewer.util`. No Qt here.

A new kind of comparison goes here; its view goes into :mod:`ctxviewer.gui`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxviewer.diff.items import CHANGE_ORDER, Change, ItemDiff, diff_items
    from ctxviewer.diff.request import diff_traces, first_divergence
    from ctxviewer.diff.result import TraceDiff
    from ctxviewer.diff.words import Segment, WordDiff, word_diff

_HOME = {"CHANGE_ORDER": "items", "Change": "items", "ItemDiff": "items", "diff_items": "items",
         "diff_traces": "request", "first_divergence": "request", "TraceDiff": "result",
         "Segment": "words", "WordDiff": "words", "word_diff": "words"}
"""Where each public name lives: imported on first use (``show`` needs only
:mod:`.conversation`, not the whole diff)."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CHANGE_ORDER",
    "Change",
    "ItemDiff",
    "Segment",
    "TraceDiff",
    "WordDiff",
    "diff_items",
    "diff_traces",
    "first_divergence",
    "word_diff",
]
