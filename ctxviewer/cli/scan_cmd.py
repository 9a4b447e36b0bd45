"""``ctxviewer scan FILE``: scan a text file, every string of a JSON file, or one field of each JSON Lines record, as untrusted
data with the prompt-injection scanner (:mod:`ctxviewer.assess.scanner`), the same rules the
``injection`` check runs on trace items. Exit statuses: :mod:`ctxviewer.cli.status` (records that
could not be scanned are bad input, never a pass). Registered on the group in :mod:`ctxviewer.cli`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ctxviewer.assess.scanner import CLEAN, RULES
from ctxviewer.assess.scanner.text_scan import ScanInputError, line_col, scan_file
from ctxviewer.cli.status import BAD_INPUT, EPILOG, FINDINGS, BadInput
from ctxviewer.model.findings import Severity
from ctxviewer.util.visible import one_line

MAX_WARNINGS = 20
"""Skipped-record warnings printed per scan; the rest are counted in one line (a
wrong ``--jsonl-field`` printed 4,560 identical warnings)."""


@click.command("scan", epilog=EPILOG)
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--jsonl-field", "field", default=None, metavar="NAME",
              help="Treat FILE as JSON Lines and scan this field of each record.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per finding (a JSON list).")
def scan_cmd(file: str, field: str | None, as_json: bool) -> None:
    """Scan FILE as untrusted data for instruction-like text (prompt injection).

    A JSON or JSON Lines FILE is scanned string by string: each string value decoded and on its
    own, named by its JSON path. Prints one line per finding: where (line, or record line and
    field, or line and JSON path), the character span in code points, the severity, the rule and
    the reason; flagged text is shown with invisible
    characters made visible. A clean scan says "no instruction-like text found" (never "safe").
    Exit status 1 when a finding of severity warning or worse was printed; 2 when FILE cannot be
    read or a record was skipped (not JSON, no such field): a partial scan is never a pass. A
    scanner-rule plug-in that could not be loaded, or that failed, is named in a warning.

    \b
    Example:
        ctxviewer scan ticket.txt
        ctxviewer scan texts.jsonl --jsonl-field text --json
    """
    from ctxviewer.cli.output import gates_on_findings
    from ctxviewer.util.file_kind import InputFileError, check_readable

    gates_on_findings()
    if field is not None and not field.strip():
        raise click.BadParameter("needs a field name, not an empty one", param_hint="'--jsonl-field'")
    try:
        check_readable(file, "scan")
        result = scan_file(Path(file), field)
    except (ScanInputError, InputFileError) as exc:
        raise BadInput(str(exc)) from None
    for plugin_problem in RULES.problems:  # a scanner-rule plug-in that did not load or raised: the scan ran without it
        click.echo(one_line(f"warning: {plugin_problem}"), err=True)
    for problem in result.problems[:MAX_WARNINGS]:
        click.echo(one_line(f"warning: {problem}"), err=True)
    if len(result.problems) > MAX_WARNINGS:
        click.echo(one_line(f"warning: {file}: {len(result.problems) - MAX_WARNINGS:,} more record(s) not "
                            "scanned, not listed"), err=True)
    if field and not result.results and result.problems:
        fields = _first_record_fields(Path(file))
        if fields and field not in fields:
            click.echo(one_line(f"{file}: no record has a text field {field!r}; the first record's fields: "
                                + ", ".join(fields)), err=True)
    rows = []
    for r in result.results:
        for h in r.hits:
            line = r.line if field or result.strings is not None else line_col(r.text, h.start)[0]
            rows.append({"line": line, "record_id": r.record_id, "field": field, "path": r.path,
                         "start": h.start, "end": h.end,
                         "severity": h.severity.value, "rule": h.rule, "reason": h.reason,
                         "text": r.text[h.start:h.end]})
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        for row in rows:
            where = one_line(f"{file}:{row['line']}" + (f" {field}" if field else "")
                             + (f" {row['path']}" if row["path"] is not None else ""))
            click.echo(f"{where} [{row['start']}:{row['end']}] {row['severity']} {row['rule']}: "
                       f"{one_line(str(row['reason']))}")
        strings = result.strings
        scanned = strings if strings is not None else len(result.results)
        units = f"{scanned} record(s)" if field else f"{scanned:,} JSON string(s)" if strings is not None else "the file"
        flagged = (len({r["line"] for r in rows}) if field else
                   len({(r["line"], r["path"]) for r in rows}) if strings is not None else None)
        if not rows and not scanned:  # nothing read: no "no instruction-like text found" for it
            click.echo(one_line(f"{file}: nothing was scanned (no {'record' if field else 'text'} to scan)"))
        elif not rows:
            click.echo(one_line(f"{file}: {CLEAN} in {units}"))
        else:
            click.echo(one_line(f"{file}: {len(rows)} finding(s)" + (f" in {flagged} of {units}" if flagged is not None else "")))
    if result.strings is not None and rows:  # a trace export scanned whole: say what check would scan instead
        from ctxviewer.pipeline.hints import trace_format
        from ctxviewer.util.file_kind import shell_word, suggested_database  # the database in the working folder

        looks = trace_format(file)
        if looks is not None:
            click.echo(one_line(
                f"note: {file} looks like {looks}: scan read every string as untrusted data, the user's own words and "
                f"the application's tool definitions too; 'ctxviewer import {shell_word(file)} -o "
                f"{shell_word(Path(suggested_database(file)).name)}' then 'ctxviewer check' scans only what the trace marks "
                "untrusted"), err=True)
    if result.problems:
        what = ("record(s) not scanned" if field else
                "part(s) not read as JSON, scanned as plain text instead: the scan is partial")
        click.echo(one_line(f"{file}: {len(result.problems):,} {what} (see the warnings above); "
                            f"exit status {BAD_INPUT}"), err=True)
        raise SystemExit(BAD_INPUT)
    if any(Severity(r["severity"]).rank >= Severity.WARNING.rank for r in rows):
        raise SystemExit(FINDINGS)


def _first_record_fields(path: Path) -> list[str]:
    """The keys of the first JSON object line of ``path`` (``[]`` when there is none): named when
    ``--jsonl-field`` matched no record, so the user sees what the records hold."""
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    record = json.loads(line)
                    return [str(k) for k in record] if isinstance(record, dict) else []
    except (OSError, ValueError, RecursionError):
        pass
    return []
