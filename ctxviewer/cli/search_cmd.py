"""``ctxviewer search DB QUERY``: full-text search over item content (SQLite FTS5; on a
ClickHouse store's URL the same query language read in place, :mod:`ctxviewer.pipeline.clickhouse.search`).

Whole-word hits come first, then hits where a word only starts a longer word, each in index
order, the first page without counting every hit (:mod:`ctxviewer.store.fts`
has the query language: every word as a word prefix, ``"quoted phrases"``). Hits are read a page
of :data:`PAGE` at a time and printed as they come (``--json`` an element at a time, ``--jsonl``
a line each), so memory does not grow with ``--limit 0``; when hits are left, standard error
names the cursor of the next page (``--after CURSOR``, :mod:`ctxviewer.store.cursor`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing, nullcontext
from typing import TYPE_CHECKING, Any

import click

from ctxviewer.cli.status import BadInput

if TYPE_CHECKING:
    from ctxviewer.store import TraceSource
    from ctxviewer.store.fts import SearchHit

PAGE = 500
"""Hits read from the index at a time."""


@click.command("search")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of hits (trace_id, item_id, ordinal, snippet, spans).")
@click.option("--jsonl", is_flag=True, help="Print one JSON object per hit and line (JSON Lines; the --json objects).")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(min=0, max=1_000_000_000),
              help="At most this many hits (0: all; at most 1,000,000,000).")
@click.option("--after", default=None, metavar="CURSOR",
              help="Start after the hit of CURSOR (the cursor a page names on standard error).")
def search_cmd(db: str, query: str, as_json: bool, jsonl: bool, limit: int, after: str | None) -> None:
    """List the items of DB whose content contains every word of QUERY (each word as a word
    prefix, case-insensitive; "quoted words" as a phrase), with a one-line snippet. DB may be a
    ClickHouse store's URL (README: "Team store"): its time window is searched in place.

    \b
    Example:
        ctxviewer search sample_traces/samples.db "ignore previous" --json
    """
    from ctxviewer.cli.progress import StatusLine
    from ctxviewer.cli.stores import open_source, warn_damage
    from ctxviewer.store import StoreError, TraceStore
    from ctxviewer.store.cursor import CursorError, decode_search_cursor, encode_search_cursor
    from ctxviewer.store.fts import query_terms

    if as_json and jsonl:
        raise click.UsageError("give --json or --jsonl, not both")
    if not query_terms(query):  # '' or '*': nothing to match (a usage error, exit status 2)
        raise click.UsageError(f"QUERY needs at least one word (letters or digits), got {query!r}")
    try:
        start = decode_search_cursor(after) if after is not None else None
    except CursorError as exc:
        raise click.BadParameter(str(exc), param_hint="'--after'") from None
    line = StatusLine(enabled=not (as_json or jsonl))  # a terminal only: the search's elapsed time, cleared before the hits
    printed: list[SearchHit] = []  # the last hit printed
    count, more = 0, False
    try:
        with closing(open_source(db)) as store:
            first = True
            for h in _hits(store, query, start, limit, line, db):
                if limit and count == limit:
                    more = True
                    break
                if first:
                    line.clear()
                _print_hit(h, first, as_json=as_json, jsonl=jsonl)
                first = False
                printed[:] = [h]
                count += 1
            if as_json:
                click.echo("[]" if first else "\n]")
            elif first and not jsonl:
                click.echo(f"no item content matches {query!r}")
            # the hits come from the full-text index: say when other pages are broken (a first page
            # only; SQLite's quick check, at most half a second; a database file, not a ClickHouse store)
            damage = store.damage() if start is None and isinstance(store, TraceStore) else None
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    if more and not as_json:  # --json says nothing on standard error (as before paging)
        from ctxviewer.util.file_kind import shell_word

        opts = (" --jsonl" if jsonl else "") + (f" --limit {limit}" if limit != 50 else "")
        click.echo(f"(first {limit} hits; --limit 0 lists all; the next: ctxviewer search {shell_word(db)} "
                   f"{shell_word(query)}{opts} --after {encode_search_cursor(printed[-1].cursor)})", err=True)
    warn_damage(db, damage, "the hits above come from the full-text index")


def _hits(store: TraceSource, query: str, start: tuple[int, int, int] | None, limit: int, line: Any,
          db: str) -> Iterator[SearchHit]:
    """Every hit after ``start``, a page at a time (the first under the elapsed-time line): at
    most ``limit`` + 1 of them (0: all), so the caller knows whether any is left."""
    from ctxviewer.cli.progress import Ticker

    after, left, ticking = start, (limit + 1 if limit else -1), True
    while left != 0:
        want = PAGE if left < 0 else min(PAGE, left)
        with Ticker(line, lambda s: f"searching {db} for {query!r} · {s:.0f} s") if ticking else nullcontext():
            page = store.search(query, after=after, limit=want)
        ticking = False
        yield from page.hits
        left = left if left < 0 else left - len(page.hits)
        if page.next is None:
            return
        after = page.next


def _print_hit(h: SearchHit, first: bool, *, as_json: bool, jsonl: bool) -> None:
    from ctxviewer.util.visible import one_line

    if as_json or jsonl:
        d = {"trace_id": h.trace_id, "item_id": h.item_id, "ordinal": h.ordinal, "snippet": h.snippet,
             "spans": [list(s) for s in h.spans]}
        if jsonl:
            click.echo(json.dumps(d, ensure_ascii=False))
        else:
            click.echo(("[\n  " if first else ",\n  ") + json.dumps(d, indent=2, ensure_ascii=False).replace("\n", "\n  "),
                       nl=False)
        return
    # one hit per line, tab-separated: ids and snippet revealed on one line (ctxviewer.util.visible.one_line)
    # before click sees them (click would strip an ESC sequence from piped output, not show it). No
    # bold for the matched words: the inert terminal stream (cli_output) would show its ESC as ␛[1m.
    click.echo(f"{one_line(h.trace_id)}\t{one_line(h.item_id)}\t{one_line(h.snippet)}")
