"""``ctxviewer search DB QUERY``: full-text search over item content (SQLite FTS5).

Whole-word hits come first, then hits where a word only starts a longer word, each in index
order, the first page without counting every hit (:mod:`ctxviewer.store.fts`
has the query language: every word as a word prefix, ``"quoted phrases"``).
"""

from __future__ import annotations

import json

import click

from ctxviewer.cli.progress import StatusLine, Ticker
from ctxviewer.cli.status import BadInput
from ctxviewer.pipeline.hints import open_store
from ctxviewer.store import StoreError
from ctxviewer.store.fts import query_terms
from ctxviewer.util.visible import one_line


@click.command("search")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of hits (trace_id, item_id, ordinal, snippet, spans).")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(min=0, max=1_000_000_000),
              help="At most this many hits (0: all; at most 1,000,000,000).")
def search_cmd(db: str, query: str, as_json: bool, limit: int) -> None:
    """List the items of DB whose content contains every word of QUERY (each word as a word
    prefix, case-insensitive; "quoted words" as a phrase), with a one-line snippet.

    \b
    Example:
        ctxviewer search sample_traces/samples.db "ignore previous" --json
    """
    if not query_terms(query):  # '' or '*': nothing to match (a usage error, exit status 2)
        raise click.UsageError(f"QUERY needs at least one word (letters or digits), got {query!r}")
    line = StatusLine(enabled=not as_json)  # a terminal only: the search's elapsed time, cleared before the hits
    try:
        with open_store(db) as store, Ticker(line, lambda s: f"searching {db} for {query!r} · {s:.0f} s"):
            hits = store.search_hits(query, limit=-1 if limit == 0 else limit + 1)
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    more = limit > 0 and len(hits) > limit
    hits = hits[:limit] if limit > 0 else hits
    if as_json:
        click.echo(json.dumps([{"trace_id": h.trace_id, "item_id": h.item_id, "ordinal": h.ordinal,
                                "snippet": h.snippet, "spans": [list(s) for s in h.spans]} for h in hits],
                              indent=2, ensure_ascii=False))
        return
    if not hits:
        click.echo(f"no item content matches {query!r}")
        return
    for h in hits:
        # one hit per line, tab-separated: ids and snippet revealed on one line (ctxviewer.util.visible.one_line)
        # before click sees them (click would strip an ESC sequence from piped output, not show it). No
        # bold for the matched words: the inert terminal stream (cli_output) would show its ESC as ␛[1m.
        click.echo(f"{one_line(h.trace_id)}\t{one_line(h.item_id)}\t{one_line(h.snippet)}")
    if more:
        click.echo(f"(first {limit} hits; --limit 0 lists all)", err=True)
