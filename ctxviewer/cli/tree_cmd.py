"""``ctxviewer tree DB TRACE_ID``: the run a model call belongs to (or the run TRACE_ID names) as an
indented tree -- every step the file held, with durations, status, and the tokens and cost of each
model call (:mod:`ctxviewer.present.run_tree`, read from the store's ``run_spans``, or from a
ClickHouse store's OTel trace: :mod:`ctxviewer.pipeline.clickhouse.runs`).
"""

from __future__ import annotations

import json
from contextlib import closing
from typing import Any

import click

from ctxviewer.cli.status import BadInput
from ctxviewer.cli.stores import open_source, warn_damage
from ctxviewer.present.run_tree import build_tree, run_totals, tree_lines
from ctxviewer.store import StoreError
from ctxviewer.util.visible import one_line


def _json_node(node: object) -> dict[str, object]:
    step = node.step  # type: ignore[attr-defined]
    sp = step.span
    return {"span_id": sp.span_id, "parent_id": sp.parent_id, "kind": sp.kind, "name": sp.name,
            "start": None if sp.start is None else sp.start.isoformat(), "end": None if sp.end is None else sp.end.isoformat(),
            "duration_ms": step.duration_ms, "status": sp.status, "status_message": sp.status_message,
            "trace_id": sp.trace_id, "input_tokens": step.input_tokens, "output_tokens": step.output_tokens,
            "cost_usd": step.cost, "attributes": json.loads(json.dumps(sp.attributes, default=str)),
            "children": [_json_node(c) for c in node.children]}  # type: ignore[attr-defined]


@click.command("tree")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_id")
@click.option("--json", "as_json", is_flag=True, help="Print the run as nested JSON steps (every attribute kept).")
def tree_cmd(db: str, trace_id: str, as_json: bool) -> None:
    """Print the run TRACE_ID belongs to (a model call's trace id, or a run id) as an indented tree:
    each step with its kind, name, duration (ms) and status, each model call with its input /
    output tokens, cost and trace id, then the run's totals.

    \b
    Example:
        ctxviewer tree traces.db 98870087af69bf06
    """
    store: Any = open_source(db)  # a database file, or a ClickHouse store's URL (its runs: pipeline.clickhouse.runs)
    try:
        with closing(store):
            run_id = store.run_of(trace_id)
            steps = store.run_steps(run_id) if run_id is not None else []
            known = run_id is not None or store.key_of(trace_id) is not None  # a trace without a run, or no trace
            # not found, or steps left out: perhaps in a page that cannot be read (a database file's check)
            damage = store.damage() if hasattr(store, "damage") else None
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    if damage and run_id is None:
        raise BadInput(f"{db}: is damaged ({damage}); no run holding {trace_id!r} could be read, it may be in the "
                       "damaged pages (ctxviewer check reads every trace)")
    if run_id is None and not known:
        raise BadInput(f"{db}: no trace or run with id {trace_id!r} ('ctxviewer list' names the traces)")
    if run_id is None:
        raise BadInput(f"{db}: no run holds {trace_id!r} (a trace imported without its run, or from a format "
                       "that records none; 'ctxviewer list' names the traces)")
    roots = build_tree(steps)
    if as_json:
        click.echo(json.dumps({"run_id": run_id, "steps": [_json_node(r) for r in roots]}, indent=2, ensure_ascii=False))
    else:
        click.echo(f"run {one_line(run_id)} · {run_totals(steps)}")
        for line in tree_lines(roots):
            click.echo(line)
    warn_damage(db, damage, "the steps above are those that read back")
