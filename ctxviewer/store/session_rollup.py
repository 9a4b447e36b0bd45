"""The per-session rollup (schema 12): each session's sums (:data:`~ctxviewer.store.group_sums.SUMS_SQL`)
stored in ``session_rollup``, so ``ctxviewer stats --by session`` over a million traces reads one
row per session instead of summing every trace again (220,717 sessions: 19 aggregate steps per
trace were about 1 s).

How it stays right, whoever writes:

* triggers on ``traces`` (insert, the row an ``OR REPLACE`` conflict replaces -- by ``trace_id`` or
  ``rowid`` --, delete, and an update of the session or a summed column) only *mark* the sessions they
  touch in ``session_rollup_stale``
  -- marking is idempotent, so it is right whether SQLite fires the delete trigger of a replaced
  row or not (``PRAGMA recursive_triggers``) and whoever wrote the row (our import, the live
  receiver, a benchmark's direct SQL, a user's ``sqlite3``);
* a writer of this package re-sums the marked sessions before it commits (:func:`refresh`), from
  ``idx_traces_aggregate_session`` one session at a time (the calls with no session only when they
  are marked), or the whole table when a quarter or more are marked;
* a reader (:data:`READ_SQL`) takes the stored row of every unmarked session and sums the marked
  ones from ``traces`` in the same statement (one snapshot): the answer equals the ``GROUP BY``
  over ``traces`` even when a writer did not refresh.

A session is keyed by its ``session_id``; the calls with none are keyed ``X''`` (an empty BLOB,
which no TEXT session id equals; :data:`NO_SESSION`). No Qt here.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ctxviewer.store.group_sums import SUMS_SQL

ROLLUP_TABLE = "session_rollup"
STALE_TABLE = "session_rollup_stale"
NO_SESSION = b""
"""The key of the calls that recorded no session (``X''``)."""

SUM_COLUMNS = ("calls", "input_tokens", "input_known", "output_tokens", "output_known", "cost", "cost_known",
               "duration_sum_ms", "duration_max_ms", "duration_known", "ok", "warning", "failure", "errors",
               "window_under_50", "window_under_80", "window_under_90", "window_under_100", "window_known")
"""The rollup's columns after ``k``: :data:`~ctxviewer.store.group_sums.SUMS_SQL`'s 19 values in its
order (counts of calls; tokens; US dollars; ms)."""

_KEY = "CASE WHEN {0}session_id IS NULL THEN X'' ELSE {0}session_id END"

ROLLUP_DDL = (f"CREATE TABLE IF NOT EXISTS {ROLLUP_TABLE} (k PRIMARY KEY, "
              + ", ".join(f"{c} {'REAL' if c in ('cost', 'duration_sum_ms', 'duration_max_ms') else 'INTEGER'}"
                          for c in SUM_COLUMNS) + ") WITHOUT ROWID")
"""DDL of ``session_rollup``: ``k`` the session id (TEXT) or :data:`NO_SESSION`, then :data:`SUM_COLUMNS`."""
STALE_DDL = f"CREATE TABLE IF NOT EXISTS {STALE_TABLE} (k PRIMARY KEY) WITHOUT ROWID"
"""DDL of ``session_rollup_stale``: the keys whose stored sums a write has made stale."""


def _mark(value_sql: str, source: str = "") -> str:
    """One statement marking the key ``value_sql`` stale (no conflict clause, so the firing
    statement's ``OR REPLACE`` cannot change what it does)."""
    return (f"INSERT INTO {STALE_TABLE} (k) SELECT v FROM (SELECT {value_sql} AS v{source}) "
            f"WHERE NOT EXISTS (SELECT 1 FROM {STALE_TABLE} WHERE k = v);")


TRIGGERS: tuple[str, ...] = (
    f"CREATE TRIGGER IF NOT EXISTS session_rollup_insert AFTER INSERT ON traces BEGIN "
    f"{_mark(_KEY.format('NEW.'))} END",
    f"CREATE TRIGGER IF NOT EXISTS session_rollup_replace BEFORE INSERT ON traces BEGIN "
    f"{_mark(_KEY.format(''), ' FROM traces WHERE trace_id = NEW.trace_id OR rowid = NEW.rowid')} END",
    f"CREATE TRIGGER IF NOT EXISTS session_rollup_update_replace BEFORE UPDATE OF trace_id, rowid ON traces BEGIN "
    f"{_mark(_KEY.format(''), ' FROM traces WHERE (trace_id = NEW.trace_id OR rowid = NEW.rowid) AND rowid <> OLD.rowid')} END",
    f"CREATE TRIGGER IF NOT EXISTS session_rollup_delete AFTER DELETE ON traces BEGIN "
    f"{_mark(_KEY.format('OLD.'))} END",
    "CREATE TRIGGER IF NOT EXISTS session_rollup_update AFTER UPDATE OF session_id, input_tokens, output_tokens, "
    "cost, duration_ms, state, span_status, capacity, window_used, window_capacity ON traces BEGIN "
    f"{_mark(_KEY.format('OLD.'))} {_mark(_KEY.format('NEW.'))} END",
)
"""The triggers that mark a written session stale (the module docstring says why only mark); the
two BEFORE ones mark the row an ``OR REPLACE`` conflict will delete -- by ``trace_id`` or by
``rowid`` (``traces`` is a rowid table) -- whose delete trigger SQLite fires only with
``recursive_triggers`` on."""

_COLUMNS = ", ".join(SUM_COLUMNS)
READ_SQL = (
    f"SELECT k, {_COLUMNS} FROM {ROLLUP_TABLE} WHERE k NOT IN (SELECT k FROM {STALE_TABLE}) "
    f"UNION ALL SELECT session_id, {SUMS_SQL} FROM traces "
    f"WHERE session_id IN (SELECT k FROM {STALE_TABLE}) GROUP BY session_id "
    f"UNION ALL SELECT NULL, {SUMS_SQL} FROM (SELECT 1 FROM {STALE_TABLE} WHERE k = X'') CROSS JOIN traces "
    "WHERE session_id IS NULL GROUP BY session_id"
)
"""Every session's sums in one statement: the stored row of each unmarked session, and the marked
ones summed from ``traces``; rows ``(key, *19 sums)`` in no particular order (:func:`read`
orders them)."""


def create(conn: sqlite3.Connection) -> None:
    """Create the rollup tables and triggers (the schema-12 step), empty: the schema-14 step adds the
    window columns :data:`SUMS_SQL` reads and fills the rollup (:func:`rebuild`); in the caller's
    transaction. Raises ``sqlite3.DatabaseError`` as SQLite does."""
    conn.execute(ROLLUP_DDL)
    conn.execute(STALE_DDL)
    for ddl in TRIGGERS:
        conn.execute(ddl)


def remake_update_trigger(conn: sqlite3.Connection) -> None:
    """Drop and create ``session_rollup_update`` as :data:`TRIGGERS` has it now (the schema-14 step:
    an update of ``window_used`` or ``window_capacity`` marks the session too). In the caller's
    transaction; raises ``sqlite3.DatabaseError`` as SQLite does."""
    conn.execute("DROP TRIGGER IF EXISTS session_rollup_update")
    conn.execute(TRIGGERS[-1])


def rebuild(conn: sqlite3.Connection) -> None:
    """Sum every session again from ``traces`` into an emptied rollup and unmark them all, in the
    caller's transaction. Raises ``sqlite3.DatabaseError`` as SQLite does."""
    conn.execute(f"DELETE FROM {ROLLUP_TABLE}")
    conn.execute(f"INSERT INTO {ROLLUP_TABLE} (k, {_COLUMNS}) SELECT {_KEY.format('')}, {SUMS_SQL} "
                 "FROM traces GROUP BY session_id")
    conn.execute(f"DELETE FROM {STALE_TABLE}")


def refresh(conn: sqlite3.Connection) -> int:
    """Re-sum the sessions marked stale and unmark them, inside the caller's write transaction
    (before its COMMIT). Sums one session at a time from ``idx_traces_aggregate_session``, or the
    whole table when a quarter or more of the sessions are marked (an import into a new file).
    Returns the sessions that were marked. Raises ``sqlite3.DatabaseError`` as SQLite does."""
    stale = int(conn.execute(f"SELECT count(*) FROM {STALE_TABLE}").fetchone()[0])
    if not stale:
        return 0
    stored = int(conn.execute(f"SELECT count(*) FROM {ROLLUP_TABLE}").fetchone()[0])
    if stale * 4 >= stored:
        rebuild(conn)
        return stale
    conn.execute(f"DELETE FROM {ROLLUP_TABLE} WHERE k IN (SELECT k FROM {STALE_TABLE})")
    conn.execute(f"INSERT INTO {ROLLUP_TABLE} (k, {_COLUMNS}) SELECT session_id, {SUMS_SQL} FROM traces "
                 f"WHERE session_id IN (SELECT k FROM {STALE_TABLE}) GROUP BY session_id")
    conn.execute(f"INSERT INTO {ROLLUP_TABLE} (k, {_COLUMNS}) SELECT X'', {SUMS_SQL} FROM "
                 f"(SELECT 1 FROM {STALE_TABLE} WHERE k = X'') CROSS JOIN traces WHERE session_id IS NULL "
                 "GROUP BY session_id")  # the join: no walk of the sessionless calls unless they are marked
    conn.execute(f"DELETE FROM {STALE_TABLE}")
    return stale


def read(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Every session's ``(session_id or None, *19 sums)`` (:data:`READ_SQL`), the calls without a
    session first, then by session id (the order of ``GROUP BY session_id``). Raises
    ``sqlite3.DatabaseError`` as SQLite does."""
    rows = conn.execute(READ_SQL).fetchall()
    keyed = [r if not isinstance(r[0], bytes) else (None, *r[1:]) for r in rows]
    keyed.sort(key=lambda r: (r[0] is not None, r[0] or ""))
    return keyed
