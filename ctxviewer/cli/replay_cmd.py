"""``ctxviewer replay DB TRACE_ID --endpoint NAME``: send a recorded request again and diff the answer.

Registered on the ``ctxviewer`` group in :mod:`ctxviewer.cli`; the work is
:func:`ctxviewer.replay.run.replay`, the same the window's Trace › Replay… calls. DB is only
read; the replay is stored in ``--save DB2`` (default ``DB.replays.db`` beside DB,
:func:`ctxviewer.replay.run.default_save_path`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ctxviewer.cli.status import BadInput
from ctxviewer.cli.stores import load_trace
from ctxviewer.replay.endpoints import EndpointError, endpoint_named
from ctxviewer.replay.run import default_save_path, diff_summary, replay, save
from ctxviewer.replay.send import SendFailure
from ctxviewer.store import BAD_TARGETS, StoreError
from ctxviewer.util.visible import one_line


def overrides_of(temperature: float | None, seed: int | None, max_tokens: int | None) -> dict[str, Any]:
    """The settings given on the command line, to send instead of the recorded ones."""
    given = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens}
    return {k: v for k, v in given.items() if v is not None}


@click.command("replay")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_id")
@click.option("--endpoint", "endpoint", required=True, help="The [endpoint.NAME] of ctxviewer.toml to send to.")
@click.option("--save", "save_to", default=None, type=click.Path(dir_okay=False),
              help="Database for the replay (default: DB.replays.db beside DB; never DB itself).")
@click.option("--temperature", type=float, default=None, help="Send this temperature instead of the recorded one.")
@click.option("--seed", type=int, default=None, help="Send this seed instead of the recorded one.")
@click.option("--max-tokens", "max_tokens", type=click.IntRange(1), default=None, help="Send this output limit instead.")
@click.option("--from-items", is_flag=True, help="Rebuild the request from the items even when the body was kept.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: replay trace id, plan, answer, saved database.")
def replay_cmd(db: str, trace_id: str, endpoint: str, save_to: str | None, temperature: float | None,
               seed: int | None, max_tokens: int | None, from_items: bool, as_json: bool) -> None:
    """Send trace TRACE_ID of DB to endpoint NAME again, store the answer as a new trace
    (replay_of TRACE_ID) and print its diff against the original.

    The request is the stored body when it was kept and is of the endpoint's shape, else rebuilt
    from the items (tool calls paired with their results). Temperature and seed are sent as
    recorded unless given. Nothing is sent without an [endpoint.NAME] table in ctxviewer.toml
    (beside DB or your own); the key is read from its api_key_env variable.

    \b
    Example:
        ctxviewer replay sample_traces/samples.db budget-8k --endpoint local --save replays.db
    """
    try:
        ep = endpoint_named(db, endpoint)
    except EndpointError as exc:
        raise BadInput(str(exc)) from None
    trace = load_trace(db, trace_id)
    target = save_to or str(default_save_path(db))
    from ctxviewer.cli.write import check_place

    check_place(target, "'--save'")  # a missing folder: a usage error before anything is sent
    if Path(target).resolve() == Path(db).resolve():  # refused before anything is sent
        raise BadInput(f"{target}: the source database is never written; choose another file")
    if not as_json:
        click.echo(f"sending {one_line(trace_id)} to {one_line(ep.describe())}")
    try:
        result = replay(trace, ep, overrides=overrides_of(temperature, seed, max_tokens), from_items=from_items)
    except EndpointError as exc:
        raise BadInput(str(exc)) from None
    except SendFailure as exc:
        raise click.ClickException(str(exc)) from None
    try:
        save(target, [result.trace], db)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    except BAD_TARGETS as exc:  # not a database, another program's, a newer or older schema: bad input (2), untouched
        raise BadInput(str(exc)) from None
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    plan, new = result.plan, result.trace
    if as_json:
        click.echo(json.dumps({"trace_id": new.trace_id, "replay_of": trace_id, "endpoint": ep.name,
                               "source": plan.source, "changed": list(plan.changed), "notes": list(plan.notes),
                               "inexact": plan.inexact, "sent_bytes": len(plan.body), "sha256": new.request.sha256,
                               "answer": new.response.text if new.response else None, "saved": target},
                              indent=2, ensure_ascii=False))
        return
    click.echo(f"request: {plan.source}" + (f" (changed: {', '.join(plan.changed)})" if plan.changed else "")
               + f", {len(plan.body):,} bytes")
    if plan.inexact:
        click.echo(f"note: {one_line(plan.inexact)}")
    for n in plan.notes:
        click.echo(f"note: {one_line(n)}")
    click.echo(f"answer: {one_line(new.response.text if new.response and new.response.text else '(no text)')}")
    click.echo(f"saved as trace {one_line(new.trace_id)} in {target}")
    click.echo("")
    click.echo(diff_summary(trace, new))
