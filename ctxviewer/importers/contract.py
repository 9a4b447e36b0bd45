"""The importer shape: what every importer (built-in or third-party) provides, and what it yields.

An importer is any object with these attributes (a :class:`typing.Protocol`, so no base class):

* ``name`` -- short id, used by ``ctxviewer import --format NAME`` and stored as each trace's
  ``source_format`` (``native``, ``otel``, ...);
* ``description`` -- one line for ``--help`` and error messages;
* ``records_omissions`` -- whether the format can say which candidate items were *omitted*.
  OpenTelemetry GenAI spans record only what was sent (``False``: their omitted counts show as
  "not recorded", never 0); the native format records omitted items (``True``);
* ``sniff(path, head) -> float`` -- confidence that the file is in this format, a ``float`` in
  ``[0, 1]`` judged from ``head`` (the first bytes of the file; the scale is :data:`CONFIDENT`'s).
  It may be called again with a longer head when no importer was confident; it should not raise.
  The registry holds the contract: an exception, or a result that is not a real number in
  ``[0, 1]`` (a bool, NaN, 1.5), scores 0 and becomes an :class:`ImportProblem` naming the
  importer;
* ``load(path) -> Iterator[RequestTrace | ImportProblem]`` -- the traces of the file in file
  order, with a problem record for each bad record (naming it) while loading goes on where that is
  safe. A file that cannot be read at all raises :class:`ImportFailed`. Importers never count
  tokens: an item whose count the file did not record has ``tokens=None``; the import pipeline
  counts it (:mod:`ctxviewer.pipeline.importing`). Counts read from the file carry a
  :class:`~ctxviewer.model.trace.TokenProvenance` (``recorded`` / ``reported``).

No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import RequestTrace

CONFIDENT = 0.9
"""A sniff score at or above this decides the format without reading further into the file.

Conventions, so that the most confident importer is the right one (ties between equal scores go
to the first registered, built-ins first, which no real export relies on):

* ``1.0`` -- the file declares the format: a format tag (``"format": "ctxviewer.trace/1"``, the
  ``ctxviewer.trace_id`` span attribute of a ctxviewer export);
* :data:`SPECIFIC` (``0.95``) -- a shape and keys that only this format writes (a Langfuse
  export's ``trace`` and ``observations``, a LangSmith run's ``run_type``, OpenInference's
  ``llm.*`` attribute names, an HTTP cassette's ``interactions``);
* ``0.9`` -- a container shared by several formats *and* the vocabulary of this one (an OTLP
  request whose spans carry ``gen_ai.*`` attributes; an untagged object with ``trace_id`` and
  ``items``);
* ``0.5`` (or lower) -- the container matches but the deciding keys were not in ``head`` (yet):
  the registry reads further;
* ``0.0`` -- not this format."""

SPECIFIC = 0.95
"""The sniff score of a shape and keys only one format writes (see :data:`CONFIDENT`): above a
shared container's ``0.9``, below a declared format tag's ``1.0``."""


@dataclass(frozen=True)
class ImportProblem:
    """A record (or file) that could not be imported. ``str()`` gives ``"FILE: RECORD: MESSAGE"``."""

    file: str
    """Path of the file, as given."""
    record: str
    """Which record: ``"line 3"``, ``"span 03491beea3cb073d"``, ``"whole file"``."""
    message: str
    """What is wrong, e.g. ``"items[2].status: 'kept' is not one of retained, omitted"``."""
    dropped: int = field(default=0, compare=False, kw_only=True)
    """Records this problem left out of the import (a line that is not JSON, a record that could not
    be mapped: ``1``; ``"… and 7 more lines of invalid JSON"``: ``7``); on a ``whole file`` (or
    ``whole directory``) problem, any non-zero value means the file could not be read (whole, or the
    rest of it). ``0``: a warning that keeps the data (a missing parent span, a repaired field).
    Any dropped record makes ``ctxviewer import`` end with exit status 2 after the rest is committed."""
    info: bool = field(default=False, compare=False, kw_only=True)
    """True for a note that only states what was done (nothing is wrong and the user has nothing
    to act on: the log records of a separate OTLP logs file joined their spans): the import report
    keeps it among its notes (``note:``), never among its warnings."""

    def __str__(self) -> str:
        return f"{self.file}: {self.record}: {self.message}"


class ImportFailed(Exception):
    """A whole file could not be read (missing, not JSON, wrong format). The message names the file."""


Record = RequestTrace | ImportProblem
"""What :meth:`Importer.load` yields."""


@dataclass
class Companions:
    """The files of one import run that another file's importer reads beside its own: OTLP log
    records (``otel-logs``) joined to the spans of a separate file (``otel``), Phoenix span
    annotations to their spans (``openinference``).

    An importer that joins files of other formats names them in an optional member ``joins``
    (a tuple of importer names: ``OtelImporter.joins = ("otel-logs",)``); both it and the
    importer of those files accept ``load(path, companions=...)``. The import run
    (:func:`ctxviewer.pipeline.importing.import_files`) loads the joining files first, then the
    joined ones, so each companion file's importer knows which of its records were joined
    (:attr:`joined`) and imports only the rest, naming them in a warning."""

    files: Mapping[str, Sequence[Path]]
    """Importer name -> the run's files detected as that format, in run order."""
    joined: dict[Path, set[str]] = field(default_factory=dict)
    """Companion file -> the keys of its records a joining importer attached (span ids, hex)."""
    hosts: dict[Path, list[str]] = field(default_factory=dict)
    """Companion file -> the files (paths as given) its joined records went to, in load order."""
    cache: dict[Any, Any] = field(default_factory=dict)
    """What a joining importer read from a companion file once, for the next joining file."""

    def of(self, name: str) -> Sequence[Path]:
        """The run's files of format ``name`` (``[]`` when none)."""
        return self.files.get(name, ())

    def mark(self, companion: Path, keys: set[str], host: str) -> None:
        """Record that ``host`` (a file's path) joined the records ``keys`` of ``companion``."""
        if keys:
            self.joined.setdefault(companion, set()).update(keys)
            hosts = self.hosts.setdefault(companion, [])
            if host not in hosts:
                hosts.append(host)

RunRecord = RequestTrace | ImportProblem | RunSpan
"""What an importer's optional ``load_runs(path)`` yields: :meth:`Importer.load`'s records and,
beside them, the steps of each run (:class:`~ctxviewer.model.run.RunSpan`: agents, tools,
retrievers and the model calls themselves, with their parent links), which
:meth:`Registry.load(importer, path, runs) <ctxviewer.importers.registry.Registry.load>` collects
for the store's run tree. ``load(path)`` is then ``load_runs`` without the steps."""


@runtime_checkable
class Importer(Protocol):
    """The shape every importer provides (see the module docstring for each member's contract)."""

    name: str
    description: str
    records_omissions: bool

    def sniff(self, path: Path, head: bytes) -> float:
        """Confidence 0..1 that ``path`` (whose first bytes are ``head``) is in this format."""
        ...

    def load(self, path: Path) -> Iterator[Record]:
        """The traces and problem records of ``path``, in file order. Raises :class:`ImportFailed`."""
        ...
