"""``ctxviewer export``: write traces of a database as OTLP/JSON with the OpenTelemetry GenAI
conventions (issue 6), via :func:`ctxviewer.export_otlp.export_request`. Importing the file again
gives the same traces back (:mod:`ctxviewer.importers.ctxviewer_otlp`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from .export_otlp import export_request
from .model import RequestTrace
from .store import StoreError, TraceStore


def load_traces(db: str, trace_ids: tuple[str, ...]) -> list[RequestTrace]:
    """The traces ``trace_ids`` of ``db`` (all of them, in list order, when none are given).
    Raises :class:`click.ClickException` naming the database or the missing id."""
    try:
        with TraceStore.open(db) as store:
            ids = list(trace_ids) or [r.trace_id for r in store.list(limit=-1)]
            out = []
            for tid in ids:
                try:
                    out.append(store.load(tid))
                except KeyError:
                    raise click.ClickException(f"{db}: no trace with id {tid!r} (see 'ctxviewer list {db}')") from None
            return out
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


@click.command("export")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_ids", nargs=-1)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="File to write.")
@click.option("--format", "fmt", type=click.Choice(["otlp"]), default="otlp", show_default=True,
              help="otlp: OTLP/JSON ExportTraceServiceRequest with OpenTelemetry GenAI attributes.")
def export_cmd(db: str, trace_ids: tuple[str, ...], output: str, fmt: str) -> None:
    """Export TRACE_IDS of DB (all traces when none are given) to FILE as OTLP/JSON.

    Each trace becomes one span with the current OpenTelemetry GenAI attributes (model, provider,
    input and output messages, tool definitions, usage, conversation id) plus ctxviewer.*
    attributes for what GenAI lacks (item status, priority, omission reason, declared budgets),
    so the file can go to any OpenTelemetry backend and 'ctxviewer import' gives the same traces
    back.

    \b
    Example:
        ctxviewer export sample_traces/samples.db -o samples.otlp.json --format otlp
        ctxviewer export traces.db budget-8k -o one.otlp.json
    """
    traces = load_traces(db, trace_ids)
    tmp = Path(f"{output}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(export_request(traces), fh, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, output)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise click.ClickException(f"{output}: cannot write: {exc.strerror or exc}") from None
    click.echo(f"exported {len(traces)} trace(s) from {db} to {output} ({fmt})")
