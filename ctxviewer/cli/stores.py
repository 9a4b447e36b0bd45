"""Opening a trace database for a command: :func:`open_db`, read-only, with the import hint for
a trace file given in its place (:func:`ctxviewer.pipeline.hints.open_store`) and every store
error as bad input (exit status 2). Imports the store only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxviewer.cli.status import BadInput

if TYPE_CHECKING:
    from ctxviewer.store import TraceStore


def open_db(db: str) -> TraceStore:
    """``db`` opened read-only. Raises :class:`~ctxviewer.cli.status.BadInput` naming the file
    and what is wrong (not a database, a trace file, an older schema, damaged)."""
    from ctxviewer.pipeline.hints import open_store
    from ctxviewer.store import StoreError

    try:
        return open_store(db)
    except StoreError as exc:
        raise BadInput(str(exc)) from None
