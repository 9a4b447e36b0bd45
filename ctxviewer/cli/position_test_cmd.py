"""``ctxviewer position-test DB TRACE_ID... --item DOC_ID --endpoint NAME``: move one item, repeat,
score, and report accuracy per position with its interval.

Registered on the ``ctxviewer`` group in :mod:`ctxviewer.cli`; the work is
:func:`ctxviewer.replay.positions.run_position_test` and :func:`ctxviewer.replay.stats.analyse`.
DB is only read; every run is stored in ``--save DB2`` (default ``DB.replays.db`` beside DB).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from ctxviewer.cli.replay_cmd import overrides_of
from ctxviewer.cli.status import BadInput
from ctxviewer.pipeline.hints import open_store
from ctxviewer.replay.endpoints import EndpointError, endpoint_named
from ctxviewer.replay.positions import PositionTestResult, run_position_test
from ctxviewer.replay.run import default_save_path, save
from ctxviewer.replay.scoring import parse_rule
from ctxviewer.replay.send import SendFailure
from ctxviewer.replay.stats import Analysis
from ctxviewer.store import StoreError
from ctxviewer.util.visible import one_line


def _positions(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise click.BadParameter(f"--positions: {text!r} is not a comma-separated list of whole numbers") from None
    if len(values) < 2 or len(set(values)) != len(values) or min(values) < 1:
        raise click.BadParameter("--positions: give two or more different positions, each 1 or more (e.g. 1,5,10)")
    return values


def analysis_json(a: Analysis) -> dict[str, Any]:
    """The analysis as JSON: ``unit``, ``positions[{position, accuracy, low, high, n, runs}]``,
    ``cochran_q{q, df, p}``, ``mcnemar[{a, b, b_only, c_only, p}]``, ``spread{best, worst, value, low, high}``, ``notes``."""
    return {"unit": a.unit,
            "positions": [vars(p) for p in a.positions],
            "cochran_q": None if a.cochran is None else dict(zip(("q", "df", "p"), a.cochran)),
            "mcnemar": [dict(zip(("a", "b", "b_only", "c_only", "p"), m)) for m in a.mcnemar],
            "spread": None if a.spread is None else dict(zip(("best", "worst", "value", "low", "high"), a.spread)),
            "notes": list(a.notes)}


def render_analysis(a: Analysis) -> str:
    """The text report: a table of accuracy per position with the Wilson 95 % interval, Cochran's Q,
    each pair's exact McNemar p, the best - worst spread with its bootstrap interval, the notes."""
    rows = [[p.position, f"{p.accuracy:.2f}", f"[{p.low:.2f}, {p.high:.2f}]", p.n, p.runs] for p in a.positions]
    lines = [tabulate(rows, headers=["position", "accuracy", "95% interval (Wilson)", a.unit, "runs"],
                      colalign=("right", "right", "left", "right", "right"), disable_numparse=True)]
    if a.cochran is not None:
        q, df, p = a.cochran
        lines.append(f"Cochran's Q = {q:.2f} (df {df}), p = {p:.4g}")
    for pa, pb, b, c, p in a.mcnemar:
        lines.append(f"McNemar {pa} vs {pb}: {b} right only at {pa}, {c} right only at {pb}, exact p = {p:.4g}")
    if a.spread is not None:
        best, worst, v, low, high = a.spread
        lines.append(f"best - worst: position {best} - position {worst} = {v:+.2f}, 95% bootstrap interval [{low:+.2f}, {high:+.2f}]")
    lines += [f"note: {n}" for n in a.notes]
    return "\n".join(lines)


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
    where = _positions(positions)
    try:
        rule = parse_rule(score)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--score") from None
    try:
        ep = endpoint_named(db, endpoint)
    except EndpointError as exc:
        raise BadInput(str(exc)) from None
    target = save_to or str(default_save_path(db))
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
                               "runs": len(result.traces), **analysis_json(result.analysis)}, indent=2, ensure_ascii=False))
        return
    click.echo(f"position test {result.test_id}: item {one_line(item)}, rule {one_line(rule.text)}")
    click.echo(render_analysis(result.analysis))
    click.echo(f"saved {len(result.traces)} runs in {target}")
