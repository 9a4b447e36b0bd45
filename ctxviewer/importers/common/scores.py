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


def langfuse_score(s: Mapping[str, Any], on: str) -> dict[str, Any]:
    """A Langfuse score (``fern`` ``ScoreV1``: ``name``, ``value``, ``stringValue``,
    ``longStringValue``, ``dataType`` NUMERIC | BOOLEAN | CATEGORICAL | CORRECTION, ``source`` EVAL |
    API | ANNOTATION, ``comment``) in the shared shape. ``value``: the number (NUMERIC), a bool
    (BOOLEAN), the category (CATEGORICAL's ``stringValue``), the corrected output (CORRECTION's
    ``longStringValue``). ``on`` says what the score is about (``"trace"``, ``"observation"``):
    ``source`` is ``"langfuse EVAL on trace"``, a correction's ``"langfuse ANNOTATION correction on trace"``."""
    kind = str(s.get("dataType") or "NUMERIC")
    value: Any = s.get("value")
    if kind == "BOOLEAN" and isinstance(value, (int, float)):
        value = bool(value)
    elif kind == "CATEGORICAL" and s.get("stringValue") is not None:
        value = s["stringValue"]
    elif kind == "CORRECTION":
        value = s.get("longStringValue") or s.get("stringValue")
    what = " correction" if kind == "CORRECTION" else ""
    return score(s.get("name"), value, f"langfuse {s.get('source') or 'API'}{what} on {on}", s.get("comment"))
