"""Exit statuses of the gating commands (``check``, ``scan``), so CI can tell findings from bad input.

- ``0``: the input was read whole and nothing at the threshold was found;
- ``1`` (:data:`FINDINGS`): a finding at or above the threshold (``--fail-on`` for ``check``,
  warning for ``scan``);
- ``2`` (:data:`BAD_INPUT`): a usage error (click's own status: a bad option or value) or bad
  input -- a database or file that cannot be read, a trace id it does not hold, a broken
  configuration, or (``scan``) records that were skipped and so not scanned. Bad input wins over
  findings: a scan that could not read everything is not a pass, whatever it found.
"""

from __future__ import annotations

import click

FINDINGS = 1
"""A finding at or above the threshold."""
BAD_INPUT = 2
"""A usage error or input that could not be read (same status as click's usage errors)."""

EPILOG = ("Exit status: 0 nothing at the threshold; 1 findings at or above it; "
          "2 usage error or bad input (unreadable file or database, unknown trace id, skipped records).")
"""The exit statuses in one line, for the commands' ``--help``."""


class BadInput(click.ClickException):
    """An input error, printed as ``Error: MESSAGE`` with exit status :data:`BAD_INPUT`."""

    exit_code = BAD_INPUT
