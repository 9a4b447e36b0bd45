"""The errors of the trace database: :class:`StoreError` (every failure to open, read or write a
database; its message names the file) and the two cases a front end answers with advice,
:class:`NotADatabaseError` (a trace file given where a database was expected) and
:class:`OldSchemaError` (an older schema, never upgraded in place); :class:`WrongDatabaseError`
(another program's database, or a newer ctxviewer's) is bad input, not a failed write. No Qt here.
"""

from __future__ import annotations

from pathlib import Path

from ctxviewer.store.migrations import SCHEMA_VERSION

READ_ONLY = "the file is read-only; cannot import into it"
""":class:`StoreError` problem for a database the user cannot write (file mode or SQLite refusal)."""


class StoreError(Exception):
    """A trace database cannot be opened or written. The message names the file and the problem."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


class NotADatabaseError(StoreError):
    """The file is not an SQLite database at all (no ``SQLite format 3`` header): often a trace
    *file* given where a database was expected. The front ends say what it looks like and how to
    import it (:func:`ctxviewer.pipeline.hints.open_store`)."""

    def __init__(self, path: Path | str, problem: str = "is not an SQLite database (no 'SQLite format 3' header)") -> None:
        super().__init__(path, problem)


class WrongDatabaseError(StoreError):
    """The file is an SQLite database, but not one this ctxviewer reads or writes into: another
    program's (no trace tables, or an empty one), a damaged schema version, a corrupt file (its
    header cut short, an invalid page size, shorter than its header says), or a newer
    ctxviewer's schema. Bad input, not a failed write: ``import -o`` exits 2 for it, as every
    reader does (new-user finding F15)."""


class OldSchemaError(StoreError):
    """A database of an older schema was opened read-only, or given to a command that writes into
    it (``import -o``, ``whatif --save``): it is never upgraded in place. The message offers
    ``ctxviewer upgrade`` (an upgraded copy, :func:`ctxviewer.store.upgrade_copy`); ``writing`` says
    which case (the wording differs: "is opened read-only" or "is not written into")."""

    def __init__(self, path: Path | str, version: int, missing: tuple[str, ...] = (), *,
                 writing: bool = False) -> None:
        what = (f"uses an older schema ({version}; current {SCHEMA_VERSION})" if version < SCHEMA_VERSION
                else f"lacks schema steps of this ctxviewer ({', '.join(missing)})")
        if writing:
            problem = (f"{what}, so it is not written into (it is never upgraded in place); write an "
                       f"upgraded copy with `ctxviewer upgrade {path} -o NEW.db` and use that")
        else:
            problem = (f"{what} and is opened read-only, so it is not upgraded in place; write an upgraded "
                       f"copy with `ctxviewer upgrade {path} -o NEW.db` and open that")
        super().__init__(path, problem)
        self.version = version
        self.missing = missing


BAD_TARGETS = (NotADatabaseError, WrongDatabaseError, OldSchemaError)
"""What a database given to be written into (``import -o``, ``whatif --save``, ``replay --save``)
can be that is bad input (exit status 2) and is left untouched: not a database at all (a trace
file, a text file), another program's or a newer ctxviewer's, or an older schema."""
