"""``ctxviewer list DB``: the request traces, oldest first, a page at a time and streamed.

On a terminal ``list`` prints a screenful (the terminal's height less the header and the hint);
into a pipe, or with ``--all``, every row; ``--limit N`` says how many. A page ends, on standard
error, with the cursor of the next one (``--after CURSOR``, keyset paging over the
``(created, trace_id)`` index: :mod:`ctxviewer.store.cursor`). Rows are read as they are printed
-- the table in passes over one read transaction (:func:`ctxviewer.cli.list_table.list_lines`),
``--json`` and ``--jsonl`` one object at a time -- so memory does not grow with the number of
rows. The output of a page is what the whole list printed before paging, for those rows.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import click

from ctxviewer.cli.status import bad_filter
from ctxviewer.cli.stores import filter_query

if TYPE_CHECKING:
    from ctxviewer.store import TraceQuery, TraceStore

SCREEN_RESERVE = 4
"""Lines a screenful leaves free: the header and its rule, the next-page hint and the prompt."""
MIN_SCREEN = 5
"""Rows a screenful holds at least (a very short terminal)."""
ASSESS_BATCH = 100
"""Rows of a ClickHouse store assessed at a time (:meth:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource.assess_rows`)."""


def screenful() -> int:
    """Rows that fit the terminal on standard output (its height less :data:`SCREEN_RESERVE`,
    at least :data:`MIN_SCREEN`); ``-1`` (all) when standard output is not a terminal."""
    if not sys.stdout.isatty():
        return -1
    import shutil  # on a terminal only (bz2 and lzma come with it)

    return max(shutil.get_terminal_size().lines - SCREEN_RESERVE, MIN_SCREEN)


@contextmanager
def snapshot(store: TraceStore) -> Iterator[None]:
    """One read transaction over ``store``: every pass over the rows sees the same rows. When the
    block raises (a damaged page, an interrupt), the transaction is rolled back if SQLite has not
    ended it already, and the block's error is the one raised -- never "cannot commit - no
    transaction is active" in its place."""
    import sqlite3

    conn = store._conn
    conn.execute("BEGIN")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
    if conn.in_transaction:
        conn.execute("COMMIT")


@click.command("list")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
@click.option("--jsonl", is_flag=True, help="Print one JSON object per line (JSON Lines; the --json objects).")
@click.option("--filter", "text", default="", metavar="FILTER",
              help='Display filter, e.g. \'model ~ gpt-4o and omitted > 2 and finding == injection\' (README: "Display filters"); a lone word matches id, model, service or provider.')
@click.option("--wide", is_flag=True,
              help="Every column in full (default: time, trace id, model, retained / omitted, state, "
                   "fitted to 100 columns, long ids and models elided with '…').")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="At most N rows (default: a screenful on a terminal, all into a pipe).")
@click.option("--all", "all_rows", is_flag=True, help="Every row, also on a terminal.")
@click.option("--after", default=None, metavar="CURSOR",
              help="Start after the row of CURSOR (the cursor a page prints on standard error).")
def list_cmd(db: str, as_json: bool, jsonl: bool, text: str, wide: bool, limit: int | None, all_rows: bool,
             after: str | None) -> None:
    """List the request traces in DB, oldest first: by default the main columns fitted to a
    100-column terminal, with --wide every column in full, with --json every field.

    On a terminal a screenful at a time (--limit N, --all), into a pipe every row; when rows are
    left, standard error ends with the cursor of the next page ('--after CURSOR'). Listing every
    row, exit status 2 (after the list) when SQLite finds damaged pages in DB (checked for at most
    half a second, so a large database may not be checked whole); a page checks only what it read.

    DB is a database file or a ClickHouse store's URL (README: "Team store"; its rows are the chat
    spans of the URL's time window, each assessed as it is printed).

    \b
    Example:
        ctxviewer list sample_traces/samples.db --wide
        ctxviewer list sample_traces/samples.db --json
        ctxviewer list sample_traces/samples.db --filter 'state == failure and omitted > 2'
        ctxviewer list traces.db --limit 50 --after eyIyMDI2LTExLTA2IiwiYSJd --jsonl
    """
    from ctxviewer.store import StoreError
    from ctxviewer.store.cursor import CursorError, decode_cursor

    if as_json and jsonl:
        raise click.UsageError("give --json or --jsonl, not both")
    if all_rows and limit is not None:
        raise click.UsageError("give --limit N or --all, not both")
    query = filter_query(text)
    try:
        start = decode_cursor(after) if after is not None else None
    except CursorError as exc:
        raise click.BadParameter(str(exc), param_hint="'--after'") from None
    page = -1 if all_rows else (limit if limit is not None else screenful())
    current = _current(db)
    from ctxviewer.cli.stores import is_store_url, open_db, warn_absent_rules, warn_damage

    if is_store_url(db):
        next_cursor = _print_store(db, text, start, page, as_json=as_json, jsonl=jsonl, wide=wide)
        _more(db, next_cursor, text, limit, as_json=as_json, jsonl=jsonl, wide=wide)
        return

    with open_db(db) as store:
        try:
            warn_absent_rules(store, text)
            with snapshot(store):
                next_cursor, bad_rows = _print(store, query, start, page, current, db, as_json=as_json, jsonl=jsonl,
                                              wide=wide)
        except StoreError as exc:  # e.g. a filter SQLite cannot run: one line, no traceback
            raise click.ClickException(str(exc)) from None
        # the whole list: SQLite's quick_check too (at most half a second); a page read only its rows
        damage = store.damage() if page < 0 and start is None else ""
    _more(db, next_cursor, text, limit, as_json=as_json, jsonl=jsonl, wide=wide)
    # the rows are the facts stored at import; say when the pages behind them are broken
    warn_damage(db, damage, "the rows above were stored at import")
    if bad_rows:  # a row another program wrote: said above its cursor; never a silent success
        from ctxviewer.cli.status import BAD_INPUT

        raise SystemExit(BAD_INPUT)


def _more(db: str, next_cursor: str | None, text: str, limit: int | None, *, as_json: bool, jsonl: bool,
          wide: bool) -> None:
    """The next page's command on standard error, when rows are left."""
    if next_cursor is not None:
        more = (" --jsonl" if jsonl else " --json" if as_json else " --wide" if wide else "") + (
            f" --filter {_word(text)}" if text else "") + (f" --limit {limit}" if limit is not None else "")
        click.echo(f"more rows: ctxviewer list {_word(db)}{more} --after {next_cursor}", err=True)


def _print_store(db: str, text: str, start: tuple[str | None, str] | None, page: int, *, as_json: bool,
                 jsonl: bool, wide: bool) -> str | None:
    """``list`` of a ClickHouse store (:mod:`ctxviewer.pipeline.clickhouse`): keyset pages on
    ``(Timestamp, SpanId)`` (the cursor holds that key), the printed rows assessed a page at a time
    (:meth:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource.assess_rows`: the row the import
    would store, kept in the local sidecar). A filter on the assessment (``state``, ``finding`` ...)
    lists the rows assessed so far that match, and says on standard error that it covers those only."""
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.cli.stores import open_source
    from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
    from ctxviewer.store import StoreError, TraceQuery
    from ctxviewer.store.cursor import encode_cursor
    from ctxviewer.store.filters import FilterError

    source = open_source(db)
    assert isinstance(source, ClickHouseSource)
    context = context_for_db(db)
    source.assessed().context = context  # a filter on the assessment reads the rows assessed in it
    try:
        where, values = source.filter_where(TraceQuery(text=text))
    except FilterError as exc:
        source.close()
        raise bad_filter(exc) from None
    note = source.filter_note(text)
    if note is not None:
        click.echo(f"note: {note}", err=True)
    after = (int(start[0] or 0), start[1]) if start is not None else None
    last: list[tuple[int, str]] = []
    left = [False]

    def rows() -> Iterator[Any]:
        batch: list[Any] = []
        for n, (ns, row) in enumerate(source.stream(after, -1 if page < 0 else page + 1, where, values)):
            if 0 <= page <= n:
                left[0] = True
                break
            last[:] = [(ns, row.trace_id.rpartition(":")[2])]
            batch.append(row)
            if len(batch) >= ASSESS_BATCH:  # assessed a page at a time, through the sidecar
                yield from source.assess_rows(batch, context)
                batch = []
        yield from source.assess_rows(batch, context)

    try:
        if as_json or jsonl:
            _print_json(rows(), context.fingerprint, jsonl)
        else:
            cached = list(rows())  # the table passes over the rows more than once: one page, kept
            _print_table(lambda: iter(cached), context.fingerprint, wide, db)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        source.close()
    return encode_cursor(str(last[0][0]), last[0][1]) if left[0] and last else None


def _word(db: str) -> str:
    from ctxviewer.util.file_kind import shell_word

    return shell_word(db)


def _current(db: str) -> str | None:
    from ctxviewer.cli.stores import current_fingerprint

    return current_fingerprint(db)


def _print(store: TraceStore, query: TraceQuery, start: tuple[str | None, str] | None, page: int,
           current: str | None, db: str, *, as_json: bool, jsonl: bool, wide: bool) -> tuple[str | None, bool]:
    """Print one page of ``query`` after ``start`` (``page`` rows, -1 all), then a warning per row
    that could not be read whole (:attr:`~ctxviewer.store.TraceRow.damaged`); ``(the next page's
    cursor or None when no row is left, whether a row was damaged)``."""
    from ctxviewer.store.cursor import encode_cursor

    last: list[tuple[str | None, str]] = []
    left = [False]
    damaged: dict[str, str] = {}  # trace id -> what in its row cannot be read (a row another program wrote)

    def rows() -> Iterator[Any]:  # one pass: the page's rows, read as taken
        for n, (row, created) in enumerate(store.stream(query, start, -1 if page < 0 else page + 1)):
            if 0 <= page <= n:
                left[0] = True
                return
            last[:] = [(created, row.trace_id)]
            if row.damaged:
                damaged[row.trace_id] = row.damaged
            yield row

    if as_json or jsonl:
        _print_json(rows(), current, jsonl)
    else:
        _print_table(rows, current, wide, db)
    if damaged:  # listed with the value as not recorded; said once per row, then bad input (2)
        from ctxviewer.util.visible import one_line

        for trace_id, problem in damaged.items():
            click.echo(one_line(f"warning: {db}: trace {trace_id}: {problem}; listed as not recorded"), err=True)
    return (encode_cursor(*last[0]) if left[0] and last else None), bool(damaged)


def _print_json(rows: Iterator[Any], current: str | None, jsonl: bool) -> None:
    """``--jsonl``: one compact object a line; ``--json``: the indented list ``json.dumps(rows,
    indent=2)`` prints, written an element at a time."""
    from ctxviewer.report.row_dict import trace_row_to_dict

    first = True
    for r in rows:
        d = trace_row_to_dict(r, current)
        if jsonl:
            click.echo(json.dumps(d, ensure_ascii=False))
            continue
        body = json.dumps(d, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        click.echo(("[\n  " if first else ",\n  ") + body, nl=False)
        first = False
    if not jsonl:
        click.echo("[]" if first else "\n]")


def _print_table(rows: Any, current: str | None, wide: bool, db: str) -> None:
    from ctxviewer.cli.list_table import list_lines
    from ctxviewer.present.columns import STALE_MARK, is_stale

    counts: list[int] = []

    def counted() -> Iterator[Any]:  # every pass sees the same rows: the last one's count is the count
        n = 0
        for r in rows():
            n += is_stale(r, current)
            yield r
        counts.append(n)

    for line in list_lines(counted, current, wide=wide):
        click.echo(line)
    stale = counts[-1] if counts else 0
    if stale:
        from ctxviewer.util.visible import one_line

        click.echo(one_line(f"{STALE_MARK} {stale:,} row(s) were assessed with other settings or an older ctxviewer: "
                            f"show and check read them afresh; 'ctxviewer upgrade {db} -o NEW.db' stores them afresh"),
                   err=True)
