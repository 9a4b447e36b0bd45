"""Scores and feedback as data: evaluation scores, targets, user feedback and annotations kept on
the trace as :data:`SCORES_ATTRIBUTE` (``ctxviewer.scores``), one shape for every source.

Each score is ``{"name", "value", "source", "comment"}``: ``name`` the scorer / feedback key /
annotation name (a string), ``value`` as recorded (a number, a string such as ``"C"``, a bool, or
a small JSON value), ``source`` who gave it (``"inspect scorer"``, ``"langfuse API"``,
``"langfuse ANNOTATION"``, ``"langsmith feedback"``, ``"phoenix LLM"``...), ``comment`` the
explanation or ``None``. The run view reads and filters them. No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

SCORES_ATTRIBUTE = "ctxviewer.scores"
"""Trace attribute: a list of ``{"name", "value", "source", "comment"}`` (see module docstring)."""


def score(name: Any, value: Any, source: str, comment: Any = None) -> dict[str, Any]:
    """One score in the shared shape; ``name`` and ``comment`` as strings (``comment`` ``None``
    when empty). ``value`` is kept as recorded (JSON value)."""
    text = None if comment in (None, "") else str(comment)
    return {"name": str(name), "value": value, "source": source, "comment": text}


def scores_attribute(scores: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``{SCORES_ATTRIBUTE: [...]}`` of ``scores`` in order, or ``{}`` when there are none."""
    found = [dict(s) for s in scores]
    return {SCORES_ATTRIBUTE: found} if found else {}
