"""``python -m ctxviewer`` and the ``ctxviewer`` command (``[project.scripts]``).

``show DB TRACE_ID --json [--content]`` -- what scripts run once per trace -- is answered without
loading click or the other commands (:func:`ctxviewer.show_json.answer`, issue 11: a CLI command
within 2.5x a bare interpreter); everything else, and anything that goes wrong there, runs the
click command group :func:`ctxviewer.cli.main`, which says the same thing about a trace.
"""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run ``argv`` (default ``sys.argv[1:]``) as a ``ctxviewer`` command."""
    from .show_json import answer

    words = list(sys.argv[1:] if argv is None else argv)
    if answer(words):
        raise SystemExit(0)  # as click's standalone mode ends a command that succeeded
    from .cli import main as cli_main

    cli_main(words)


if __name__ == "__main__":
    main()
