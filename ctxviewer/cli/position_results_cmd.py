"""``ctxviewer position-results FILE... --harness litm|niah|ruler``: the position-test table of an
existing harness's result rows (:func:`ctxviewer.replay.harness_rows.read_harness`), with the same
statistics as ``position-test`` (:func:`ctxviewer.replay.stats.analyse`). Nothing is sent.
"""

from __future__ import annotations

import json

import click

from ctxviewer.cli.status import BadInput
from ctxviewer.replay.harness_rows import HARNESSES, read_harness
from ctxviewer.replay.position_report import analysis_json, render_analysis
from ctxviewer.replay.stats import analyse
from ctxviewer.util.visible import one_line


@click.command("position-results")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--harness", type=click.Choice(HARNESSES), required=True,
              help="litm (Lost in the Middle predictions), niah (NeedleInAHaystack result files) or ruler (RULER pred rows).")
@click.option("--pass-score", type=click.FloatRange(0, 10), default=7, show_default=True,
              help="niah: the evaluator score (1-10) counted as right.")
@click.option("--position-field", default=None, help="ruler: the field (top level or in others) holding the needle position.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: harness, rows, problems, the analysis.")
def position_results_cmd(files: tuple[str, ...], harness: str, pass_score: float, position_field: str | None,
                         as_json: bool) -> None:
    """Read result rows of a position harness from FILES and print accuracy per position with
    Wilson 95 % intervals, Cochran's Q, exact McNemar per pair and the best - worst spread, as
    position-test does. A line that cannot be read is named and skipped; exit status 2 when no
    row could be read.

    \b
    Example:
        ctxviewer position-results nq-open-20_total_documents_gold_at_*-predictions.jsonl.gz --harness litm
    """
    rows = read_harness(files, harness, pass_score=pass_score, position_field=position_field)
    for p in rows.problems:
        click.echo(f"skipped {one_line(p)}", err=True)
    if not rows.scores:
        raise BadInput(f"no {harness} row could be read from {', '.join(files)}")
    try:
        a = analyse(rows.scores, drop_unpaired=True)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if as_json:
        click.echo(json.dumps({"harness": harness, "rows": len(rows.scores), "problems": list(rows.problems),
                               "scoring": list(rows.notes), **analysis_json(a)}, indent=2, ensure_ascii=False))
        return
    click.echo(f"{harness}: {len(rows.scores):,} rows from {len(files)} file(s)")
    click.echo(render_analysis(a))
    for n in rows.notes:
        click.echo(f"note: {n}")
