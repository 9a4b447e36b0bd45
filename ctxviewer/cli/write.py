"""Writing the ``-o`` file of a command through :mod:`ctxviewer.cli.output_path`, with click errors:
a refused path is a usage error (exit 2), a failed write one ``Error: FILE: cannot write (...)``."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

import click

from ctxviewer.cli.output import json_escape
from ctxviewer.cli.output_path import (
    OutputPathError,
    atomic_writer,
    cannot_write,
    output_target,
    place_problem,
    unwritable_folder,
)
from ctxviewer.util.visible import SUSPECT, reveal


def check_place(output: str, option: str = "'-o' / '--output'") -> None:
    """Refuse a file that cannot be placed (:func:`~ctxviewer.cli.output_path.place_problem`: an
    empty name, a folder that does not exist) before any work: :class:`click.BadParameter`, exit 2.
    For the outputs that are databases (``import -o``, ``whatif --save``, ``upgrade -o``)."""
    problem = place_problem(output)
    if problem is not None:
        raise click.BadParameter(f"{output}: {problem}" if output else problem, param_hint=option)


def check_output(output: str, inputs: Iterable[str]) -> None:
    """Refuse ``output`` before any work: a path :func:`~ctxviewer.cli.output_path.output_target`
    refuses (raises :class:`click.BadParameter`, exit 2), or a folder the file cannot be created in
    (:func:`~ctxviewer.cli.output_path.unwritable_folder`: :class:`click.ClickException`, exit 1,
    ``F: cannot write: folder D is not writable (read-only file system or no permission)``)."""
    try:
        target = output_target(output, inputs)
    except OutputPathError as exc:
        raise click.BadParameter(str(exc), param_hint="'-o' / '--output'") from None
    problem = unwritable_folder(output) if target is not None else None
    if problem is not None:
        raise click.ClickException(f"{output}: cannot write: {problem}")


def write_output(output: str, inputs: Iterable[str], write: Callable[[TextIO], object], *, json_text: bool) -> None:
    """Call ``write`` with a text stream for ``output`` (``-``: standard output; else an atomic
    write of the guarded target). On standard output trace text stays inert
    (:mod:`ctxviewer.cli.output`): JSON (``json_text``) gets ``\\uXXXX`` escapes, other text the
    visible marks; the file keeps the text as it is. Raises :class:`click.BadParameter` (refused path, exit 2) or
    :class:`click.ClickException` naming ``output`` (write failed, exit 1)."""
    try:
        target = output_target(output, inputs)
    except OutputPathError as exc:
        raise click.BadParameter(str(exc), param_hint="'-o' / '--output'") from None
    if target is None:
        buf = io.StringIO()
        write(buf)
        text = buf.getvalue()
        if SUSPECT.search(text):
            text = json_escape(text) if json_text else reveal(text).text
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    problem = unwritable_folder(output)  # before write() does the work
    if problem is not None:
        raise click.ClickException(f"{output}: cannot write: {problem}")
    try:
        with atomic_writer(target) as fh:
            write(fh)
    except OSError as exc:
        raise click.ClickException(cannot_write(output, exc)) from None
