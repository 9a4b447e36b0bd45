"""Which files a directory given to an import stands for, and what it holds that is not imported.

``import DIR`` reads the regular, non-hidden files directly inside DIR, in name order (not
recursive: :func:`expand_paths`). Every other entry -- a sub-folder, a hidden file or folder, a
broken link or special file, the database being imported into -- is a :class:`Skipped` with its
reason, which the import's report keeps and ``ctxviewer import`` names one line each
(:meth:`Skipped.line`) with a count (:func:`skipped_count`). No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

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
    """Why: :data:`NOT_RECURSED`, :data:`HIDDEN`, :data:`OWN_DATABASE` or :data:`NOT_REGULAR`."""

    def line(self) -> str:
        """``"skipped folder runs/node_modules/ (not scanned: ...)"``: a folder's path ends in ``/``."""
        return f"skipped {self.kind} {self.path}{'/' if self.kind == 'folder' else ''} ({self.reason})"


NOT_RECURSED = "not scanned: import reads only the files directly inside a folder; give the folder itself to import it"
HIDDEN = "hidden: its name starts with '.'"
OWN_DATABASE = "the database being imported into"
NOT_REGULAR = "not a regular file: a broken link, a FIFO, a socket or a device"


def skipped_count(skipped: Sequence[Skipped]) -> str:
    """``"skipped 2 folder(s) and 1 file(s)"`` (the count after :meth:`Skipped.line` lines)."""
    folders = sum(1 for s in skipped if s.kind == "folder")
    return f"skipped {folders} folder(s) and {len(skipped) - folders} file(s)"


def expand_paths(paths: Iterable[str | Path], skip: str | Path | None = None,
                 skipped: list[Skipped] | None = None) -> list[Path | ImportProblem]:
    """``paths`` with each directory replaced by the files to import from it.

    A directory contributes every regular file directly inside it (not recursive), sorted by name,
    skipping hidden files (names starting with ``.``), subdirectories, and the database ``skip``
    with its ``-journal``/``-wal``/``-shm`` files (the store being imported into may live in the
    directory); each entry left out is appended to ``skipped`` (when given) as a :class:`Skipped`
    with its reason. A directory that cannot be listed or holds no such file becomes an
    :class:`ImportProblem` in its place. Other paths (including missing ones) are kept as they are.
    """
    own = set() if skip is None else {Path(f"{Path(skip).resolve()}{s}") for s in ("", "-journal", "-wal", "-shm")}
    out: list[Path | ImportProblem] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            out.append(path)
            continue
        try:
            entries = sorted(path.iterdir(), key=lambda p: p.name)
            files = []
            for p in entries:
                why = _why_skipped(p, own)
                if why is None:
                    files.append(p)
                elif skipped is not None:
                    skipped.append(Skipped(str(p), "folder" if p.is_dir() else "file", why))
        except OSError as exc:
            out.append(ImportProblem(str(path), "whole directory", f"cannot read directory: {exc.strerror or exc}",
                                     dropped=1))
            continue
        if not files:
            out.append(ImportProblem(str(path), "whole directory", "no files to import in this directory"))
        out.extend(files)
    return out


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
