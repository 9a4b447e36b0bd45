"""``ctxviewer report DB [TRACE_ID...] -o FILE.html``: the self-contained HTML audit report
(:func:`ctxviewer.report.audit_report.render_report`). Registered on the group in :mod:`ctxviewer.cli`."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import click

from ctxviewer.util.visible import one_line


@click.command("report")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_ids", nargs=-1)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="HTML file to write.")
@click.option("--review-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Review file to read verdicts from (default: beside DB, else the user data directory).")
def report_cmd(db: str, trace_ids: tuple[str, ...], output: str, review_file: str | None) -> None:
    """Write one self-contained HTML report of traces in DB (all, or TRACE_IDs).

    Per trace: state, eq. 3.1 verdict, the budget chart as an embedded image, every finding with
    the flagged text shown literally (escaped, invisible characters made visible) and the
    reviewer's verdict, note, reviewer and time from DB's review file (beside DB, else the user
    data directory; or --review-file). No scripts, nothing fetched. DB may be a ClickHouse
    store's URL (README: "Team store"): the chat spans of its time window.

    \b
    Example:
        ctxviewer report sample_traces/samples.db ticket-injection -o ticket.html
    """
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.cli.status import BadInput
    from ctxviewer.cli.stores import open_source
    from ctxviewer.cli.write import check_output, write_output
    from ctxviewer.diff.conversation import derive_for_display
    from ctxviewer.report.audit_report import render_report
    from ctxviewer.report.sarif import db_reviews
    from ctxviewer.review.verdicts import ReviewFileError
    from ctxviewer.store import StoreError, TraceQuery

    inputs = [db, *([review_file] if review_file else [])]
    check_output(output, inputs)
    try:
        context = context_for_db(db)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    try:
        with closing(open_source(db)) as store:  # a database file, or a ClickHouse store's URL
            ids = list(dict.fromkeys(trace_ids)) or [r.trace_id for r in store.list(TraceQuery(), 0, -1)]
            traces = []
            for tid in ids:
                try:
                    traces.append(derive_for_display(store, store.load(tid)))
                except KeyError:
                    raise BadInput(f"{db}: no trace with id {tid!r} (see 'ctxviewer list {db}')") from None
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    try:
        reviews = db_reviews(db, review_file)
    except ReviewFileError as exc:  # a corrupt review file is bad input, not a traceback
        raise BadInput(str(exc)) from None
    html = render_report(traces, reviews, title=f"ctxviewer audit report: {Path(db).name}", context=context)
    write_output(output, inputs, lambda fh: fh.write(html), json_text=False)
    if output == "-":
        return
    click.echo(one_line(f"wrote {output}: {len(traces)} trace(s)"))
