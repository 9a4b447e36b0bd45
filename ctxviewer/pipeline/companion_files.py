"""Files of one import that are read together: a spans file and the OTLP logs file holding its
calls' content, Phoenix spans and their annotations.

:func:`plan` detects every file of the run once, and when a file's importer joins files of
another format that the run also holds (its ``joins`` member: the ``otel`` importer joins
``otel-logs`` files), it orders the run so that the joining files load first and the joined ones
after them, keeping the given order otherwise, and gives the run a
:class:`~ctxviewer.importers.contract.Companions` for :meth:`ctxviewer.importers.Registry.load`.
A run without such a pair loads as before (no companions). No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ctxviewer.importers import Importer, ImportFailed, ImportProblem, Registry
from ctxviewer.importers.contract import Companions
from ctxviewer.importers.registry import forced_blank


@dataclass(frozen=True)
class Planned:
    """One entry of the run: a path with its importer (or why detection failed), or a problem
    record of the folder expansion (``path`` the problem, ``importer`` ``None``)."""

    path: Path | ImportProblem
    importer: Importer | None
    failed: ImportFailed | None = None
    sniffed: tuple[ImportProblem, ...] = ()
    """Problems of detecting it (an importer's ``sniff`` that raised), reported when it loads."""


def plan(entries: Sequence[Path | ImportProblem], forced: Importer | None,
         registry: Registry) -> tuple[list[Planned], Companions | None]:
    """The run's entries with their importers (``forced``, else detected; a sniff's bug kept in
    :attr:`Planned.sniffed`; under ``forced``, an empty file fails as
    :func:`~ctxviewer.importers.registry.forced_blank` says), ordered so that files another file's importer joins come after all
    joining files, and the :class:`Companions` of the run (``None`` when no importer of the run
    joins a format the run holds). Never raises: a file that cannot be detected carries its
    :class:`ImportFailed`."""
    planned: list[Planned] = []
    for entry in entries:
        if isinstance(entry, ImportProblem):
            planned.append(Planned(entry, None))
            continue
        problems: list[ImportProblem] = []
        blank = forced_blank(entry, forced) if forced is not None else None
        if blank is not None:
            planned.append(Planned(entry, None, blank))
            continue
        try:
            planned.append(Planned(entry, forced or registry.detect(entry, problems), sniffed=tuple(problems)))
        except ImportFailed as exc:
            planned.append(Planned(entry, None, exc, tuple(problems)))
    files: dict[str, list[Path]] = {}
    for p in planned:
        if p.importer is not None and isinstance(p.path, Path):
            files.setdefault(p.importer.name, []).append(p.path)
    joined = {name for p in planned if p.importer is not None
              for name in getattr(p.importer, "joins", ()) if name in files}
    if not joined:
        return planned, None
    late = [p for p in planned if p.importer is not None and p.importer.name in joined]
    moved = {id(p) for p in late}
    return [p for p in planned if id(p) not in moved] + late, Companions(files)
