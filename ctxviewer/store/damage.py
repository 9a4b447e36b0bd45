"""Damage inside an open trace database: broken pages (:func:`find_damage`, SQLite's
``quick_check`` within a time limit) and an item whose content blob is missing
(:func:`missing_item_blob`). Only reads. No Qt here.
"""

from __future__ import annotations

import sqlite3
import threading

from ctxviewer.util.sqlite_errors import SQLITE_FAILURES, sqlite_message

DAMAGE_SECONDS = 0.5
"""How long :func:`find_damage` may read before giving up (a large database is not checked whole)."""


def find_damage(conn: sqlite3.Connection, *, seconds: float | None = DAMAGE_SECONDS) -> str | None:
    """What SQLite's ``PRAGMA quick_check`` finds wrong in the pages of ``conn``'s database (the
    first three problems, one line), or ``None`` when it finds nothing -- or did not finish within
    ``seconds`` (``None``: no limit; the check is interrupted with ``conn.interrupt()``). Only reads."""
    timer = threading.Timer(seconds, conn.interrupt) if seconds is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        rows = conn.execute("PRAGMA quick_check(3)").fetchall()
    except sqlite3.OperationalError as exc:
        return None if "interrupt" in str(exc) else str(exc)
    except SQLITE_FAILURES as exc:
        return sqlite_message(exc)
    finally:
        if timer is not None:
            timer.cancel()
    lines = [" ".join(line.split()) for r in rows for line in str(r[0]).splitlines()]
    problems = [line for line in lines if line and line != "ok" and not line.startswith("***")]
    return "; ".join(problems[:3])[:300] or None


def missing_item_blob(conn: sqlite3.Connection, trace_id: str) -> str | None:
    """The id of the first item of ``trace_id`` (in final order) whose ``content_hash`` finds no
    ``blobs`` row -- damage the read names rather than returning ``None`` text -- or ``None``.
    Raises ``sqlite3.Error`` when unreadable."""
    row = conn.execute(
        "SELECT i.item_id FROM items i LEFT JOIN blobs b ON b.hash = i.content_hash "
        "WHERE i.trace_id = ? AND i.content_hash IS NOT NULL AND b.hash IS NULL "
        "ORDER BY i.ordinal LIMIT 1", (trace_id,)).fetchone()
    return None if row is None else str(row[0])
