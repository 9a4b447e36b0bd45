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
import importlib
import os
from contextlib import contextmanager
from typing import Any, Iterator

import click
from click_default_group import DefaultGroup


class LazyCommands(dict[str, click.Command]):
    """A group's ``commands`` that imports a command's module only when that command is used
    (``ctxviewer show`` should not pay for importing every other command).

    Built from ``{name: "module:attribute"}``. Looking one name up (``get``, ``[]``, ``in``) imports
    at most that command; listing the commands (iteration, ``items()``, ``len()``) imports them all,
    except inside :meth:`summaries_only`, where a command not yet imported is listed by its
    summary (``summaries``: the first sentence of its help, or its ``short_help`` for a name in
    ``short``) without importing it -- what the group's ``--help`` needs
    (``tests/cli/test_lazy_imports.py`` holds each summary to the command's own).
    """

    def __init__(self, lazy: dict[str, str], summaries: dict[str, str] | None = None,
                 short: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._lazy = dict(lazy)
        self._summaries = dict(summaries or {})
        self._short = short
        self._summary_mode = False

    @contextmanager
    def summaries_only(self) -> Iterator[None]:
        """Within: iteration lists every name and ``get`` gives a command not yet imported as a
        stand-in carrying only its summary (a name without one is imported)."""
        self._summary_mode = True
        try:
            yield
        finally:
            self._summary_mode = False

    def _stand_in(self, name: str) -> click.Command | None:
        text = self._summaries.get(name) if name in self._lazy else None
        if text is None:
            return None
        return click.Command(name, short_help=text) if name in self._short else click.Command(name, help=text)

    def _load(self, name: object) -> None:
        spec = self._lazy.pop(name, None) if isinstance(name, str) else None
        if spec is not None and isinstance(name, str):
            module, attr = spec.split(":")
            super().__setitem__(name, getattr(importlib.import_module(module), attr))

    def _load_all(self) -> None:
        for name in list(self._lazy):
            self._load(name)

    def __getitem__(self, name: str) -> click.Command:
        self._load(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:
        if self._summary_mode and (stand_in := self._stand_in(name)) is not None:
            return stand_in
        self._load(name)
        return super().get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._lazy or super().__contains__(name)

    def __iter__(self) -> Iterator[str]:
        if self._summary_mode:
            return iter([*super().keys(), *self._lazy])
        self._load_all()
        return super().__iter__()

    def __len__(self) -> int:
        return super().__len__() + len(self._lazy)

    def keys(self) -> Any:
        self._load_all()
        return super().keys()

    def items(self) -> Any:
        self._load_all()
        return super().items()

    def values(self) -> Any:
        self._load_all()
        return super().values()


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

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The group's command list, each command not yet imported listed by its summary
        (:meth:`LazyCommands.summaries_only`): ``ctxviewer --help`` imports no command module."""
        commands = self.commands
        if not isinstance(commands, LazyCommands):
            super().format_commands(ctx, formatter)
            return
        with commands.summaries_only():
            super().format_commands(ctx, formatter)
