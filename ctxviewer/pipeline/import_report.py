"""What one import run did: :class:`ImportReport`, worded the same by the CLI and the GUI
(:meth:`~ImportReport.summary`, :meth:`~ImportReport.outcome`). Filled by
:mod:`ctxviewer.pipeline.importing` (files, and the live receiver's records); importable from
there too. No Qt here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ctxviewer.importers import ImportProblem
from ctxviewer.importers.common.field_account import describe_unmapped
from ctxviewer.pipeline.folders import Skipped


@dataclass
class ImportReport:
    """What one :func:`import_files` / :func:`import_into` run did. The CLI and the GUI word it with
    :meth:`summary` and :meth:`outcome`, so both say the same thing."""

    imported: int
    """Traces written to the store (0 when the run was cancelled or failed)."""
    problems: list[ImportProblem] = field(default_factory=list)
    """Files and records that could not be imported, in file order."""
    files: int = 0
    """Files processed (including files that failed wholesale; a directory counts its files)."""
    cancelled: bool = False
    """True when ``cancelled()`` stopped the run; nothing was written."""
    files_imported: int = 0
    """Files that yielded at least one trace (0 when the run was cancelled)."""
    database: str | None = None
    """The database imported into (set by :func:`import_into`)."""
    removed_database: bool = False
    """True when :func:`import_into` removed the database it had created, since nothing was imported."""

    skipped: list[Skipped] = field(default_factory=list)
    """Entries of the directories given that were not imported (sub-folders, hidden entries, the
    database itself), in path order: :func:`~ctxviewer.pipeline.folders.expand_paths`."""

    unmapped: dict[str, Counter[str]] = field(default_factory=dict)
    """Per file, the source keys its importer did not map, each with the number of records holding
    it (the traces' ``ctxviewer.unmapped``: :mod:`ctxviewer.importers.common.field_account`); files
    mapped whole are absent."""

    replaced: int = 0
    """Traces the database already held (from an earlier import) that a record of this run replaced,
    each named by a problem (``"trace X is already in traces.db; this record replaces it"``)."""

    items_by_trace: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    """Item count of each distinct trace id written by this run (a repeated id counts once: the
    later record replaced the earlier one, with a problem saying so)."""
    notes: list[ImportProblem] = field(default_factory=list)
    """What the run did that is no problem (:attr:`ImportProblem.info`: ``"9 log record(s) joined
    their spans in traces.jsonl: ..."``), in file order: said as ``note:``, never as a warning."""

    def as_dict(self) -> dict[str, object]:
        """The ``import --json`` summary: ``files``, ``files_imported``, ``traces`` (distinct traces
        written, equal to what the database holds from this run), ``items``, ``warnings`` (each
        ``{file, record, message, severity}``: ``"error"`` when it left data out -- the entries that
        make the exit status 2 -- else ``"warning"``), ``notes`` (the same shape, ``"info"``: :attr:`notes`), ``skipped`` (each ``{path, kind, reason}``: :class:`Skipped`),
        ``unmapped`` (each ``{file, keys: {key: records}, summary}``: the source keys not mapped,
        most frequent first), ``database`` (``None`` when this run removed the database it had created,
        then ``removed_database`` is true), ``cancelled``, ``replaced`` (traces already in the
        database that this run replaced), ``files_unreadable`` and ``records_skipped`` (:meth:`partial`)."""
        return {"files": self.files, "files_imported": self.files_imported, "traces": self.imported,
                "replaced": self.replaced if self.imported else 0, "files_unreadable": len(self.unread_files()),
                "records_skipped": self.records_skipped(),
                "items": sum(self.items_by_trace.values()) if self.imported else 0,
                "warnings": [{"file": p.file, "record": p.record, "message": p.message,
                              "severity": "error" if p.dropped else "warning"} for p in self.problems],
                "notes": [{"file": p.file, "record": p.record, "message": p.message, "severity": "info"}
                          for p in self.notes],
                "skipped": [{"path": k.path, "kind": k.kind, "reason": k.reason} for k in self.skipped],
                "unmapped": [{"file": f, "keys": dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))),
                              "summary": describe_unmapped(c)} for f, c in self.unmapped.items()],
                "database": None if self.removed_database else self.database,
                "removed_database": self.removed_database, "cancelled": self.cancelled}

    def unmapped_lines(self) -> list[str]:
        """One line per file whose importer left keys unmapped: ``"FILE: 12 keys not mapped:
        llm.invocation_parameters ×9, …"`` (:func:`~ctxviewer.importers.common.field_account.describe_unmapped`)."""
        return [f"{f}: {describe_unmapped(c)}" for f, c in self.unmapped.items()]

    def summary(self) -> str:
        """``"imported 2 trace(s) from 1 of 2 file(s) into traces.db"`` (``"from 2 file(s)"`` when
        every file yielded traces; no ``into`` part without a database or when the database this run
        created was removed again), then ``", replacing 1 trace(s) already there"`` when :attr:`replaced`."""
        sources = str(self.files) if self.files_imported == self.files else f"{self.files_imported} of {self.files}"
        into = f" into {self.database}" if self.database and not self.removed_database else ""
        again = f", replacing {self.replaced} trace(s) already there" if self.replaced and self.imported else ""
        return f"imported {self.imported} trace(s) from {sources} file(s){into}{again}"

    def unread_files(self) -> list[str]:
        """The files (and folders) named whose reading failed, whole or part-way, in problem order
        (a ``whole file`` / ``whole directory`` problem with :attr:`ImportProblem.dropped`)."""
        return list(dict.fromkeys(p.file for p in self.problems if p.dropped and p.record.startswith("whole ")))

    def records_skipped(self) -> int:
        """Records left out of files that were read (the sum of the other problems' ``dropped``)."""
        return sum(p.dropped for p in self.problems if not p.record.startswith("whole "))

    def partial(self) -> str | None:
        """``"1 file(s) could not be read, 2 record(s) skipped"`` when data named for the import was
        left out (the CLI then ends with exit status 2 after committing the rest), else ``None``."""
        files, records = len(self.unread_files()), self.records_skipped()
        return f"{files} file(s) could not be read, {records} record(s) skipped" if files or records else None

    def outcome(self) -> str | None:
        """Why nothing was imported, or ``None`` when traces were: ``"no traces imported"``,
        ``"import cancelled; nothing was written"``, each followed by ``"; removed traces.db, which
        this import had created"`` when :func:`import_into` removed the database."""
        if self.imported and not self.cancelled:
            return None
        text = "import cancelled; nothing was written" if self.cancelled else "no traces imported"
        if self.removed_database:
            text += f"; removed {self.database}, which this import had created"
        return text
