"""Importers: a registry of small modules, one per trace format (mitmproxy-contentviews style).

Each importer module defines one :class:`Importer` and registers it in :data:`IMPORTERS`. An
importer has one shape:

* ``name`` -- short id used by ``ctxviewer import --format NAME`` (``native``, ``otel``, ...);
* ``records_omissions`` (optional, default True) -- False when the format cannot record which
  candidates were omitted (see :func:`omissions_recorded`);
* ``sniff(path, head)`` -- True if the file looks like this format; ``head`` is the first
  64 KiB of the file as bytes. Must not raise;
* ``load(path)`` -- yields :class:`~ctxviewer.model.RequestTrace` objects and
  :class:`ImportProblem` records, in file order. A bad record yields a problem (naming the record
  and what is wrong) and loading goes on with the next record where that is safe. An unreadable
  file raises :class:`ImportFailed`.

:func:`detect` picks the importer for a file; the store's import runs the records in one
transaction. No Qt here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Protocol

from ..model import RequestTrace

HEAD_BYTES = 64 * 1024
"""How much of a file :func:`detect` reads for sniffing (bytes)."""


@dataclass(frozen=True)
class ImportProblem:
    """A record that could not be imported. ``str()`` gives ``"FILE: RECORD: MESSAGE"``."""

    file: str
    """Path of the file, as given."""
    record: str
    """Which record: ``"line 3"``, ``"span 03491beea3cb073d"``, ``"resourceSpans[0].scopeSpans[1].spans[2]"``."""
    message: str
    """What is wrong, e.g. ``"items[2].status: 'kept' is not one of retained, omitted"``."""

    def __str__(self) -> str:
        return f"{self.file}: {self.record}: {self.message}"


class ImportFailed(Exception):
    """A whole file could not be read (missing, not JSON, wrong format). The message names the file."""


Record = RequestTrace | ImportProblem


class Importer(Protocol):
    """The shape every importer module provides (see module docstring)."""

    name: str
    description: str

    def sniff(self, path: Path, head: bytes) -> bool: ...

    def load(self, path: Path) -> Iterator[Record]: ...


IMPORTERS: dict[str, Importer] = {}
"""Registered importers by name, in sniffing order."""


def register(importer: Importer) -> Importer:
    """Add ``importer`` to :data:`IMPORTERS` (last registered is sniffed last). Returns it."""
    IMPORTERS[importer.name] = importer
    return importer


@functools.cache
def _load_builtin() -> None:
    """Import the built-in importer modules once; importing a module registers it.

    Cached: :func:`omissions_recorded` runs for every painted trace-list cell.
    """
    # Registration order matters: keep ruff's isort away.
    # isort: off
    from . import native  # noqa: F401  (most specific format first)
    from . import openinference  # noqa: F401  (before otel: OpenInference OTLP files are OTLP too)
    from . import otel  # noqa: F401
    from . import cassette, inspect_ai, langsmith, litellm, promptfoo, provider_api  # noqa: F401
    # isort: on


def omissions_recorded(source_format: str | None) -> bool:
    """Whether traces from ``source_format`` can say which candidate items were omitted.

    False for formats whose importer sets ``records_omissions = False`` -- OpenTelemetry GenAI
    spans record only what was sent, so their omitted counts show as "not recorded", never 0.
    True for the native format, for traces built by an application (``None``) and unknown formats.
    """
    if source_format is None:
        return True
    _load_builtin()
    imp = IMPORTERS.get(source_format)
    return bool(getattr(imp, "records_omissions", True)) if imp is not None else True


def get_importer(name: str) -> Importer:
    """The importer registered as ``name``. Raises :class:`ImportFailed` listing the known names."""
    _load_builtin()
    try:
        return IMPORTERS[name]
    except KeyError:
        raise ImportFailed(f"unknown format {name!r}; known formats: {', '.join(IMPORTERS)}") from None


def detect(path: Path) -> Importer:
    """The first registered importer whose ``sniff`` accepts ``path``.

    Raises :class:`ImportFailed` when the file cannot be read or no importer recognises it.
    """
    _load_builtin()
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise ImportFailed(f"{path}: cannot read file: {exc.strerror or exc}") from None
    for imp in IMPORTERS.values():
        try:
            if imp.sniff(path, head):
                return imp
        except Exception:  # one failing plug-in never breaks detection
            continue
    raise ImportFailed(
        f"{path}: not a recognised trace file (known formats: {', '.join(IMPORTERS)}); "
        "use --format to force one"
    )
