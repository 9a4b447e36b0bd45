"""``ctxviewer sessions DB`` (one line per session: calls, first and last send time, states,
tokens, cost) and ``ctxviewer session DB SESSION_ID [--diff N]`` (the session's calls in send order
with their states; ``--diff N`` prints call N's diff against call N - 1) --
:meth:`ctxviewer.store.TraceStore.sessions` / :meth:`~ctxviewer.store.TraceStore.session_calls`
and :func:`ctxviewer.diff.session_pair.call_pair`, the words of
:mod:`ctxviewer.present.session_cells`, as the window's Sessions dialog shows them.
"""

from __future__ import annotations

import json
from typing import Any

import click

from ctxviewer.cli.status import BadInput
from ctxviewer.cli.stores import (
    current_fingerprint,
    filter_query,
    stale_calls,
    warn_absent_rules,
    warn_damage,
    warn_stale,
)
from ctxviewer.model.times import format_created
from ctxviewer.pipeline.hints import open_store
from ctxviewer.present.session_cells import CALL_HEADERS, SESSION_HEADERS, call_cells, diff_hint, session_cells
from ctxviewer.store import StoreError

_NUMBERS = frozenset({"#", "calls", "input", "output", "cost", "ms", "models"})


def _table(rows: list[list[str]], headers: tuple[str, ...]) -> str:
    from tabulate import tabulate

    return tabulate(rows, headers=list(headers), tablefmt="simple", disable_numparse=True,
                    colalign=["right" if h in _NUMBERS else "left" for h in headers])


@click.command("sessions")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--filter", "text", default="", metavar="FILTER", help="Display filter (as for list): sessions with a call it keeps, summed over those calls.")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(min=1), help="Print at most this many sessions.")
@click.option("--after", default=None, metavar="SESSION_ID", help="Start after this session id (the next page).")
@click.option("--json", "as_json", is_flag=True, help="Print {count, sessions} as JSON.")
def sessions_cmd(db: str, text: str, limit: int, after: str | None, as_json: bool) -> None:
    """List the sessions (conversations) of DB in session-id order: each with its calls, first and
    last send time, states ok / warning / failure, input / output tokens and cost.

    A session is the calls sharing a session id (OTel gen_ai.conversation.id or session.id,
    Langfuse sessionId, LangSmith thread_id / session_id metadata, MLflow mlflow.trace.session,
    an Inspect AI sample). 'ctxviewer session DB SESSION_ID' lists one session's calls.

    \b
    Example:
        ctxviewer sessions traces.db
        ctxviewer sessions traces.db --filter 'state == failure' --json
    """
    query = filter_query(text)
    try:
        with open_store(db) as store:
            warn_absent_rules(store, text)
            count = store.session_count(query)
            found = store.sessions(query, after, limit)
            lone = store.sessionless_count(query) if hasattr(store, "sessionless_count") else None
            stale = stale_calls(store, db, query)
            damage = store.damage() if after is None else None  # the sums read the list columns only
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    _print_sessions(found, count, text, after, limit, as_json=as_json, lone=lone)
    warn_stale(db, stale, "the states above")
    warn_damage(db, damage, "the sessions above are summed from the rows stored at import")


def _print_sessions(found: list[Any], count: int, text: str, after: str | None, limit: int, *, as_json: bool,
                    lone: int | None = None) -> None:
    if as_json:
        click.echo(json.dumps({"count": count, "calls_without_session": lone, "sessions": [s.to_dict() for s in found]},
                              indent=2, ensure_ascii=False))
        return
    tail = (f"; {lone:,} call(s) record no session id (in no session; stats --by session sums them as "
            "'not recorded')" if lone else "")
    if not found:
        click.echo(f"{count:,} sessions" + (" (none after the one given)" if count and after else
                                            ": no call of DB records a session id" if not text else " match the filter"))
        return
    click.echo(_table([session_cells(s) for s in found], SESSION_HEADERS))
    more = f"; next page: --after {found[-1].session_id!r}" if len(found) == limit and count > limit else ""
    click.echo(f"{count:,} session(s){more}{tail}")


@click.command("session")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("session_id")
@click.option("--diff", "diff_n", type=int, default=None, metavar="N",
              help="Print call N's diff against call N - 1 (as 'ctxviewer diff' does).")
@click.option("--json", "as_json", is_flag=True, help="Print the calls (or, with --diff, the diff) as JSON.")
def session_cmd(db: str, session_id: str, diff_n: int | None, as_json: bool) -> None:
    """List the calls of session SESSION_ID in send order, each with its state, tokens, cost, span
    duration (ms) and worst finding; --diff N prints what changed from call N - 1 to call N.

    \b
    Example:
        ctxviewer session traces.db thread-9
        ctxviewer session traces.db thread-9 --diff 2
    """
    try:
        with open_store(db) as store:
            calls = store.session_calls(session_id)
            if diff_n is not None and calls:
                from ctxviewer.diff.session_pair import call_pair

                try:
                    a, b = call_pair(store, session_id, diff_n)
                except ValueError as exc:
                    raise BadInput(f"{db}: {exc}") from None
                except KeyError as exc:
                    raise BadInput(f"{db}: trace {exc} of session {session_id!r} is no longer in the database") from None
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    if not calls:
        raise BadInput(f"{db}: no call has session id {session_id!r} ('ctxviewer sessions DB' lists them)")
    if diff_n is not None:
        from ctxviewer.assess.assessment import assess
        from ctxviewer.assess.context import context_for_db
        from ctxviewer.diff import diff_traces
        from ctxviewer.diff.render import diff_json, format_diff_text

        try:
            ctx = context_for_db(db)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        result = diff_traces(a, b, (assess(a, ctx), assess(b, ctx)))
        if as_json:
            click.echo(json.dumps(diff_json(result), indent=2, ensure_ascii=False))
        else:
            click.echo(f"session {session_id}: call {diff_n - 1} ({a.trace_id}) -> call {diff_n} ({b.trace_id})")
            click.echo(format_diff_text(result))
        return
    if as_json:
        keys = ("trace_id", "created", "model", "state", "input_tokens", "output_tokens", "cost", "duration_ms",
                "span_status", "worst_rule")
        out = [{k: (format_created(r.created) if k == "created" else getattr(r, k)) for k in keys}
               for r in calls]
        click.echo(json.dumps({"session_id": session_id, "calls": out}, indent=2, ensure_ascii=False))
        return
    click.echo(_table([call_cells(n, r) for n, r in enumerate(calls, 1)], CALL_HEADERS))
    if len(calls) > 1:
        click.echo(f"{len(calls):,} calls; a call's diff against the one before it: {diff_hint(db, session_id, 2)}")
    else:
        click.echo("1 call")
    if calls and calls[0].retained_count is not None:  # a store keeping facts of its own
        from ctxviewer.present.columns import is_stale

        current = current_fingerprint(db)
        warn_stale(db, sum(is_stale(r, current) for r in calls), "the states above")
