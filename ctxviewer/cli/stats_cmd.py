"""``ctxviewer stats DB [--filter F] [--by model|session|day] [--json]``: calls, tokens, cost,
latency, states and context-window use over the traces of DB or a display filter, by model, by
session or by day -- :meth:`ctxviewer.store.TraceStore.aggregate`, one SQL pass over the narrow
``traces`` columns.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

import click

from ctxviewer.cli.simple_table import simple_table
from ctxviewer.cli.status import BadInput
from ctxviewer.cli.stores import filter_query, stale_calls, warn_absent_rules, warn_damage, warn_stale
from ctxviewer.pipeline.hints import open_store
from ctxviewer.pipeline.model_calls import left_out_words, model_calls_filter
from ctxviewer.present.stats_cells import cost_sum, token_sum
from ctxviewer.store import StoreError, TraceQuery, TraceStore
from ctxviewer.store.aggregates import GROUP_KEYS
from ctxviewer.store.group_sums import WINDOW_BANDS, Group
from ctxviewer.util.visible import one_line


def _ms(value: float | None) -> str:
    return "not recorded" if value is None else f"{value:,.0f}"


def _row(label: str, g: Group) -> list[str]:
    return [label, f"{g.calls:,}", token_sum(g.input_tokens, g.input_known, g.calls),
            token_sum(g.output_tokens, g.output_known, g.calls), cost_sum(g.cost, g.cost_known, g.calls),
            _ms(g.duration_mean_ms),
            _ms(g.duration_max_ms), f"{g.ok:,}/{g.warning:,}/{g.failure:,}", f"{g.errors:,}",
            " ".join(f"{n:,}" for n in g.window) if sum(g.window) else "not recorded"]  # no C recorded: not 0s


def stats_table(total: Group, groups: list[Group], by: str | None) -> str:
    """The text table of ``stats``: one row per group, then the total (input: the counted input
    tokens, output: the reported output tokens -- "not recorded" when no call of the group recorded
    them, "≥ N (k not recorded)" when some did not --, cost in US
    dollars with how many calls' price is not known, mean / max duration in ms, states ok / warning /
    failure, span errors, calls per context-window band)."""
    headers = [by or "", "calls", "counted input", "output", "cost", "mean ms", "max ms", "ok/warn/fail",
               "errors", "C used " + " ".join(b[0] for b in WINDOW_BANDS)]
    rows = [_row(one_line(g.key) if g.key is not None else "not recorded", g) for g in groups]
    rows.append(_row("total", total))
    # tabulate's simple layout, in one pass (tabulate itself took 11 s for 220,717 sessions)
    return simple_table(rows, headers, [False] + [True] * (len(headers) - 1))


def _echo_json(by: str | None, total: Group, groups: list[Group]) -> None:
    """``{"by", "total", "groups"}`` as one JSON document, a group a line, written as it is made
    (one string of 220,717 sessions' groups took 1.2 GB). A sum SQLite overflowed to an infinity
    (durations of 1e308 ms) is written ``null``: JSON has no infinity."""
    dump = functools.partial(json.dumps, ensure_ascii=False, allow_nan=False)

    def finite(d: dict[str, Any]) -> dict[str, Any]:
        return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in d.items()}

    click.echo(f'{{"by": {dump(by)}, "total": {dump(finite(total.to_dict()))}, "groups": [')
    last = len(groups) - 1
    for i, g in enumerate(groups):
        click.echo("  " + dump(finite(g.to_dict())) + ("," if i < last else ""))
    click.echo("]}")


@click.command("stats")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--filter", "text", default="", metavar="FILTER", help="Display filter (as for list): only the traces it keeps.")
@click.option("--by", type=click.Choice(list(GROUP_KEYS)), default=None, help="One row per model, session or UTC day.")
@click.option("--json", "as_json", is_flag=True, help="Print {total, groups} as JSON (every sum with how many calls recorded it).")
def stats_cmd(db: str, text: str, by: str | None, as_json: bool) -> None:
    """Sum the traces of DB (or those FILTER keeps): calls, input / output tokens, cost from the
    recorded usage (genai-prices; calls whose price is not known are counted apart, never as $0),
    mean and max span duration, states, span errors and context-window use ((input + reserved output) / C in bands, as eq. 3.1 decided it).

    \b
    Example:
        ctxviewer stats sample_traces/samples.db --by model
        ctxviewer stats traces.db --filter 'score.match < 1' --json
    """
    query = filter_query(text)
    lone = 0
    try:
        with open_store(db) as store:
            warn_absent_rules(store, text)
            if isinstance(store, TraceStore):  # a tool run imported on its own is no model call (nu3 #10)
                calls, lone = model_calls_filter(store, text)
                query = TraceQuery(text=calls) if lone else query
            total, groups = store.aggregate(query, by)
            stale = stale_calls(store, db, query)
            damage = store.damage()  # the sums read the list columns only: say when other pages are broken
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    if as_json:
        _echo_json(by, total, groups)
    else:
        click.echo(stats_table(total, groups, by))
    if lone:
        click.echo(f"note: {left_out_words(lone)}", err=True)
    warn_stale(db, stale, "the states and context-window bands above")
    warn_damage(db, damage, "the sums above are of the rows stored at import")
