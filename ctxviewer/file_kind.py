"""What a file is, for the message shown when a trace database was expected and something else came.

``ctxviewer traces.jsonl`` or ``ctxviewer open spans.otlp.json`` names a trace *file*, not a
trace database: the store refuses it (no SQLite header). Rather than only "not an SQLite
database", the store's error (:class:`~ctxviewer.store.StoreError`, raised for every command and
for the window's File > Open alike) says what the file looks like and the command that imports
it. "What it looks like" is the importer registry's own detection
(:meth:`ctxviewer.importers.Registry.detect`: the most confident importer's ``description`` and
``name``), so the hint never disagrees with what ``ctxviewer import`` would do.
"""

from __future__ import annotations

import shlex
from pathlib import Path


def suggested_database(path: str | Path) -> str:
    """The database name offered for importing ``path``: its name up to the first dot, plus
    ``.db``, in the same folder (``spans.otlp.json`` -> ``spans.db``; ``x/traces.jsonl`` ->
    ``x/traces.db``)."""
    p = Path(path)
    stem = p.name.split(".", 1)[0] or p.name
    return str(p.with_name(f"{stem}.db"))


def not_a_database_message(path: str | Path) -> str | None:
    """For a non-SQLite ``path`` that an importer recognises, the words after ``"{path}: "``::

        is not a trace database; it looks like ctxviewer native JSON Lines (one trace per line),
        format 'native'. Import it with: ctxviewer import traces.jsonl -o traces.db

    ``None`` when no importer recognises the file (or it cannot be read). Paths in the command are
    shell-quoted. Call it only for files already known not to be SQLite databases.
    """
    from .importers import REGISTRY, ImportFailed

    try:
        importer = REGISTRY.detect(Path(path))
    except ImportFailed:
        return None
    command = f"ctxviewer import {shlex.quote(str(path))} -o {shlex.quote(suggested_database(path))}"
    return (
        f"is not a trace database; it looks like {importer.description}, format {importer.name!r}. "
        f"Import it with: {command}"
    )
