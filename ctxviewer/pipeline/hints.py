"""The hint for a trace file opened as a trace database: what it looks like and the command
that imports it.

``ctxviewer traces.jsonl`` or ``ctxviewer open spans.otlp.json`` names a trace *file*, not a trace
database: the store refuses it (:class:`~ctxviewer.store.NotADatabaseError`: no SQLite header).
Rather than only "not an SQLite database", the front ends open databases through
:func:`open_store` / :func:`create_store`, whose error says what the file looks like and the
command that imports it. "What it looks like" is the importer registry's own detection
(:meth:`ctxviewer.importers.Registry.detect`: the most confident importer's ``description`` and
``name``), so the hint never disagrees with what ``ctxviewer import`` would do. It lives here, above
both the store and the importers, because neither may know the other. No Qt here.
"""

from __future__ import annotations

from pathlib import Path

from ctxviewer.store import NotADatabaseError, StoreError, TraceStore
from ctxviewer.util.file_kind import shell_word, suggested_database


def open_store(path: str | Path) -> TraceStore:
    """:meth:`TraceStore.open <ctxviewer.store.TraceStore.open>` (read-only), with the import hint
    (:func:`with_hint`) when ``path`` is a trace file. Raises :class:`~ctxviewer.store.StoreError`."""
    try:
        return TraceStore.open(path)
    except NotADatabaseError as exc:
        raise with_hint(exc) from None


def create_store(path: str | Path) -> TraceStore:
    """:meth:`TraceStore.create <ctxviewer.store.TraceStore.create>` (create or open writable), with
    the import hint when ``path`` is a trace file; any other file that is not a database is said
    to be left as it is (``"F: is not an SQLite database (no 'SQLite format 3' header); it is never
    overwritten: give a trace database or a new file"``). Raises :class:`~ctxviewer.store.StoreError`."""
    try:
        return TraceStore.create(path)
    except NotADatabaseError as exc:
        hinted = with_hint(exc)
        if hinted is exc:
            raise NotADatabaseError(exc.path, f"{exc.problem}; it is never overwritten: give a trace database or a "
                                              "new file") from None
        raise hinted from None


def with_hint(exc: NotADatabaseError) -> StoreError:
    """``exc`` with its problem replaced by :func:`not_a_database_message` when an importer
    recognises the file; ``exc`` itself otherwise."""
    message = not_a_database_message(exc.path)
    return NotADatabaseError(exc.path, message) if message else exc


def not_a_database_message(path: str | Path) -> str | None:
    """For a non-SQLite ``path`` that an importer recognises, the words after ``"{path}: "``::

        is not a trace database; it looks like ctxviewer native JSON Lines (one trace per line),
        format 'native'. Import it with: ctxviewer import traces.jsonl -o traces.db

    ``None`` when no importer recognises the file (or it cannot be read). Paths in the command are
    shell words (:func:`shell_word`: quoted, invisible characters as escapes). Call it only for files already known not to be SQLite databases.
    """
    looks = trace_format(path)  # the registry loads only for such a file
    if looks is None:
        return None
    command = f"ctxviewer import {shell_word(str(path))} -o {shell_word(suggested_database(path))}"
    return f"is not a trace database; it looks like {looks}. Import it with: {command}"


def trace_format(path: str | Path) -> str | None:
    """What trace file ``path`` looks like to the importer registry, in words
    (``"Inspect AI eval logs (.json EvalLog and .eval zip, zstd members included), format
    'inspect_ai'"``: the detected importer's description and name), or ``None`` when no importer
    recognises it (or it cannot be read)."""
    from ctxviewer.importers import REGISTRY, ImportFailed  # the registry loads only when asked

    try:
        importer = REGISTRY.detect(Path(path))
    except ImportFailed:
        return None
    return f"{importer.description}, format {importer.name!r}"
