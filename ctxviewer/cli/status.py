"""Exit statuses of every ``ctxviewer`` command: the one table (README, "Command line").

- ``0``: success (``check``/``scan``: the input was read whole and nothing at the threshold was
  found; ``serve``: stopped by Ctrl+C or SIGTERM, its normal end, after its ``stopped:`` line);
- ``1`` (:data:`FINDINGS`): ``check``/``scan``: a finding at or above the threshold (``--fail-on``
  for ``check``, warning for ``scan``); other commands: an error that is neither a usage error nor
  bad input (an output file that cannot be written, an import cancelled);
- ``2`` (:data:`BAD_INPUT`): a usage error (click's own status: an unknown command or option, a
  bad option value -- also a ``--filter`` that does not parse, ``tokens --encoding bogus``, a
  search query without a word) or bad input -- a database or file that is missing, a directory,
  unreadable or corrupt, a trace id it does not hold, a broken configuration, an import that read
  no trace or could not read a file it was given or skipped records (after committing the rest),
  or (``scan``) records that were skipped and so not scanned. Bad input wins over
  findings: a scan that could not read everything is not a pass, whatever it found.

- ``141`` (:data:`ctxviewer.cli.output.PIPE_CLOSED`): ``check``/``scan`` whose reader went away
  before the run finished; other commands end quietly with 0 then.

- ``130`` (:data:`INTERRUPTED`): stopped by Ctrl+C (128 + SIGINT), after a line saying what was
  kept (``interrupted: nothing was written; traces.db is as it was``: :mod:`ctxviewer.cli.interrupted`).

Commands raise :class:`BadInput` for bad input and usage errors found after parsing, and
``click.ClickException`` (status 1) for the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ctxviewer.store.filters import FilterError

FINDINGS = 1
"""A finding at or above the threshold."""
BAD_INPUT = 2
"""A usage error or input that could not be read (same status as click's usage errors)."""

INTERRUPTED = 130
"""Stopped by Ctrl+C (128 + SIGINT, as a shell reports it)."""

EPILOG = ("Exit status: 0 nothing at the threshold; 1 findings at or above it; "
          "2 usage error or bad input (unreadable file or database, unknown trace id, skipped records).")
"""The exit statuses in one line, for the commands' ``--help``."""


class BadInput(click.ClickException):
    """An input error, printed as ``Error: MESSAGE`` with exit status :data:`BAD_INPUT`.

    ``message`` is shown on one line (paths and ids revealed, :func:`ctxviewer.cli.output.error_text`);
    ``detail`` holds lines meant to follow it (e.g. a filter with a caret under the error)."""

    exit_code = BAD_INPUT

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail

    def format_message(self) -> str:
        """The message, then each line of :attr:`detail` indented by two spaces."""
        return self.message + "".join("\n  " + line for line in self.detail.split("\n") if self.detail)


def bad_filter(exc: FilterError) -> BadInput:
    """The :class:`BadInput` of a ``--filter`` that does not parse: ``--filter: MESSAGE, at column N:``
    (1-based) with the filter and a caret under the error as :attr:`BadInput.detail`. Every command
    taking ``--filter`` says it the same way."""
    return BadInput(f"--filter: {exc.message}, at column {exc.position + 1}:", detail=exc.caret())
