"""The ``ctxviewer`` command line: one click group whose commands call the same core functions as
the window, so both say the same about a trace.

``ctxviewer [DB]`` opens the window (``open`` is the default command); ``import`` and
``screenshot`` are defined here; every other command is one module, loaded only when it runs
(:class:`~ctxviewer.cli.group.LazyCommands`): ``check_cmd``, ``diff_cmd``, ``export_cmd``,
``list_cmd``, ``position_results_cmd``, ``position_test_cmd``, ``replay_cmd``, ``report_cmd``,
``scan_cmd``, ``search_cmd``, ``serve_cmd``, ``show_cmd``, ``sessions_cmd``, ``stats_cmd``, ``tokens_cmd``, ``tree_cmd``, ``upgrade_cmd``, ``whatif_cmd``. ``ctxviewer --help`` lists those by their summaries (the table
below) without importing them, and ``list``, ``show`` and ``search`` import what they use inside
their bodies, so each loads only what it needs (``tests/cli/test_lazy_imports.py`` lists the
modules each loads). Shared parts: ``group`` (the group class and its manners), ``output`` (the
one place a command's outcome reaches the terminal), ``status`` (exit statuses), ``stores``
(opening DB for a command), ``write`` and ``output_path`` (the ``-o`` file guard),
``list_table`` (``list``'s table, fitted to 100 columns), ``simple_table`` (its layout,
tabulate's ``simple`` format, a row at a time), ``cells`` (a cell's display width and elision),
``progress`` (the progress line on a terminal), ``interrupted`` (what Ctrl+C says was kept),
``format_help`` (``import --format``'s help, listing the registry's formats).

May import: every core package, and :mod:`ctxviewer.gui` only inside the commands that open a
window (ruff TID253), so ``list`` / ``show`` / ``import`` run on machines without a display.
Only ``python -m ctxviewer`` imports this package.

A new command goes here as ``<name>_cmd.py``, registered by name in the group's lazy table below
with its summary.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import click

from ctxviewer import __version__
from ctxviewer.cli.format_help import FormatOption
from ctxviewer.cli.group import LazyCommands, ViewerGroup
from ctxviewer.cli.status import BAD_INPUT, BadInput
from ctxviewer.cli.stores import open_db


def _json_out(obj: object) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False))


@click.group(cls=ViewerGroup, default="open", default_if_no_args=True)
@click.version_option(__version__, prog_name="ctxviewer")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """ctxviewer: a desktop debugger for LLM request traces.

    \b
    Example:
        ctxviewer sample_traces/samples.db
    """
    from ctxviewer.cli.output import install

    ctx.call_on_close(install())  # trace text in any command's output never drives the terminal


@cli.command("open")
@click.argument("db", required=False, type=click.Path(dir_okay=False))
@click.option("--review-file", type=click.Path(dir_okay=False), default=None,
              help="Review file for the audit view's verdicts (default: beside DB, else the user data directory).")
def open_cmd(db: str | None, review_file: str | None) -> None:
    """Open the viewer window, on DB if given (read-only). DB may be a ClickHouse store's URL
    (README: "Team store"), shown as File > Connect to ClickHouse shows it.

    \b
    Example:
        ctxviewer open sample_traces/samples.db
        ctxviewer sample_traces/samples.db --review-file ~/reviews/samples.review.sqlite
    """
    if db is not None:
        from ctxviewer.cli.stores import open_source

        open_source(db).close()  # a clear error here beats a dialog at start-up (a file, or a store's URL)
    from ctxviewer.gui.app import main as gui_main

    sys.exit(gui_main([*([db] if db else []), *(["--review-file", review_file] if review_file else [])]))


@cli.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", "db", required=True, type=click.Path(dir_okay=False),
              help="Trace database to create or add to.")
@click.option("--format", "fmt", cls=FormatOption, default=None, metavar="NAME",
              help="Force a format instead of detecting it.")
@click.option("-r", "--recursive", is_flag=True,
              help="Also import the files of each directory's sub-folders (links to folders not followed).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary as one JSON object (files, traces, items, warnings).")
def import_cmd(files: tuple[str, ...], db: str, fmt: str | None, recursive: bool, as_json: bool) -> None:
    """Import trace FILES (format detected) into the database DB, in one transaction.

    A directory stands for the regular files directly inside it (with --recursive, those of its
    sub-folders too, in name order; hidden files and folders skipped; every entry skipped is
    named with why). Records and files that cannot be read are
    reported with file and record (as errors); the rest still load, and the import then ends with
    status 2 after committing them. A trace id DB already holds is replaced, with a warning.
    Exits with status 2 if nothing could be imported (1 if cancelled; 130 on Ctrl+C, which says
    what was kept); a DB this run created is then removed again (an existing DB is never removed). On a terminal, standard error shows
    the files and traces read so far and the rate.

    FILES may instead be one ClickHouse store's URL (README: "Team store"): the chat spans of its
    time window (?since=2h) are written into DB, as list and show read them there.

    \b
    Example:
        ctxviewer import spans.otlp.json traces.jsonl -o traces.db
        ctxviewer import exported-traces/ -o traces.db
        ctxviewer import --recursive exports/ -o traces.db
    """
    from ctxviewer.cli.stores import is_store_url
    from ctxviewer.cli.write import check_place

    if any(is_store_url(f) for f in files):
        if len(files) > 1 or fmt is not None:
            raise click.UsageError("a ClickHouse URL is imported on its own, without --format")
        check_place(db)
        _import_store(files[0], db, as_json)
        return
    from ctxviewer.importers import REGISTRY, ImportFailed
    from ctxviewer.pipeline.folders import skipped_count
    from ctxviewer.pipeline.importing import import_into
    from ctxviewer.store import BAD_TARGETS, StoreError
    from ctxviewer.util.file_kind import special_kind
    from ctxviewer.util.visible import one_line

    check_place(db)  # an empty name, a missing folder: a usage error (2), before any file is read
    for f in files:
        try:
            kind = special_kind(os.stat(f).st_mode)
        except OSError:
            continue  # missing or unreadable: import_into warns with file and reason
        if kind is not None and kind != "a directory":  # a FIFO would block for ever
            raise BadInput(f"{f}: is {kind}, not a regular file; give trace files or a folder")

    if fmt is not None:
        try:
            REGISTRY.get(fmt)
        except ImportFailed as exc:  # a usage error (exit status 2), before any database is touched
            raise click.BadParameter(str(exc), param_hint="'--format'") from None
    from ctxviewer.cli.interrupted import import_kept, says_what_was_kept, trace_mark
    from ctxviewer.cli.progress import ImportProgress, StatusLine
    from ctxviewer.util.interrupt import sigterm_exits

    existed = os.path.lexists(db)
    mark = trace_mark(db) if existed else 0  # an interrupt after the commit is told apart by it
    line = StatusLine(enabled=not as_json)  # on a terminal only: counts and rate, cleared at the end
    shown = ImportProgress(line, db)

    def waiting(message: str) -> None:
        line.clear()
        click.echo(f"waiting: {message}", err=True)

    try:
        with (says_what_was_kept(lambda: import_kept(db, existed, mark), line), line,
              sigterm_exits()):  # kill PID: rolled back, a database it created removed (as Ctrl+C)
            report = import_into(db, [Path(f) for f in files], fmt=fmt, waiting=waiting,
                                 progress=shown.on_files, read=shown.on_read, activity=shown.on_activity,
                                 recursive=recursive)
    except BAD_TARGETS as exc:  # bad input (2), untouched:
        raise BadInput(str(exc)) from None  # an older schema (never upgraded in place), another program's, a newer one's
    except (StoreError, ImportFailed) as exc:  # the output database cannot be written (1)
        raise click.ClickException(str(exc)) from None
    if as_json:
        _json_out(report.as_dict())
    else:
        for problem in report.problems:  # one that left data out is an error (exit status 2 below)
            click.echo(one_line(f"{'error' if problem.dropped else 'warning'}: {problem}"), err=True)
        for note in report.notes:  # what was done, nothing wrong (log records joined their spans)
            click.echo(one_line(f"note: {note}"), err=True)
        for unmapped in report.unmapped_lines():  # what the files hold that no field of ctxviewer took
            click.echo(one_line(f"note: {unmapped}"), err=True)
        for entry in report.skipped:  # what a folder held that was not imported, and why
            click.echo(one_line(entry.line()), err=True)
        if report.skipped:
            click.echo(skipped_count(report.skipped), err=True)
    outcome = report.outcome()
    partial = report.partial() if outcome is None else None
    if not as_json:
        click.echo(one_line(report.summary() + (f"; {partial}: exit status {BAD_INPUT}" if partial else "")))
    if outcome is not None:  # nothing could be read: bad input (2); a cancelled import: 1
        raise (click.ClickException if report.cancelled else BadInput)(outcome)
    if partial is not None:  # the rest is committed; a partial import is never a pass (as scan)
        raise SystemExit(BAD_INPUT)


def _import_store(url: str, db: str, as_json: bool) -> None:
    """``import URL -o DB``: the chat spans of a ClickHouse store's time window written into DB
    (:func:`ctxviewer.pipeline.clickhouse.pull.pull_window`), summarised as a file import is."""
    from ctxviewer.cli.stores import open_source
    from ctxviewer.pipeline.clickhouse.pull import pull_window
    from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
    from ctxviewer.store import BAD_TARGETS, StoreError
    from ctxviewer.util.visible import one_line

    source = open_source(url)
    assert isinstance(source, ClickHouseSource)
    try:
        report = pull_window(source, db)
    except BAD_TARGETS as exc:  # not a database, another program's, a newer or older schema: bad input (2), untouched
        raise BadInput(str(exc)) from None
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        source.close()
    if as_json:
        _json_out(report.as_dict())
    else:
        for problem in report.problems:
            click.echo(one_line(f"warning: {problem}"), err=True)
    skipped = sum(1 for p in report.problems if p.message.startswith("not imported"))
    if not as_json:
        click.echo(one_line(f"imported {report.imported} trace(s) from {url} into {db}"
                            + (f"; {skipped} span(s) not imported: exit status {BAD_INPUT}" if skipped else "")))
    outcome = report.outcome()
    if outcome is not None:
        raise BadInput(outcome)
    if skipped:  # the rest is committed; a partial import is never a pass (as for files)
        raise SystemExit(BAD_INPUT)


def _parse_size(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not WIDTHxHEIGHT, e.g. 1280x800") from None
    if not (320 <= w <= 7680 and 240 <= h <= 4320):
        raise click.BadParameter(f"{value!r} is outside 320x240 .. 7680x4320")
    return w, h


def _finite_scale(_ctx: click.Context, _param: click.Parameter, value: float | None) -> float | None:
    if value is not None and math.isnan(value):  # nan passes every range comparison
        raise click.BadParameter("nan is not in the range 0.25<=x<=4.0.")
    return value


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")
"""What ``screenshot -o`` writes (Qt's PNG, JPEG and BMP writers; no suffix: PNG)."""


def _check_image_output(output: str, db: str) -> None:
    """Refuse ``screenshot -o output`` before anything is rendered (:class:`click.BadParameter`,
    exit 2): ``-`` (an image is never written to standard output: name a file), a suffix Qt does
    not write, and what every ``-o`` refuses (:func:`ctxviewer.cli.write.check_output`: an existing
    file is never overwritten, a folder that does not exist)."""
    from ctxviewer.cli.write import check_output

    hint = "'-o' / '--output'"
    if output == "-":
        raise click.BadParameter("-: screenshot writes an image file, not standard output; name a file, "
                                 "e.g. -o shot.png", param_hint=hint)
    suffix = Path(output).suffix
    if suffix and suffix.lower() not in IMAGE_SUFFIXES:
        raise click.BadParameter(f"{output}: unsupported image type {suffix!r}; use .png, .jpg or .bmp",
                                 param_hint=hint)
    check_output(output, [db])


@cli.command("screenshot")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_id")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Image file to write (.png, .jpg or .bmp; the suffix picks the format).")
@click.option("--size", default="1280x800", callback=_parse_size, show_default=True,
              help="Window size WIDTHxHEIGHT in logical pixels.")
@click.option("--scale", type=click.FloatRange(0.25, 4.0), default=None, callback=_finite_scale,
              help="Image pixels per logical pixel (default: the screen's device pixel ratio).")
@click.option("--item", "item_id", default=None, help="Select this item (its content is shown); default: the first.")
@click.option("--tab", type=click.Choice(["items", "conversation", "findings", "tool-calls", "evidence", "run"]),
              default=None, help="Bring this diagnostics tab forward (default: as the window picks).")
@click.option("--raw", is_flag=True, help="Show messages as raw stored text (default: rendered).")
def screenshot_cmd(db: str, trace_id: str, output: str, size: tuple[int, int], scale: float | None,
                   item_id: str | None, tab: str | None, raw: bool) -> None:
    """Render the main window showing TRACE_ID offscreen and save it as a PNG.

    --size is in logical pixels; the written image is --size times --scale pixels (default: the
    device pixel ratio, so 2560x1600 for 1280x800 on a HiDPI screen), and the message says which.

    \b
    Example:
        ctxviewer screenshot sample_traces/samples.db budget-8k -o budget.png --size 1920x1080
    """
    _check_image_output(output, db)
    open_db(db).close()
    from ctxviewer.gui.screenshot import write_screenshot
    from ctxviewer.store import StoreError

    try:
        shot = write_screenshot(db, trace_id, output, size, item_id, scale, tab, raw)
    except KeyError:
        what = f"trace {trace_id!r} has no item {item_id!r}" if item_id else f"no trace with id {trace_id!r}"
        raise BadInput(f"{db}: {what}") from None
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:  # the folder refused the file (checked before, but it can change), the disk full...
        from ctxviewer.cli.output_path import cannot_write

        raise click.ClickException(cannot_write(output, exc, " the image") if exc.errno else str(exc)) from None
    click.echo(shot.describe())


# Commands in their own modules, imported only when used (start-up). Add a command as one line
# here, "name": "module:attribute", and its summary below: the first sentence of its help (its
# short_help for a name in _SHORT), which `ctxviewer --help` lists without importing the module
# (tests/cli/test_lazy_imports.py checks each against the command).
_SUMMARIES = {
    "serve": "Receive OpenTelemetry spans over OTLP/HTTP on 127.0.0.1 and write them into DB as they arrive.",
    "tokens": "Count the input tokens of a raw chat REQUEST (OpenAI or Anthropic shaped JSON).",
    "whatif": "Re-trim trace TRACE_ID of DB under other limits and priorities and show what changes.",
    "scan": "Scan FILE as untrusted data for instruction-like text (prompt injection).",
    "report": "Write one self-contained HTML report of traces in DB (all, or TRACE_IDs).",
    "diff": "Compare TRACE_A (before) with TRACE_B (after, e.g. its replay), item by item.",
    "check": "Run every check (Table 3.1 rows, tool calls, accounting) on traces in DB.",
    "upgrade": "Write a copy of DB upgraded to the current schema; DB itself is only read.",
    "export": "Export TRACE_IDS of DB (all traces when none are given) to FILE as OTLP/JSON.",
    "search": ("List the items of DB whose content contains every word of QUERY (each word as a word prefix, "
               'case-insensitive; "quoted words" as a phrase), with a one-line snippet.'),
    "list": ("List the request traces in DB, oldest first: by default the main columns fitted to a 100-column "
             "terminal, with --wide every column in full, with --json every field."),
    "show": "Show one trace: eq. 3.1 verdict, allocations and items in order.",
    "tree": ("Print the run TRACE_ID belongs to (a model call's trace id, or a run id) as an indented tree: each "
             "step with its kind, name, duration (ms) and status, each model call with its input / output tokens, "
             "cost and trace id, then the run's totals."),
    "stats": ("Sum the traces of DB (or those FILTER keeps): calls, input / output tokens, cost from the recorded "
              "usage (genai-prices; calls whose price is not known are counted apart, never as $0), mean and max "
              "span duration, states, span errors and context-window use ((input + reserved output) / C in bands, as eq. 3.1 decided it)."),
    "sessions": ("List the sessions (conversations) of DB in session-id order: each with its calls, first and last "
                 "send time, states ok / warning / failure, input / output tokens and cost."),
    "session": ("List the calls of session SESSION_ID in send order, each with its state, tokens, cost, span "
                "duration (ms) and worst finding; --diff N prints what changed from call N - 1 to call N."),
    "replay": ("Send trace TRACE_ID of DB to endpoint NAME again, store the answer as a new trace (replay_of "
               "TRACE_ID) and print its diff against the original."),
    "position-test": ("Move item --item of each TRACE_ID to each of --positions (only that item moves), send every "
                      "variant --repeats times to endpoint NAME, score each answer, and print accuracy per position "
                      "with Wilson 95 % intervals, Cochran's Q, exact McNemar per pair and the best - worst spread."),
    "position-results": ("Read result rows of a position harness from FILES and print accuracy per position with "
                         "Wilson 95 % intervals, Cochran's Q, exact McNemar per pair and the best - worst spread, "
                         "as position-test does."),
}
_SHORT = frozenset({"show"})
_LAZY = {
    "tokens": "ctxviewer.cli.tokens_cmd:tokens_cmd",
    "serve": "ctxviewer.cli.serve_cmd:serve_cmd",
    "whatif": "ctxviewer.cli.whatif_cmd:whatif_cmd",
    "scan": "ctxviewer.cli.scan_cmd:scan_cmd",
    "report": "ctxviewer.cli.report_cmd:report_cmd",
    "diff": "ctxviewer.cli.diff_cmd:diff_cmd",
    "check": "ctxviewer.cli.check_cmd:check_cmd",
    "upgrade": "ctxviewer.cli.upgrade_cmd:upgrade_cmd",
    "export": "ctxviewer.cli.export_cmd:export_cmd",
    "search": "ctxviewer.cli.search_cmd:search_cmd",
    "replay": "ctxviewer.cli.replay_cmd:replay_cmd",
    "position-test": "ctxviewer.cli.position_test_cmd:position_test_cmd",
    "position-results": "ctxviewer.cli.position_results_cmd:position_results_cmd",
    "list": "ctxviewer.cli.list_cmd:list_cmd",
    "show": "ctxviewer.cli.show_cmd:show_cmd",
    "stats": "ctxviewer.cli.stats_cmd:stats_cmd",
    "tree": "ctxviewer.cli.tree_cmd:tree_cmd",
    "sessions": "ctxviewer.cli.sessions_cmd:sessions_cmd",
    "session": "ctxviewer.cli.sessions_cmd:session_cmd",
}
_commands = LazyCommands(_LAZY, _SUMMARIES, _SHORT)
_commands.update(cli.commands)  # open, import, screenshot (defined above)
cli.commands = _commands


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``ctxviewer``): errors, Ctrl+C and a failed write to standard
    output end as one line and an exit status (:func:`ctxviewer.cli.output.run`), never a traceback."""
    from ctxviewer.cli.output import run

    # color=True: click would strip an escape sequence such as ESC [ 2 J from trace text written to a
    # pipe, hiding it; instead cli_output shows it as "␛[2J" on every stream.
    run(lambda: cli.main(args=argv, prog_name="ctxviewer", standalone_mode=False, color=True))
