"""``ctxviewer check DB [TRACE_ID...]``: run every check on traces and gate CI on the findings.

Prints per trace its state and findings (worst first; the instances of the Table 3.1 row the
user marked as observed lead), each with its rule, severity, Table 3.1 row, message, first
evidence and repair. Exit status 1 when a finding at or above ``--fail-on`` exists, 2 for a usage
error or bad input (:mod:`ctxviewer.cli.status`) -- also when every trace reads back but SQLite's
integrity check finds the file damaged (what ``list`` warns about). The findings
are the trace's assessment (:func:`ctxviewer.assess.assessment.assess`), the same ones the window
shows. Registered on the group in :mod:`ctxviewer.cli`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ctxviewer.cli.interrupted import says_what_was_kept
from ctxviewer.cli.progress import StatusLine, Ticker, rate
from ctxviewer.cli.status import EPILOG, FINDINGS, BadInput
from ctxviewer.cli.stores import is_store_url, open_source
from ctxviewer.cli.write import check_output, write_output
from ctxviewer.model.findings import Finding, Severity
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.hints import open_store
from ctxviewer.store import StoreError, TraceSource, TraceStore
from ctxviewer.util.visible import one_line


@click.command("check", epilog=EPILOG)
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_ids", nargs=-1)
@click.option("--json", "as_json", is_flag=True,
              help="Print a JSON list: per trace trace_id, state, observed_row and findings.")
@click.option("--jsonl", is_flag=True,
              help="Print each trace's --json object on a line of its own as soon as it is checked (JSON Lines).")
@click.option("--fail-on", type=click.Choice(["warning", "failure"]), default="failure", show_default=True,
              help="Exit with status 1 when a finding of this severity or worse exists (2: bad input).")
@click.option("--expected-policy", "expected", multiple=True, metavar="ID=VERSION",
              help="Policy version every application must send (repeatable); adds to ctxviewer.toml beside DB.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default=None,
              help="Output format; sarif writes SARIF 2.1.0 with reviewer verdicts as suppressions (--json = json).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the output to this file instead of standard output.")
@click.option("--review-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Review file whose verdicts --format sarif reports (default: beside DB, else the user data directory).")
def check_cmd(db: str, trace_ids: tuple[str, ...], as_json: bool, jsonl: bool, fail_on: str, expected: tuple[str, ...],
              fmt: str | None, output: str | None, review_file: str | None) -> None:
    """Run every check (Table 3.1 rows, tool calls, accounting) on traces in DB.

    Checks all traces, or only TRACE_IDs. DB is a database file or a ClickHouse store's URL
    (README: "Team store": the chat spans of its time window). Expected policy versions come from ctxviewer.toml
    beside DB and --expected-policy; the user's marks from DB.marks.json. A damaged database
    (SQLite's integrity check, whole when all traces are checked) is an error, status 2.

    \b
    Example:
        ctxviewer check sample_traces/samples.db
        ctxviewer check traces.db ticket-injection --json --fail-on warning
        ctxviewer check traces.db --format sarif -o findings.sarif
        ctxviewer check traces.db --jsonl | jq -c 'select(.state != "ok")'
    """
    from ctxviewer.assess.assessment import assess
    from ctxviewer.assess.config import parse_expected
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.assess.marks import lead_with
    from ctxviewer.cli.output import gates_on_findings
    from ctxviewer.diff.conversation import derive_for_display
    from ctxviewer.report.trace_report import finding_to_dict

    gates_on_findings()

    if jsonl and (as_json or fmt is not None or output is not None):
        raise click.UsageError("--jsonl prints to standard output as it checks: not with --json, --format or -o")
    if as_json and fmt not in (None, "json"):  # two formats asked for: neither silently wins
        raise click.UsageError(f"--json is --format json: not with --format {fmt}")
    if output is not None:
        check_output(output, [db, *([review_file] if review_file else [])])
    try:
        ctx = context_for_db(Path(db), parse_expected(expected))
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if is_store_url(db):  # a ClickHouse store: read in place, nothing to integrity-check
        store: TraceSource = open_source(db)
    else:
        try:
            store = open_store(db)
        except StoreError as exc:
            raise BadInput(str(exc)) from None
    ids = list(dict.fromkeys(trace_ids)) or [r.trace_id for r in store.list(None, 0, -1)]  # every trace
    threshold = Severity(fail_on).rank
    results: list[tuple[str, str, int | None, tuple[Finding, ...]]] = []
    failed = False
    line = StatusLine(enabled=not (as_json or jsonl or fmt in ("json", "sarif")))  # a terminal only, cleared before output

    def kept() -> str:
        if jsonl:  # each result line was printed as it was checked
            return f"checked {len(results):,} of {len(ids):,} trace(s); their {len(results):,} result line(s) were printed"
        written = f"; {output} was not created" if output and output != "-" else ""
        return f"checked {len(results):,} of {len(ids):,} trace(s); nothing was written{written}"

    with says_what_was_kept(kept, line), line:
        for tid in ids:
            line.show(f"checking {len(results):,} / {len(ids):,} traces · {rate(len(results), line.elapsed)}")
            trace = derive_for_display(store, _load(store, db, tid))  # dropped between calls, as show derives them
            a = assess(trace, ctx)
            observed_row = ctx.observed_row(tid)
            findings = lead_with(a.findings, observed_row)
            failed = failed or any(f.severity.rank >= threshold for f in findings)
            if jsonl:  # printed now; only the state is kept, for the count
                click.echo(json.dumps({"trace_id": tid, "state": a.state.value, "observed_row": observed_row,
                                       "findings": [finding_to_dict(f) for f in findings]}, ensure_ascii=False))
                findings = ()
            results.append((tid, a.state.value, observed_row, findings))
        with Ticker(line, lambda s: f"checked {len(ids):,} trace(s); SQLite integrity check of {db} · {s:.0f} s"):
            if isinstance(store, TraceStore):
                _refuse_damage(store, db, len(ids), whole=not trace_ids)
        if fmt == "sarif":
            _sarif(store, db, ids, results, output, line, review_file)
            if failed:
                raise SystemExit(FINDINGS)
            return
    store.close()
    counts = {s: sum(1 for _, st, _, _ in results if st == s) for s in ("failure", "warning", "ok")}
    summary = (f"{len(results)} trace(s) checked: {counts['failure']} failure, {counts['warning']} warning, "
               f"{counts['ok']} ok")
    if jsonl:
        kind = "JSON Lines"
    elif as_json or fmt == "json":
        _emit(json.dumps([{"trace_id": t, "state": s, "observed_row": r,
                           "findings": [finding_to_dict(f) for f in fs]} for t, s, r, fs in results],
                         indent=2, ensure_ascii=False), output, db)
        kind = "JSON"
    else:
        lines = []
        for tid, state, observed, findings in results:
            lines.append(f"{one_line(tid)}: {state}" + (f" (observed: Table 3.1 row {observed})" if observed else ""))
            for f in findings:
                row = f" [Table 3.1 row {f.table_row}]" if f.table_row else ""
                lines.append(f"  {f.severity.value:<8} {f.rule}{row}: {one_line(f.message)}")
                if f.first_evidence:
                    lines.append(f"           inspect first: {f.first_evidence}")
                if f.repair:
                    lines.append(f"           repair: {f.repair}")
        lines.append(summary)
        _emit("\n".join(lines), output, db, json_text=False)
        kind = "text"
    if output and output != "-":
        click.echo(one_line(f"wrote {output}: {kind}, {summary}"))
    if failed:
        raise SystemExit(FINDINGS)


def _sarif(store: TraceSource, db: str, ids: list[str], results: list[tuple[str, str, int | None, tuple[Finding, ...]]],
           output: str | None, line: StatusLine, review_file: str | None = None) -> None:
    """Write the SARIF log of ``results`` (the store closed once the traces are read again), with
    the verdicts of the review file (``review_file``, else where :mod:`ctxviewer.review.location` puts it)."""
    from ctxviewer.report.sarif import db_reviews, sarif_log
    from ctxviewer.review.verdicts import ReviewFileError

    traces: dict[str, RequestTrace] = {}
    for tid in ids:
        line.show(f"reading {len(traces):,} / {len(ids):,} traces for SARIF · {rate(len(traces), line.elapsed)}")
        traces[tid] = _load(store, db, tid)
    store.close()
    line.clear()
    try:
        reviews = db_reviews(db, review_file)
    except ReviewFileError as exc:  # a corrupt review file is bad input, not a traceback
        raise BadInput(str(exc)) from None
    log = sarif_log(((traces[t], list(fs)) for t, _, _, fs in results), reviews, Path(db).resolve().as_uri())
    _emit(json.dumps(log, indent=2, ensure_ascii=False), output, db)
    if output and output != "-":
        click.echo(one_line(f"wrote {output}: SARIF 2.1.0, {len(log['runs'][0]['results'])} result(s) from {len(results)} trace(s)"))


def _refuse_damage(store: TraceStore, db: str, checked: int, *, whole: bool) -> None:
    """Bad input (the store closed first) when SQLite's ``quick_check`` finds damaged pages --
    those ``list`` warns about, which the traces may read back past (an index, the search index):
    read whole when every trace was checked (``whole``), else within the time ``list`` gives it."""
    damage = store.damage(seconds=None) if whole else store.damage()
    if damage:
        store.close()
        raise BadInput(f"{db}: is damaged ({damage}); the {checked} trace(s) checked read back, but the file "
                       "fails SQLite's integrity check, so no findings are reported for it")


def _load(store: TraceSource, db: str, tid: str) -> RequestTrace:
    """Trace ``tid`` of ``store``; a missing id or an unreadable (corrupt) trace is one clean error
    naming the database and the trace (the store is closed first)."""
    try:
        return store.load(tid)
    except KeyError:
        store.close()
        raise BadInput(f"{db}: no trace with id {one_line(tid)!r}") from None
    except StoreError as exc:
        damage = store.damage() if isinstance(store, TraceStore) else None  # a damaged page it read through
        store.close()
        if damage:
            raise BadInput(f"{db}: is damaged ({damage}); trace {one_line(tid)!r} cannot be read back, so no "
                           "findings are reported for it") from None
        named = f"trace {tid!r}" in str(exc)  # the store's message names it already ("cannot read items of trace 'x'")
        raise BadInput(str(exc) if named else f"{exc} (trace {one_line(tid)!r})") from None


def _emit(text: str, output: str | None, db: str, *, json_text: bool = True) -> None:
    """``text`` (without its last newline) to standard output, or to ``-o output`` through the
    guarded atomic write of :func:`ctxviewer.cli.write.write_output` (every format honours -o)."""
    if output is None:
        click.echo(text)
        return
    write_output(output, [db], lambda fh: fh.write(text + "\n"), json_text=json_text)
