"""The click group class of ``ctxviewer``: the window as the default command, with manners.

``ctxviewer DB`` opens the window on DB (click-default-group's default command), so a first word
that is not a command is taken as a database path. That made ``ctxviewer frobnicate x.db --json``
fail inside ``open`` with "No such option: --json". :class:`ViewerGroup` keeps ``ctxviewer DB``
and refuses a first word that cannot be a database path: not an existing file or directory, and
no dot or path separator in it (a path such as ``new.db`` or ``./frobnicate`` still goes to
``open``, whose error names the missing file). The refusal is a usage error (exit status 2) that
names the word, suggests the closest command and lists them all.
"""

from __future__ import annotations

import difflib
import os

import click
from click_default_group import DefaultGroup


def looks_like_a_path(word: str) -> bool:
    """True when ``word`` exists, or has a dot or a path separator (``x.db``, ``dir/x``, ``~``)."""
    seps = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    return os.path.lexists(word) or "." in word or "~" in word or any(s in word for s in seps)


class ViewerGroup(DefaultGroup):
    """:class:`DefaultGroup` that says "no such command" for a word that is neither a command nor
    a plausible database path (see the module docstring)."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        word = args[0] if args else ""
        if word and not word.startswith("-") and word not in self.commands and not looks_like_a_path(word):
            names = sorted(self.list_commands(ctx))
            close = difflib.get_close_matches(word, names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise click.UsageError(
                f"no such command '{word}'{hint}. Commands: {', '.join(names)}. "
                f"To open a trace database, give its path: ctxviewer traces.db",
                ctx,
            )
        return super().resolve_command(ctx, args)
