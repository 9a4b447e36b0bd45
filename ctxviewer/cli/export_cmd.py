"""``ctxviewer export``: write traces of a database as OTLP/JSON with the OpenTelemetry GenAI
conventions, via :func:`ctxviewer.report.export_otlp.export_request`. Importing the file again
gives the same traces back (:mod:`ctxviewer.importers.formats.ctxviewer_otlp`).
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from typing import Callable, TextIO

import click

from ctxviewer.cli.interrupted import says_what_was_kept
from ctxviewer.cli.progress import StatusLine, Ticker, rate
from ctxviewer.cli.status import BadInput
from ctxviewer.cli.write import check_output, write_output
from ctxviewer.importers.formats.native import write_jsonl
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.hints import open_store
from ctxviewer.report.export_otlp import export_request
from ctxviewer.report.redact import RulesError, load_rules, redact
from ctxviewer.store import StoreError


def load_traces(db: str, trace_ids: tuple[str, ...],
                each: Callable[[int, int], None] | None = None) -> list[RequestTrace]:
    """The traces ``trace_ids`` of ``db`` (all of them, in list order, when none are given); an id
    given twice is loaded once, at its first place. ``each(loaded, total)`` is called before each
    trace is read. Raises :class:`click.ClickException` naming the database or the missing id."""
    try:
        with open_store(db) as store:
            ids = list(dict.fromkeys(trace_ids)) or [r.trace_id for r in store.list(limit=-1)]
            out: list[RequestTrace] = []
            for tid in ids:
                if each is not None:
                    each(len(out), len(ids))
                try:
                    out.append(store.load(tid))
                except KeyError:
                    raise BadInput(f"{db}: no trace with id {tid!r} (see 'ctxviewer list {db}')") from None
            return out
    except StoreError as exc:
        raise BadInput(str(exc)) from None


@click.command("export")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_ids", nargs=-1)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="File to write.")
@click.option("--format", "fmt", type=click.Choice(["otlp", "native"]), default="otlp", show_default=True,
              help="otlp: OTLP/JSON ExportTraceServiceRequest with OpenTelemetry GenAI attributes; "
                   "native: ctxviewer JSON Lines.")
@click.option("--redact", "rules_spec", default=None, metavar="RULES",
              help="Remove or mask fields first: a TOML rules file ([redact] fields, builtin, pattern) or "
                   "built-in rule names (user-ids,emails,api-keys). Every redaction is listed before writing.")
@click.option("--guardrails", is_flag=True, default=False,
              help="otlp only: add the offline scanner's verdicts as apply_guardrail child spans (OpenTelemetry "
                   "GenAI security-guardrail proposal); importing the file reads them back as guardrail results.")
def export_cmd(db: str, trace_ids: tuple[str, ...], output: str, fmt: str, rules_spec: str | None,
               guardrails: bool) -> None:
    """Export TRACE_IDS of DB (all traces when none are given) to FILE as OTLP/JSON.

    Each trace becomes one span with the current OpenTelemetry GenAI attributes (model, provider,
    input and output messages, tool definitions, usage, conversation id) plus ctxviewer.*
    attributes for what GenAI lacks (item status, priority, omission reason, declared budgets),
    so the file can go to any OpenTelemetry backend and 'ctxviewer import' gives the same traces
    back.

    With --guardrails each trace's span is followed by the offline scanner's verdict on every
    untrusted item, tool call and response it read, as apply_guardrail child spans with one
    gen_ai.security.finding event per finding (target = the item or call id); importing the file
    reads them back as the traces' runtime guardrail results.

    With --redact RULES the copy has the configured fields removed and e-mail addresses, API keys
    and custom patterns masked; each redaction is listed first, and each redacted trace is marked
    "exact replay impossible: fields X, Y redacted" (request.redacted_fields), which the viewer shows.

    \b
    Example:
        ctxviewer export sample_traces/samples.db -o samples.otlp.json --format otlp
        ctxviewer export traces.db budget-8k -o one.otlp.json
        ctxviewer export traces.db --redact user-ids,emails,api-keys -o shared.jsonl --format native
    """
    if guardrails and fmt != "otlp":
        raise click.UsageError("--guardrails adds OpenTelemetry spans: it needs --format otlp")
    check_output(output, [db])
    line = StatusLine()  # a terminal only: traces read and the rate, then the write; cleared before any output
    started = False  # standard output written to

    def kept() -> str:
        if output != "-":
            return f"nothing was written; {output} was not created"
        return "standard output may hold part of the export" if started else "nothing was written"

    def loading(done: int, total: int) -> None:
        line.show(f"reading {done:,} / {total:,} traces from {db} · {rate(done, line.elapsed)}")

    with says_what_was_kept(kept, line):
        with line:
            traces = load_traces(db, trace_ids, loading)
        if rules_spec is not None:
            traces = _redacted(traces, rules_spec)

        def write(fh: TextIO) -> None:
            nonlocal started
            started = output == "-"
            if fmt == "native":
                write_jsonl(traces, fh)
            else:
                json.dump(export_request(traces, guardrails=guardrails), fh, ensure_ascii=False, separators=(",", ":"))

        ticking = Ticker(line, lambda s: f"writing {len(traces):,} trace(s) to {output} ({fmt}) · {s:.0f} s")
        with ticking if output != "-" else nullcontext():  # never a line amid the export on the terminal
            write_output(output, [db], write, json_text=True)
    if output == "-":
        return
    click.echo(f"exported {len(traces)} trace(s) from {db} to {output} ({fmt})")


def _redacted(traces: list[RequestTrace], spec: str) -> list[RequestTrace]:
    """``traces`` redacted by the rules ``spec``, after listing every redaction (stdout)."""
    try:
        rules = load_rules(spec)
    except RulesError as exc:
        raise BadInput(str(exc)) from None
    out: list[RequestTrace] = []
    count = 0
    removed: set[str] = set()
    for trace in traces:
        done, found = redact(trace, rules)
        for r in found:
            click.echo(f"redact: {r}")
            if r.what == "removed":
                removed.add(r.path)
        count += len(found)
        out.append(done)
    touched = sum(1 for a, b in zip(traces, out) if a is not b)
    click.echo(f"{count} redaction(s) in {touched} of {len(traces)} trace(s)")
    for f in rules.fields:  # a misspelt path must not read as "nothing to redact"
        if f not in removed:
            click.echo(f"warning: redact: field {f} is in no exported trace (not recorded, or the path is "
                       "misspelt: paths are those of the native format, e.g. user_id, attributes.user.email)", err=True)
    return out
