"""An upgraded copy of an older trace database: the way an old database reaches the current
schema without ever being written to (a database opened for viewing is never upgraded in place).

:func:`upgrade_copy` copies the database with SQLite's online backup (the source is opened
read-only, ``mode=ro``) and then applies the pending schema steps to the copy
(:func:`~ctxviewer.store.schema.migrate`), which back-fills the facts of schema 2 by assessing
every stored trace. A source already at the current schema gets its facts re-assessed with
today's checks in the copy. No Qt here.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from .schema import SCHEMA_VERSION, StoreError, check_file, check_schema, find_damage, inspect
from .store import TraceStore


@dataclass(frozen=True)
class UpgradeResult:
    """What :func:`upgrade_copy` wrote."""

    path: Path
    """The upgraded copy."""
    from_version: int
    """Schema version of the source (``PRAGMA user_version``)."""
    to_version: int
    """Schema version of the copy (:data:`~ctxviewer.store.SCHEMA_VERSION`)."""
    traces: int
    """Number of traces in the copy."""


def upgrade_copy(source: str | Path, target: str | Path) -> UpgradeResult:
    """Write ``source`` upgraded to the current schema into the new file ``target``.

    ``source`` is only read. Raises :class:`StoreError` (naming the file) when ``source`` is not a
    ctxviewer trace database or was written by a newer ctxviewer, when ``target`` already exists
    (never overwritten) or is ``source`` itself, or when the copy cannot be written; a partly
    written ``target`` is removed again.
    """
    src, dst = Path(source), Path(target)
    check_file(src, must_exist=True)
    if dst.exists() or dst.is_symlink():
        raise StoreError(dst, "already exists; choose a new file for the upgraded copy")
    if not dst.parent.is_dir():
        raise StoreError(dst, f"cannot create: folder {dst.parent} does not exist")
    try:
        conn = sqlite3.connect(f"file:{quote(str(src.resolve()))}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(src, f"cannot open: {exc}") from None
    try:
        version, _names = inspect(conn, src)
        if version == 0:
            check_schema(conn, src, writable=False)  # raises: empty or another program's database
        check_schema(conn, src, writable=True)  # not ctxviewer, newer, corrupt
        damage = find_damage(conn, seconds=None)
        if damage:  # the copy would carry it, and re-assessing would then blame the copy
            raise StoreError(src, f"is corrupt ({damage}); nothing was written")
        try:
            out = sqlite3.connect(str(dst))
            with out:
                conn.backup(out)
            out.close()
        except sqlite3.Error as exc:
            raise StoreError(dst, f"cannot write the copy: {exc}") from None
    finally:
        conn.close()
    try:
        with TraceStore.create(dst) as store:
            if version == SCHEMA_VERSION:  # nothing to migrate: refresh the facts with today's checks
                store.reassess()
            count = store.count()
    except BaseException:
        dst.unlink(missing_ok=True)
        raise
    return UpgradeResult(dst, version, SCHEMA_VERSION, count)
