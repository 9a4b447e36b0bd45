"""Which import may remove a new database file it found nothing for.

An import into a file that does not exist yet creates it, and removes it again when nothing was
imported (no traces, a cancel, an error), so no empty database is left behind. Two imports may
run into one new file at once (the second waits for the first's transaction): only the one that
created the file may remove it, and only while no other import is using it and it holds no
traces -- else it would delete the other import's work, committed or still in its transaction.

:class:`NewFileClaim` holds both facts for one import:

* the file is created with ``O_EXCL`` (:func:`os.open`): of two imports, exactly one created it;
* every import holds a shared ``flock`` on the file while it runs; removing needs the exclusive
  lock without waiting, so it fails while another import holds the shared one. (``flock`` locks
  are separate from SQLite's own ``fcntl`` locks on local file systems; where there is no
  ``fcntl`` module, only the O_EXCL and "holds no traces" checks apply.)

No Qt here.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from types import TracebackType

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

READ_WAIT_S = 10.0
"""How long the "holds no traces" check waits for another writer's lock (s)."""


class NewFileClaim:
    """``with NewFileClaim(db_path) as claim:`` around one import into ``db_path`` (module
    docstring); :meth:`may_remove` inside the block says whether this import may delete the file.
    Never raises for the file itself: a path that cannot be created or opened here is left to the
    store, which says why."""

    def __init__(self, db_path: str | Path) -> None:
        self.path = Path(db_path)
        self.created = False
        """Whether this import created the file (``O_EXCL``)."""
        self._fd: int | None = None

    def __enter__(self) -> NewFileClaim:
        self.created = _create_exclusively(self.path)
        try:
            self._fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            self._fd = None
        if self._fd is not None and fcntl is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_SH)  # waits only while another import is removing it
            except OSError:
                pass
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the lock
            self._fd = None

    def may_remove(self) -> bool:
        """Whether this import may delete the file now: it created it, no other import holds it
        (the exclusive lock, taken without waiting, is then kept until the block ends) and it holds
        no traces."""
        if not self.created:
            return False
        if self._fd is not None and fcntl is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # another import is using the file: its work stays
                return False
        return _holds_no_traces(self.path)


def _create_exclusively(path: Path) -> bool:
    """Create ``path`` as an empty file if nothing is there; whether this call created it (``False``
    also when it cannot be created here)."""
    if not os.access(path.parent, os.W_OK):
        return False
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    except OSError:
        return False
    return True


def _holds_no_traces(path: Path) -> bool:
    """Whether the database is still without committed traces. A file without the traces table
    (still empty, or the schema never built) counts as empty; one another writer keeps locked
    for :data:`READ_WAIT_S` does not."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=READ_WAIT_S)
        try:
            return conn.execute("SELECT 1 FROM traces LIMIT 1").fetchone() is None
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        return "locked" not in str(exc) and "busy" not in str(exc)
    except sqlite3.Error:
        return True
