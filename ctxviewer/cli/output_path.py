"""The one guard for files a command writes with ``-o`` (``export``, ``report``, ``check -o``).

A command that was asked to *read* trace databases must never destroy one: the README promises
that ctxviewer "never modifies a file it was only asked to show". :func:`output_target` refuses

* an output that is the same file as one of the inputs (also through a symlink or another name);
* an existing SQLite database (``SQLite format 3`` header), whichever it is: choose a new name;
* an existing file that is not a regular file (a device such as ``/dev/full``, a FIFO, a socket),
  which the atomic write (temporary file + rename) would replace by a regular file;
* any other existing file (``report s.db -o traces.jsonl`` replaced the user's
  source traces with HTML). Like ``upgrade -o``, an output is always a new file; there is no
  ``--force``: remove the old file first.

A dangling symlink is followed: the file it points to is created, the link stays. ``-`` means standard
output. :func:`atomic_writer` writes next to the target and renames over it, so a failed write
leaves the old file (or none) and no temporary file behind.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TextIO

from ctxviewer.util.file_kind import special_kind

STDOUT = "-"
_SQLITE_MAGIC = b"SQLite format 3\x00"


class OutputPathError(ValueError):
    """The output path may not be written; the message names the path and says what to do."""


def place_problem(output: str) -> str | None:
    """Why a new file cannot even be placed at ``output``: ``"an empty file name"``, ``"folder F does
    not exist"`` (``F`` as given), ``"F is not a folder"`` (a file where the folder should be), ``"a link
    to T, whose folder D does not exist"`` (a dangling symbolic link that cannot be followed; one
    into an existing folder is followed and its target created), else ``None``. Every command that writes a file asks this first
    (``-o``, ``--save``), so an output in a missing folder is the same usage error (exit status 2)
    with the same words everywhere."""
    if not output:
        return "an empty file name"
    if os.path.islink(output) and not os.path.exists(output):  # SQLite would say "unable to open database file"
        target = os.readlink(output)
        where = os.path.dirname(os.path.join(os.path.dirname(output), target)) or "."
        if not os.path.isdir(where):
            return f"a link to {target}, whose folder {where} does not exist"
        return None
    folder = os.path.dirname(output)
    if folder and not os.path.isdir(folder) and not os.path.lexists(output):
        return f"{folder} is not a folder" if os.path.lexists(folder) else f"folder {folder} does not exist"
    return None


NOT_WRITABLE = "is not writable (read-only file system or no permission)"
"""How a folder a new file cannot be created in is said (the store says the same of a database's folder)."""


def unwritable_folder(output: str) -> str | None:
    """``"folder F is not writable (read-only file system or no permission)"`` when the folder of
    ``output`` (``F`` as given; ``.`` for a bare name) exists but the process may not create a
    file in it (``os.access``), else ``None``. Asked before the work of a command whose output
    is written at its end, so the work is not done for nothing."""
    folder = os.path.dirname(output) or "."
    if os.path.isdir(folder) and not os.access(folder, os.W_OK):
        return f"folder {folder} {NOT_WRITABLE}"
    return None


def cannot_write(output: str, exc: OSError, what: str = "") -> str:
    """The one line for a failed write of the new file ``output``: ``"F: cannot write{what}:
    folder D is not writable (Permission denied)"`` for a refusal (EACCES, EPERM, EROFS: the file is new, so it
    is its folder that refuses), else ``"F: cannot write{what} (STRERROR)"`` (``No space left on
    device``...)."""
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{output}: cannot write{what}: folder {os.path.dirname(output) or '.'} is not writable ({exc.strerror or exc})"
    return f"{output}: cannot write{what} ({exc.strerror or exc})"


def output_target(output: str, inputs: Iterable[str] = ()) -> Path | None:
    """The file to write for ``-o output`` (symlinks resolved), or ``None`` for ``-`` (stdout).

    ``inputs`` are the files the command reads (trace databases). Raises
    :class:`OutputPathError` when ``output`` is one of them, is an existing SQLite database,
    exists and is not a regular file, or exists at all (see the module docstring), or cannot be
    placed (:func:`place_problem`: an empty name, a folder that does not exist)."""
    if output == STDOUT:
        return None
    problem = place_problem(output)
    if problem is not None:
        raise OutputPathError(f"{output}: {problem}" if output else f"{problem}; name a file (or '-' for "
                              "standard output)")
    try:
        st = os.stat(output)
    except OSError:
        return Path(os.path.realpath(output))  # new file (or a dangling symlink's target)
    for src in inputs:
        with suppress(OSError):
            if os.path.samefile(output, src):
                raise OutputPathError(f"{output}: is the input database {src}; it is never written; "
                                      "choose another file")
    kind = special_kind(st.st_mode)
    if kind is not None:
        raise OutputPathError(f"{output}: is {kind}, not a regular file; choose a file "
                              "(or '-' for standard output)")
    head = b""
    with suppress(OSError), open(output, "rb") as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    if head == _SQLITE_MAGIC:
        raise OutputPathError(f"{output}: is an SQLite database; it is never overwritten; choose a new file name")
    raise OutputPathError(f"{output}: already exists; it is never overwritten; choose a new file name "
                          "(or remove the old file first)")


@contextmanager
def atomic_writer(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text stream to ``path.tmp``, renamed over ``path`` when the block ends without error.
    On any error the temporary file is removed (if it can be) and the error re-raised (OSError
    for write problems)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
