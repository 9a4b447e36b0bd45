"""Opening a trace database for a command: :func:`open_db`, read-only, with the import hint for
a trace file given in its place (:func:`ctxviewer.pipeline.hints.open_store`) and every store
error as bad input (exit status 2). Imports the store only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ctxviewer.cli.status import BadInput

if TYPE_CHECKING:
    from ctxviewer.model.trace import RequestTrace
    from ctxviewer.store import TraceQuery, TraceSource, TraceStore


def warn_absent_rules(store: object, text: str) -> None:
    """``note: no trace has a finding 'X'; the findings here: ...`` on standard error when the
    ``--filter`` text names a rule or family no trace of the database has
    (:meth:`~ctxviewer.store.TraceStore.absent_rules_note`; a misspelt rule otherwise lists
    nothing, or everything after ``!=``, without a word). A store without findings of its own
    (a ClickHouse store's rows are assessed as they are read) says nothing here."""
    note = getattr(store, "absent_rules_note", None)
    said = note(text) if note is not None and text.strip() else None
    if said:
        import click

        click.echo(f"note: {said}", err=True)


def filter_query(text: str) -> TraceQuery:
    """The :class:`~ctxviewer.store.TraceQuery` of a ``--filter`` text (``""``: every trace).
    Raises :class:`~ctxviewer.cli.status.BadInput` with the caret message of
    :func:`~ctxviewer.cli.status.bad_filter` when it does not parse."""
    from ctxviewer.store import TraceQuery

    if not text.strip():  # every trace: no grammar to import
        return TraceQuery(text=text)
    from ctxviewer.cli.status import bad_filter
    from ctxviewer.store.filters import FilterError

    try:
        return TraceQuery(text=text)
    except FilterError as exc:
        raise bad_filter(exc) from None


def open_db(db: str) -> TraceStore:
    """``db`` opened read-only. Raises :class:`~ctxviewer.cli.status.BadInput` naming the file
    and what is wrong (not a database, a trace file, an older schema, damaged, or -- for a URL of
    another scheme such as ``http://`` that names no file -- not a store; the argument as given,
    never a path's round trip that collapses its ``//``)."""
    from pathlib import Path

    from ctxviewer.pipeline.hints import open_store
    from ctxviewer.store import StoreError

    if "://" in db and not Path(db).exists():
        from ctxviewer.pipeline.clickhouse.schemes import SCHEMES

        raise BadInput(f"{db}: not a trace database or a clickhouse:// URL "
                       f"(stores: {', '.join(s + '://' for s in SCHEMES)}; else a database file)")

    try:
        return open_store(db)
    except StoreError as exc:
        raise BadInput(str(exc)) from None


def load_trace(db: str, trace_id: str) -> RequestTrace:
    """Trace ``trace_id`` of the database ``db`` -- or of the ClickHouse store at the URL ``db``
    (:func:`open_source`) -- opened read-only for this read and closed.
    Raises :class:`~ctxviewer.cli.status.BadInput` for an id the database does not hold (naming
    ``ctxviewer list DB``) and for a database or trace that cannot be read."""
    from contextlib import closing

    from ctxviewer.store import StoreError

    try:
        with closing(open_source(db)) as store:
            return store.load(trace_id)
    except KeyError:
        raise BadInput(f"{db}: no trace with id {trace_id!r} (see 'ctxviewer list {db}')") from None
    except StoreError as exc:
        raise BadInput(str(exc)) from None


def is_store_url(db: str) -> bool:
    """True when ``db`` names a ClickHouse trace store (``clickhouse://``, ``clickhouses://``,
    ``chdb://``) rather than a database file."""
    from ctxviewer.pipeline.clickhouse.schemes import is_clickhouse_url

    return is_clickhouse_url(db)


def open_source(db: str) -> TraceSource:
    """``db`` opened read-only as a :class:`~ctxviewer.store.TraceSource`: a ClickHouse store for a
    URL (:func:`ctxviewer.pipeline.clickhouse.source.open_clickhouse`; the password from
    ``CTXVIEWER_CLICKHOUSE_PASSWORD``), else the database file (:func:`open_db`). Raises
    :class:`~ctxviewer.cli.status.BadInput` naming the source and what is wrong."""
    if not is_store_url(db):
        return open_db(db)
    from ctxviewer.pipeline.clickhouse.source import open_clickhouse
    from ctxviewer.store import StoreError

    try:
        return open_clickhouse(db)
    except StoreError as exc:
        raise BadInput(str(exc)) from None


def warn_damage(db: str, damage: str | None, shown: str) -> None:
    """After a command printed what it read from ``db``: when SQLite's quick check found
    ``damage`` (:meth:`~ctxviewer.store.TraceStore.damage`), one line on standard error --
    ``warning: DB: is damaged (DAMAGE); SHOWN, the content behind them may not read back
    (ctxviewer check reads every trace)`` -- and exit status 2 (bad input: a damaged file is
    never a silent success). ``shown`` says what was printed ("the rows above were stored at
    import"). Returns when ``damage`` is ``None`` or empty."""
    if not damage:
        return
    import click

    from ctxviewer.cli.status import BAD_INPUT
    from ctxviewer.util.visible import one_line

    click.echo(one_line(f"warning: {db}: is damaged ({damage}); {shown}, the content behind them may not read "
                        "back (ctxviewer check reads every trace)"), err=True)
    raise SystemExit(BAD_INPUT)


def current_fingerprint(db: str) -> str:
    """The fingerprint of ``db``'s current assessment context (``ctxviewer.toml`` and marks beside
    it, :attr:`~ctxviewer.assess.context.AssessContext.fingerprint`): what stored facts are stale
    against. Raises :class:`~ctxviewer.cli.status.BadInput` for a broken ``ctxviewer.toml`` or marks file."""
    from ctxviewer.assess.context import context_for_db

    try:
        return context_for_db(db).fingerprint
    except ValueError as exc:  # a broken ctxviewer.toml or marks file beside DB
        raise BadInput(str(exc)) from None


def stale_calls(store: Any, db: str, query: Any) -> int:
    """How many calls of ``query`` in ``store`` have stored facts (states, fits, window bands)
    computed with other settings or an older ctxviewer than ``db``'s current context
    (``ctxviewer.toml`` and marks beside it; :meth:`~ctxviewer.store.TraceStore.stale_count`);
    0 for a store that keeps no facts of its own. Raises
    :class:`~ctxviewer.cli.status.BadInput` for a broken ``ctxviewer.toml`` or marks file."""
    if not hasattr(store, "stale_count"):
        return 0
    return int(store.stale_count(query, current_fingerprint(db)))


def warn_stale(db: str, stale: int, shown: str) -> None:
    """One line on standard error when ``stale`` calls' stored states went into what was printed
    (``shown``: "the states and context-window bands above"), as ``list`` marks its stale rows:
    ``* N call(s) were assessed with other settings or an older ctxviewer: SHOWN are theirs as stored
    at import; 'ctxviewer upgrade DB -o NEW.db' stores them afresh``. Exit status unchanged."""
    if not stale:
        return
    import click

    from ctxviewer.util.file_kind import shell_word
    from ctxviewer.util.visible import one_line

    click.echo(one_line(f"* {stale:,} call(s) were assessed with other settings or an older ctxviewer: {shown} are "
                        f"theirs as stored at import; 'ctxviewer upgrade {shell_word(db)} -o NEW.db' stores them "
                        "afresh"), err=True)
