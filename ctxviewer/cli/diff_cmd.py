"""``ctxviewer diff``: compare two request traces item by item.

A thin command over :func:`ctxviewer.diff.diff_traces` and :mod:`ctxviewer.diff.render`; the
window's diff view shows the same result object.
"""

from __future__ import annotations

import json

import click

from ctxviewer.cli.status import BadInput
from ctxviewer.cli.stores import load_trace


@click.command("diff")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_a")
@click.argument("trace_b")
@click.option("--against", "other_db", default=None, type=click.Path(dir_okay=False),
              help="Read TRACE_B from this database instead of DB.")
@click.option("--json", "as_json", is_flag=True, help="Print the diff as one JSON object (see README for its keys).")
def diff_cmd(db: str, trace_a: str, trace_b: str, other_db: str | None, as_json: bool) -> None:
    """Compare TRACE_A (before) with TRACE_B (after, e.g. its replay), item by item.

    Items are aligned by identity, so a reordered item is reported as moved, never as removed and
    added. Prints the first point of divergence, policy and endpoint changes, tokens per category
    and the eq. 3.1 verdict before and after, the evidence order, every changed item (with its
    changed words), the response and the tool calls. DB (and --against) may be a ClickHouse
    store's URL (README: "Team store").

    \b
    Example:
        ctxviewer diff sample_traces/samples.db budget-8k budget-8k-replay
        ctxviewer diff old.db trace-17 trace-17 --against new.db --json
    """
    from ctxviewer.assess.assessment import assess
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.diff import diff_traces
    from ctxviewer.diff.render import diff_json, format_diff_text

    a = load_trace(db, trace_a)
    b = load_trace(other_db or db, trace_b)
    try:  # each side in its own database's context, as show and check read it
        ctx_a, ctx_b = context_for_db(db), context_for_db(other_db or db)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    result = diff_traces(a, b, (assess(a, ctx_a), assess(b, ctx_b)))
    if as_json:
        click.echo(json.dumps(diff_json(result), indent=2, ensure_ascii=False))
    else:
        click.echo(format_diff_text(result))
