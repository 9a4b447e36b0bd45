"""Which files a directory given to an import stands for, and what it holds that is not imported.

``import DIR`` reads the regular, non-hidden files directly inside DIR, in name order
(:func:`expand_paths`); ``import --recursive DIR`` reads its sub-folders too, depth first in name
order, without following a link to a folder. Every other entry -- a sub-folder (not recursive),
a hidden file or folder, a broken link or special file, a link to a folder (recursive), the
database being imported into -- is a :class:`Skipped` with its reason, which the import's report keeps and ``ctxviewer import`` names one line each
(:meth:`Skipped.line`) with a count (:func:`skipped_count`). No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from ctxviewer.importers import ImportProblem


@dataclass(frozen=True)
class Skipped:
    """An entry of a directory given to an import that was not imported, and why (``import DIR``
    names each one: :meth:`line`)."""

    path: str
    """The entry's path (the directory given, joined with the entry's name)."""
    kind: str
    """``"folder"`` or ``"file"``."""
    reason: str
    """Why: :data:`NOT_RECURSED`, :data:`HIDDEN`, :data:`OWN_DATABASE`, :data:`NOT_REGULAR` or
    :data:`LINKED_FOLDER`."""

    def line(self) -> str:
        """``"skipped folder runs/node_modules/ (not scanned: ...)"``: a folder's path ends in ``/``."""
        return f"skipped {self.kind} {self.path}{'/' if self.kind == 'folder' else ''} ({self.reason})"


NOT_RECURSED = ("not scanned: import reads only the files directly inside a folder; give the folder itself, "
                "or import --recursive, to import it")
LINKED_FOLDER = "a link to a folder: not followed (it may lead back up); give it itself to import it"
HIDDEN = "hidden: its name starts with '.'"
OWN_DATABASE = "the database being imported into"
NOT_REGULAR = "not a regular file: a broken link, a FIFO, a socket or a device"


def skipped_count(skipped: Sequence[Skipped]) -> str:
    """``"skipped 2 folder(s) and 1 file(s)"`` (the count after :meth:`Skipped.line` lines)."""
    folders = sum(1 for s in skipped if s.kind == "folder")
    return f"skipped {folders} folder(s) and {len(skipped) - folders} file(s)"


def expand_paths(paths: Iterable[str | Path], skip: str | Path | None = None,
                 skipped: list[Skipped] | None = None, recursive: bool = False) -> list[Path | ImportProblem]:
    """``paths`` with each directory replaced by the files to import from it.

    A directory contributes every regular file directly inside it, sorted by name, skipping hidden
    files and folders (names starting with ``.``), subdirectories (with ``recursive``: their files
    in their place, depth first in name order, a link to a folder not followed), and the database
    ``skip`` with its ``-journal``/``-wal``/``-shm`` files (the store being imported into may live
    in the directory); each entry left out is appended to ``skipped`` (when given) as a
    :class:`Skipped` with its reason. A directory given that cannot be listed or holds no such
    file (at any depth, with ``recursive``) becomes an :class:`ImportProblem` in its place; a
    sub-folder that cannot be listed is one too. Other paths (including missing ones) are kept as
    they are.
    """
    own = set() if skip is None else {Path(f"{Path(skip).resolve()}{s}") for s in ("", "-journal", "-wal", "-shm")}
    out: list[Path | ImportProblem] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            out.append(path)
            continue
        found: list[Path | ImportProblem] = []
        if not _walk(path, own, skipped, recursive, found, top=True):
            out.extend(found)  # the directory given could not be listed: its problem
            continue
        if not any(isinstance(f, Path) for f in found):
            where = "this directory or its sub-folders" if recursive else "this directory"
            found.append(ImportProblem(str(path), "whole directory", f"no files to import in {where}"))
        out.extend(found)
    return out


def _walk(folder: Path, own: set[Path], skipped: list[Skipped] | None, recursive: bool,
          out: list[Path | ImportProblem], top: bool = False) -> bool:
    """Append the files to import from ``folder`` to ``out`` (with ``recursive`` a sub-folder's in
    its place, depth first in name order, with a stack of folder listings rather than Python
    recursion: any depth); ``False`` when ``folder`` itself could not be listed (a problem is appended)."""
    first = _listing(folder, out, top)
    if first is None:
        return False
    stack = [first]
    while stack:
        p = next(stack[-1], None)
        if p is None:
            stack.pop()
            continue
        if recursive and p.is_dir() and not p.name.startswith("."):
            if p.is_symlink():
                if skipped is not None:
                    skipped.append(Skipped(str(p), "folder", LINKED_FOLDER))
            elif (listing := _listing(p, out, False)) is not None:
                stack.append(listing)
            continue
        why = _why_skipped(p, own)
        if why is None:
            out.append(p)
        elif skipped is not None:
            skipped.append(Skipped(str(p), "folder" if p.is_dir() else "file", why))
    return True


def _listing(folder: Path, out: list[Path | ImportProblem], top: bool) -> Iterator[Path] | None:
    """The entries of ``folder`` in name order, or ``None`` with a problem appended to ``out``."""
    try:
        return iter(sorted(folder.iterdir(), key=lambda p: p.name))
    except OSError as exc:
        out.append(ImportProblem(str(folder), "whole directory" if top else "sub-folder",
                                 f"cannot read directory: {exc.strerror or exc}", dropped=1))
        return None


def _why_skipped(entry: Path, own: set[Path]) -> str | None:
    """Why the directory entry ``entry`` is not imported, or ``None`` when it is (a regular,
    non-hidden file other than the target database ``own``)."""
    if entry.name.startswith("."):
        return HIDDEN
    if entry.is_dir():
        return NOT_RECURSED
    if not entry.is_file():
        return NOT_REGULAR
    if entry.resolve() in own:
        return OWN_DATABASE
    return None
