"""The ``--format`` option of ``ctxviewer import``, whose help lists every importer of the registry.

The names are read from :data:`ctxviewer.importers.registry.REGISTRY` only when the help is shown
(``import --help``), so the command line does not import the importers to start, and importers
added by plug-ins (entry points) are listed too. The README's import-formats table lists the same
names (``tests/cli/test_readme_tables.py`` checks it against the registry).
"""

from __future__ import annotations

import click


def format_names() -> list[str]:
    """Every importer name :data:`~ctxviewer.importers.registry.REGISTRY` holds, in sniffing order
    (built-ins first, then plug-ins)."""
    from ctxviewer.importers.registry import REGISTRY

    return REGISTRY.names()


class FormatOption(click.Option):
    """A click option whose help ends with ``"One of: native, openinference, otel, ..."``, read
    from the registry when the help is rendered."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        """The option's help line with the registry's format names appended."""
        record = super().get_help_record(ctx)
        if record is None:
            return None
        names = ", ".join(format_names())
        return record[0], f"{record[1]} One of: {names}."
