"""``ctxviewer upgrade OLD.db -o NEW.db``: write an upgraded copy of an older trace database.

A database opened for viewing (``open``, ``list``, ``show``, ``screenshot``) is read-only and never
upgraded in place; when its schema is older, those commands say so and point here.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from ctxviewer.cli.status import BadInput
from ctxviewer.cli.write import check_place
from ctxviewer.pipeline.backfill import upgrade_with_facts
from ctxviewer.store import StoreError
from ctxviewer.util.visible import one_line


@click.command("upgrade")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="New database file for the upgraded copy (must not exist).")
def upgrade_cmd(db: str, output: str) -> None:
    """Write a copy of DB upgraded to the current schema; DB itself is only read.

    The copy gets the facts newer schemas store for each trace (state, verdict, margin, ...),
    computed by assessing every stored trace; a DB already at the current schema gets them
    re-assessed with this ctxviewer's checks. Each stage is named on stderr as it starts; the copy
    is built under a temporary name beside NEW.db and renamed when complete, so an interrupted
    upgrade leaves no NEW.db.

    \b
    Example:
        ctxviewer upgrade old-traces.db -o traces.db
    """
    if output == "-":
        raise BadInput("-o -: upgrade writes a database file, not a stream to standard output; name a new "
                       "file, e.g. -o upgraded.db")
    check_place(output)  # an empty name, a missing folder: a usage error (2), as for every -o
    folder = Path(output).parent
    if folder.is_dir() and not os.access(folder, os.W_OK):  # the output, not the input: status 1
        raise click.ClickException(one_line(f"{output}: cannot write: folder {folder} is not writable "
                                            "(read-only file system or no permission)"))
    try:
        result = upgrade_with_facts(db, output, progress=lambda line: click.echo(one_line(f"upgrade: {line}"), err=True))
    except StoreError as exc:
        if exc.path == Path(output) and exc.problem.startswith("cannot write the copy"):
            raise click.ClickException(one_line(f"{output}: cannot write the upgraded copy: "
                                                f"{_os_reason(exc.problem)}")) from None
        raise BadInput(str(exc)) from None
    except ValueError as exc:  # a broken ctxviewer.toml or marks file beside the new file
        raise BadInput(str(exc)) from None
    if result.from_version == result.to_version:
        click.echo(one_line(f"wrote {result.path}: {db} is already at schema {result.to_version}; copied with its "
                            f"{result.traces:,} trace(s) re-assessed; {db} is unchanged"))
    else:
        click.echo(one_line(f"wrote {result.path}: schema {result.from_version} -> {result.to_version}, "
                            f"{result.traces:,} trace(s); {db} is unchanged"))


def _os_reason(problem: str) -> str:
    """``"cannot write the copy: [Errno 30] Read-only file system: '/x/.n.db.upgrading-k3'"`` ->
    ``"read-only file system"``: the reason without the errno and the temporary file's name."""
    reason = problem.partition(": ")[2]
    if reason.startswith("[Errno"):
        reason = reason.partition("] ")[2].partition(": '")[0]
    return reason[:1].lower() + reason[1:] if reason else problem
