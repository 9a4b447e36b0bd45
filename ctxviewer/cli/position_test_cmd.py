"""``ctxviewer position-test DB TRACE_ID... --item DOC_ID --endpoint NAME``: move one item, repeat,
score, and report accuracy per position with its interval.

Registered on the ``ctxviewer`` group in :mod:`ctxviewer.cli`; the work is
:func:`ctxviewer.replay.positions.run_position_test` and :func:`ctxviewer.replay.stats.analyse`.
DB is only read; every run is stored in ``--save DB2`` (default ``DB.replays.db`` beside DB).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ctxviewer.cli.replay_cmd import overrides_of
from ctxviewer.cli.status import BadInput
from ctxviewer.pipeline.hints import open_store
from ctxviewer.replay.endpoints import EndpointError, endpoint_named
from ctxviewer.replay.position_report import analysis_json, render_analysis
from ctxviewer.replay.positions import PositionTestResult, parse_positions, run_position_test
from ctxviewer.replay.run import default_save_path, save
from ctxviewer.replay.scoring import parse_rule
from ctxviewer.replay.send import SendFailure
from ctxviewer.store import StoreError
from ctxviewer.util.visible import one_line


@click.command("position-test")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_ids", nargs=-1, required=True)
@click.option("--item", "item", required=True, help="The item to move (the document the answer needs), in every trace.")
@click.option("--endpoint", "endpoint", required=True, help="The [endpoint.NAME] of ctxviewer.toml to send to.")
@click.option("--positions", "positions", required=True, help="Comma-separated 1-based positions among the item's kind, e.g. 1,5,10.")
@click.option("--repeats", type=click.IntRange(1, 1000), default=5, show_default=True, help="Runs per position and trace.")
@click.option("--score", "score", required=True,
              help='Score rule: contains:"TEXT", regex:"PATTERN", json:FIELD.PATH=VALUE or exact:"TEXT".')
@click.option("--save", "save_to", default=None, type=click.Path(dir_okay=False),
              help="Database for the runs (default: DB.replays.db beside DB; never DB itself).")
@click.option("--temperature", type=float, default=None, help="Send this temperature instead of the recorded one.")
@click.option("--seed", type=int, default=None, help="Send this seed instead of the recorded one.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: test id, saved database, the analysis.")
def position_test_cmd(db: str, trace_ids: tuple[str, ...], item: str, endpoint: str, positions: str, repeats: int,
                      score: str, save_to: str | None, temperature: float | None, seed: int | None, as_json: bool) -> None:
    """Move item --item of each TRACE_ID to each of --positions (only that item moves), send every
    variant --repeats times to endpoint NAME, score each answer, and print accuracy per position
    with Wilson 95 % intervals, Cochran's Q, exact McNemar per pair and the best - worst spread.

    Several TRACE_IDs give the item-level analysis (repeats averaged within a trace). Every run
    is stored as a trace linked to the test (attributes ctxviewer.position_test.*).

    \b
    Example:
        ctxviewer position-test samples.db evidence-in-middle --item KB-1008#p1 --endpoint local \\
            --positions 1,10,20 --repeats 5 --score 'contains:"price adjustment"'
    """
    try:
        where = parse_positions(positions)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--positions") from None
    try:
        rule = parse_rule(score)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--score") from None
    try:
        ep = endpoint_named(db, endpoint)
    except EndpointError as exc:
        raise BadInput(str(exc)) from None
    target = save_to or str(default_save_path(db))
    from ctxviewer.cli.write import check_place

    check_place(target, "'--save'")  # a missing folder: a usage error before anything is sent
    if Path(target).resolve() == Path(db).resolve():
        raise BadInput(f"{target}: the source database is never written; choose another file")
    try:
        with open_store(db) as store:
            traces = [store.load(t) for t in trace_ids]
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    except KeyError as exc:
        raise BadInput(f"{db}: no trace with id {exc.args[0]!r}") from None
    for t in traces:
        if item not in {i.id for i in t.items}:
            raise BadInput(f"{db}: trace {t.trace_id!r} has no item {item!r}")
    total = len(traces) * len(where) * repeats
    if not as_json:
        click.echo(f"sending {total} requests to {one_line(ep.describe())}")
    try:
        result: PositionTestResult = run_position_test([(t, item) for t in traces], ep, where, repeats, rule,
                                                       overrides=overrides_of(temperature, seed, None))
    except (ValueError, EndpointError) as exc:
        raise BadInput(str(exc)) from None
    except SendFailure as exc:
        raise click.ClickException(str(exc)) from None
    try:
        save(target, result.traces, db)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    assert result.analysis is not None
    if as_json:
        click.echo(json.dumps({"test_id": result.test_id, "item": item, "rule": rule.text, "saved": target,
                               "runs": len(result.traces), "checked": result.checked, **analysis_json(result.analysis)}, indent=2, ensure_ascii=False))
        return
    click.echo(f"position test {result.test_id}: item {one_line(item)}, rule {one_line(rule.text)}")
    click.echo(f"checked: {one_line(result.checked)}")
    click.echo(render_analysis(result.analysis))
    click.echo(f"saved {len(result.traces)} runs in {target}")
