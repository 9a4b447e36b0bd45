"""``ctxviewer show DB TRACE_ID``: one trace's eq. 3.1 verdict, allocations and items in final
order, as text or one JSON object (:mod:`ctxviewer.report.trace_report`), assessed in the
database's context as ``check``, ``list`` and the window assess it.
"""

from __future__ import annotations

import json

import click

from ctxviewer.cli.status import BadInput


@click.command("show", short_help="Show one trace: eq. 3.1 verdict, allocations and items in order.")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_id")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (see README for its keys).")
@click.option("--content", is_flag=True, help="With --json: give each item its text.")
def show_cmd(db: str, trace_id: str, as_json: bool, content: bool) -> None:
    """Show one trace: eq. 3.1 verdict, allocations per category and every item in final order.

    DB is a database file or a ClickHouse store's URL (README: "Team store").

    \b
    Example:
        ctxviewer show sample_traces/samples.db budget-8k --json
    """
    if content and not as_json:  # the text report has no place for the texts: never ignored silently
        raise click.UsageError("--content needs --json")
    from ctxviewer.assess.assessment import assess
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.cli.stores import open_source
    from ctxviewer.diff.conversation import derive_for_display
    from ctxviewer.report.trace_report import format_trace_text, trace_summary
    from ctxviewer.store import StoreError

    try:
        context = context_for_db(db)
    except ValueError as exc:  # a broken ctxviewer.toml or marks file beside DB
        raise BadInput(str(exc)) from None
    store = open_source(db)  # a database file, or a ClickHouse store's URL
    try:
        trace = store.load(trace_id)
        trace = derive_for_display(store, trace)  # dropped between calls, when not recorded
    except KeyError:
        raise BadInput(f"{db}: no trace with id {trace_id!r} (see 'ctxviewer list {db}')") from None
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    finally:
        store.close()
    a = assess(trace, context)  # in the database's context: what check, list and the window say
    if as_json:
        summary = trace_summary(trace, a)
        if content:  # each item's text, as stored
            for entry, item in zip(summary["items"], trace.items):
                entry["text"] = item.content
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        click.echo(format_trace_text(trace, a))
