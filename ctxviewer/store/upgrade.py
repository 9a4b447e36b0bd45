"""An upgraded copy of an older trace database: the way an old database reaches the current
schema without ever being written to (a database opened for viewing is never upgraded in place).

:func:`upgrade_copy` copies the database with SQLite's online backup (the source is opened
read-only, ``mode=ro``) and then applies the pending schema steps to the copy
(:func:`~ctxviewer.store.migrate.migrate`), then hands the copy to the caller's ``after`` step (the
back-fill of facts, :mod:`ctxviewer.pipeline.backfill`: the store never assesses). The copy is written to a temporary file in the target's folder
(``.NEW.db.upgrading-<random>``) and renamed to the target only when complete, so an interrupted
upgrade never leaves a partial target; the temporary file is removed on any error, Ctrl+C or
SIGTERM (turned into an exception while the upgrade runs, so the cleanup runs; it takes effect
when the SQL statement running at the time returns). No Qt here.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ctxviewer.store.damage import find_damage
from ctxviewer.store.errors import StoreError
from ctxviewer.store.file_check import check_file
from ctxviewer.store.migrations import SCHEMA_VERSION
from ctxviewer.store.schema_check import check_schema, inspect
from ctxviewer.store.trace_store import TraceStore
from ctxviewer.util.interrupt import sigterm_exits
from ctxviewer.util.new_file import create_unique
from ctxviewer.util.sqlite_errors import sqlite_message


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


def upgrade_copy(source: str | Path, target: str | Path,
                 progress: Callable[[str], None] | None = None,
                 after: Callable[[TraceStore, int], None] | None = None) -> UpgradeResult:
    """Write ``source`` upgraded to the current schema into the new file ``target``.

    ``source`` is only read. The copy is built in a temporary file beside ``target`` and renamed
    to ``target`` when complete; on any failure, Ctrl+C or SIGTERM the temporary file (and its
    journal) is removed and ``target`` does not exist. ``progress`` gets one line per stage
    (``"copying OLD.db"``, ``"schema step 3 of 8: m007_traces_facts"``). ``after(store,
    from_version)`` runs on the upgraded copy before it is renamed (the back-fill of facts:
    :func:`ctxviewer.pipeline.backfill.upgrade_with_facts`); what it raises fails the upgrade.
    Raises :class:`StoreError` (naming the file) when ``source`` is not a ctxviewer trace database
    or was written by a newer ctxviewer, when ``target`` already exists (never overwritten) or is
    ``source`` itself, or when the copy cannot be written. A SIGTERM exits the process (status
    143) after the cleanup.
    """
    src, dst = Path(source), Path(target)
    say = progress or (lambda _line: None)
    check_file(src, must_exist=True)
    if dst.exists() or dst.is_symlink():
        raise StoreError(dst, "already exists; choose a new file for the upgraded copy")
    if not dst.parent.is_dir():
        raise StoreError(dst, f"cannot create: {dst.parent} is not a folder" if dst.parent.exists()
                             else f"cannot create: folder {dst.parent} does not exist")
    try:
        conn = sqlite3.connect(f"file:{quote(str(src.resolve()))}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(src, f"cannot open: {exc}") from None
    tmp: Path | None = None
    try:
        with sigterm_exits():  # kill PID: SystemExit(143) here, so the cleanup below runs
            try:
                version, _names = inspect(conn, src)
                if version == 0:
                    check_schema(conn, src, writable=False)  # raises: empty or another program's database
                check_schema(conn, src, writable=True)  # not ctxviewer, newer, corrupt
                damage = find_damage(conn, seconds=None)
                if damage:  # the copy would carry it, and re-assessing would then blame the copy
                    raise StoreError(src, f"is corrupt ({damage}); nothing was written")
                try:
                    tmp = create_unique(dst.parent, f".{dst.name}.upgrading-")  # the umask's mode
                    say(f"copying {src}")
                    out = sqlite3.connect(str(tmp))
                    with out:
                        conn.backup(out)
                    out.close()
                except (sqlite3.Error, UnicodeDecodeError, OSError) as exc:
                    raise StoreError(dst, f"cannot write the copy: {sqlite_message(exc)}") from None
            finally:
                conn.close()
            with TraceStore.create(tmp, upgrade=True, progress=say) as store:
                if after is not None:  # e.g. the back-fill of facts (ctxviewer.pipeline.backfill)
                    after(store, version)
                count = store.count()
            _vacuum(tmp, say)
            if dst.exists() or dst.is_symlink():  # created meanwhile by someone else: never overwritten
                raise StoreError(dst, "already exists; choose a new file for the upgraded copy")
            os.replace(tmp, dst)
            tmp = None
    except BaseException:
        _remove(tmp)
        raise
    return UpgradeResult(dst, version, SCHEMA_VERSION, count)


FREE_SHARE = 0.1
"""Share of free pages above which :func:`upgrade_copy` rewrites the copy (``VACUUM``): a schema step
that rebuilt a table (schema 9's compaction) leaves the old pages free inside the file."""


def _vacuum(path: Path, say: Callable[[str], None]) -> None:
    """``VACUUM`` the upgraded copy at ``path`` when more than :data:`FREE_SHARE` of its pages are free."""
    conn = sqlite3.connect(str(path))
    try:
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        if pages and free / pages > FREE_SHARE:
            say(f"compacting the copy ({free:,} of {pages:,} pages free)")
            conn.execute("VACUUM")
    except sqlite3.Error as exc:
        raise StoreError(path, f"cannot compact the copy: {sqlite_message(exc)}") from None
    finally:
        conn.close()


def _remove(tmp: Path | None) -> None:
    """Remove the temporary copy and any journal SQLite left beside it."""
    if tmp is None:
        return
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
