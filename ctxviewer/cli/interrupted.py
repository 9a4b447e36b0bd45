"""Ctrl+C says what was kept: ``interrupted: nothing was written; traces.db is as it was`` on
standard error and exit status 130 (:data:`ctxviewer.cli.status.INTERRUPTED`, 128 + SIGINT, what
a shell reports for a process stopped by Ctrl+C), instead of click's bare ``Aborted!``.

A command wraps its work in :func:`says_what_was_kept` with a function that words what is on disk
at that moment (``import``: one transaction, so nothing; ``check`` and ``export``: their ``-o``
file is written whole at the end or not at all, :func:`ctxviewer.cli.output_path.atomic_writer`).
A Ctrl+C elsewhere (another command, start-up) still ends with ``interrupted`` and status 130
(:func:`ctxviewer.cli.output.run`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from ctxviewer.cli.progress import StatusLine
from ctxviewer.cli.status import INTERRUPTED
from ctxviewer.util.visible import one_line


@contextmanager
def says_what_was_kept(kept: Callable[[], str], line: StatusLine | None = None) -> Iterator[None]:
    """Run the block; on Ctrl+C (``KeyboardInterrupt``) clear the progress ``line``, print
    ``interrupted: <kept()>`` on standard error and raise ``SystemExit(130)``; on SIGTERM inside
    :func:`ctxviewer.util.interrupt.sigterm_exits` (:class:`~ctxviewer.util.interrupt.Terminated`)
    print ``terminated: <kept()>`` and let it end the process with 143. The block's own cleanup (a
    transaction rolled back, a new database removed, a temporary file deleted) has run by then, so
    ``kept()`` words what is really left."""
    from ctxviewer.util.interrupt import Terminated

    try:
        yield
    except Terminated:
        if line is not None:
            line.clear()
        click.echo(one_line(f"terminated: {kept()}"), err=True)
        raise
    except KeyboardInterrupt:
        if line is not None:
            line.clear()
        click.echo(one_line(f"interrupted: {kept()}"), err=True)
        raise SystemExit(INTERRUPTED) from None


def _count(db: str, sql: str, *params: int) -> int | None:
    """The one number ``sql`` gives on ``db``, read through a read-only connection; ``None`` when
    it cannot be read (a probe only: a database it cannot read is the import's to report)."""
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{os.path.abspath(db)}?mode=ro", uri=True, timeout=1)
        try:
            return int(con.execute(sql, params).fetchone()[0] or 0)
        finally:
            con.close()
    except Exception:
        return None


def trace_mark(db: str) -> int | None:
    """The highest row id of ``db``'s traces now (0 for none; ``None`` when it cannot be read): an
    import writes every trace as a new row (a replaced id too), so a higher mark after an
    interrupt means its transaction had committed."""
    return _count(db, "SELECT max(rowid) FROM traces")


def import_kept(db: str, existed: bool, mark: int | None = None) -> str:
    """What an interrupted import left: ``"nothing was written; traces.db is as it was (the import
    is one transaction)"`` for a database that existed, ``"nothing was written; new.db was not
    created"`` for one it would have created (removed again on the way out:
    :func:`ctxviewer.pipeline.importing.import_into`) -- unless the interrupt came after the
    transaction committed (``mark``, :func:`trace_mark` before the import, is below the mark now):
    then ``"the import had committed: 400 trace(s) written to traces.db before the interrupt"``."""
    now = trace_mark(db) if os.path.lexists(db) else None
    if now is not None and now > (mark or 0):
        n = _count(db, "SELECT count(*) FROM traces WHERE rowid > ?", mark or 0) or 0
        return f"the import had committed: {n:,} trace(s) written to {db} before the interrupt"
    if existed:
        return f"nothing was written; {db} is as it was (the import is one transaction)"
    if not os.path.lexists(db):
        return f"nothing was written; {db} was not created"
    return f"nothing was written; {db} holds no trace of this import"

