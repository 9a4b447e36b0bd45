"""Scores of a call as the store keeps them (schema 8): one ``trace_scores`` row per score, for the
``score`` display filters (:mod:`ctxviewer.store.filters`), and a one-line summary on the
``traces`` row (``scores``), for the trace list's Scores column.

The importers record scores as the trace attribute ``ctxviewer.scores``: a list of ``{"name",
"value", "source", "comment"}`` (an Inspect AI sample's scorers, a Langfuse score, LangSmith
feedback). Each row keeps the value as recorded (text, or a number; a list or dict as its JSON) and
its ``number``: the value as a number where one is meant -- a number itself, a boolean as 1 / 0, a
numeric string, and Inspect AI's letter grades by Inspect's own rule (``value_to_float``:
``C`` correct 1, ``P`` partial 0.5, ``I`` incorrect 0, ``N`` no answer 0) for a score whose source
is Inspect -- so ``score.match < 1`` finds the wrong answers and ``score == I`` the same by letter.
No Qt here.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Mapping

SCORES_KEY = "ctxviewer.scores"
"""The trace attribute holding the recorded scores (a list of ``{name, value, source, comment}``)."""

TRACE_SCORES_SQL = (
    "CREATE TABLE IF NOT EXISTS trace_scores (trace_id TEXT NOT NULL, ordinal INTEGER NOT NULL, "
    "name TEXT NOT NULL, value, number REAL, source TEXT, PRIMARY KEY (trace_id, ordinal)) WITHOUT ROWID"
)
"""DDL of ``trace_scores`` (schema 8): ``value`` as recorded (TEXT or a number), ``number`` its
numeric meaning (module docstring; NULL when it has none). ``value`` has no declared type, so
SQLite keeps each value as given (text stays text)."""

INSPECT_GRADES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
"""Inspect AI's letter grades as numbers (``inspect_ai.scorer`` ``CORRECT``, ``PARTIAL``,
``INCORRECT``, ``NOANSWER`` under ``value_to_float``)."""

MAX_SUMMARY_CHARS = 120
"""The ``traces.scores`` summary is cut to this many code points (an ellipsis marks the cut)."""


def _number(value: Any, source: str | None) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if source and source.lower().startswith("inspect") and text in INSPECT_GRADES:
            return INSPECT_GRADES[text]
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _stored(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if value is None or isinstance(value, (int, float, str)):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def score_rows(attributes: Mapping[str, Any]) -> list[tuple[str, Any, float | None, str | None]]:
    """``(name, value, number, source)`` per recorded score of a trace with these ``attributes``,
    in recorded order; entries without a name are skipped."""
    scores = attributes.get(SCORES_KEY)
    if not isinstance(scores, (list, tuple)):
        return []
    rows = []
    for s in scores:
        if not isinstance(s, Mapping) or s.get("name") in (None, ""):
            continue
        source = None if s.get("source") is None else str(s.get("source"))
        rows.append((str(s["name"]), _stored(s.get("value")), _number(s.get("value"), source), source))
    return rows


def _shown(value: Any) -> str:
    """A score's value in the summary as ``show`` and the header write it
    (:func:`ctxviewer.assess.trace_header.score_lines`): text and numbers as recorded, anything else
    (a boolean, null, a list) as JSON -- ``false``, not the ``0`` the ``value`` column stores."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _label(name: str, source: str | None) -> str:
    """A score's name in the summary: a correction (Langfuse ``dataType`` CORRECTION, whose source
    reads ``"langfuse ANNOTATION correction on trace"``) says so, as ``show`` does: ``output (correction)``."""
    return f"{name} (correction)" if source and " correction " in f" {source} " else name


def summary(attributes: Mapping[str, Any]) -> str | None:
    """``"match: I"`` / ``"accuracy: 0.5 · includes: C"`` / ``"output (correction): TEXT"``: the
    ``traces.scores`` cell, or ``None`` when the trace recorded no score."""
    rows = score_rows(attributes)
    if not rows:
        return None
    shown = [_shown(s.get("value")) for s in attributes.get(SCORES_KEY) or ()
             if isinstance(s, Mapping) and s.get("name") not in (None, "")]  # the rows' own order
    text = " · ".join(f"{_label(name, source)}: {value}" for (name, _v, _n, source), value in zip(rows, shown))
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 1] + "…"


def write_scores(conn: sqlite3.Connection, trace_id: str, attributes: Mapping[str, Any]) -> None:
    """Replace the ``trace_scores`` rows of ``trace_id`` with those of ``attributes``."""
    conn.execute("DELETE FROM trace_scores WHERE trace_id = ?", (trace_id,))
    conn.executemany("INSERT INTO trace_scores (trace_id, ordinal, name, value, number, source) VALUES (?, ?, ?, ?, ?, ?)",
                     [(trace_id, n, *row) for n, row in enumerate(score_rows(attributes))])


def backfill(conn: sqlite3.Connection) -> int:
    """Fill ``trace_scores`` and ``traces.scores`` from the ``attributes`` of every trace's
    ``details`` JSON (schema step ``m017_trace_scores``). Returns the traces with a score."""
    cur = conn.execute("SELECT trace_id, json_extract(json, '$.attributes') FROM details "  # CASE: in this order
                       "WHERE CASE WHEN json_valid(json) THEN json_type(json, '$.attributes.\"ctxviewer.scores\"') "
                       "END = 'array'")
    n = 0
    for trace_id, attrs in cur.fetchall():
        attributes = json.loads(attrs)
        write_scores(conn, trace_id, attributes)
        conn.execute("UPDATE traces SET scores = ? WHERE trace_id = ?", (summary(attributes), trace_id))
        n += 1
    return n
