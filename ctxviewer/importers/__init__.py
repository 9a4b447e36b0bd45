"""Importers: one small module (or package) per trace format, behind one API and one registry.

* :mod:`._api` -- the importer shape (:class:`Importer`: ``name``, ``description``,
  ``records_omissions``, ``sniff(path, head) -> float``, ``load(path) -> Iterator[Record]``),
  :class:`ImportProblem`, :class:`ImportFailed`, :data:`CONFIDENT`.
* :mod:`._registry` -- built-ins plus third-party importers from the entry-point group
  ``ctxviewer.importers``; :func:`detect` picks the most confident importer, reading further into
  the file until one is confident; a bug in one importer becomes a problem record naming the file
  and the importer (:func:`load_records`), never a lost run.
* :mod:`.peek` -- :func:`peek_json`, the parse events of a cut-off JSON head, for sniffers.
* Formats: :mod:`.native` (``ctxviewer.trace/1`` JSON Lines) and :mod:`.otel` (OpenTelemetry
  GenAI spans, one module per span container over one chat-message normaliser).

Adding a format (issue 6 and third parties): write a module with a class like this and list it
in ``_registry.BUILTIN`` (or, outside ctxviewer, under the entry-point group)::

    class MyImporter:
        name = "myformat"
        description = "My tool's trace export (JSON Lines)"
        records_omissions = False          # the format records only what was sent

        def sniff(self, path: Path, head: bytes) -> float:
            doc = peek_json(head)          # works on a head cut off mid-document
            return 1.0 if doc.first("format") == "mytool/1" else 0.0

        def load(self, path: Path) -> Iterator[RequestTrace | ImportProblem]:
            ...                            # one trace per record; problems name the record;
                                           # never count tokens (the pipeline does)

    IMPORTER = MyImporter()

Chat-message formats reuse :mod:`.otel.messages` (normalise any ``{role, content|parts}`` shape to
OTel GenAI messages and render part text) and :func:`.otel.mapping.build_trace` (span attributes
to a :class:`~ctxviewer.model.trace.RequestTrace`). No Qt here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ctxviewer.importers.common.peek import JsonPeek, peek_json
from ctxviewer.importers.contract import CONFIDENT, Importer, ImportFailed, ImportProblem, Record
from ctxviewer.importers.registry import ENTRY_POINT_GROUP, HEAD_SIZES, REGISTRY, Registry

__all__ = [
    "CONFIDENT",
    "ENTRY_POINT_GROUP",
    "HEAD_SIZES",
    "REGISTRY",
    "ImportFailed",
    "ImportProblem",
    "Importer",
    "JsonPeek",
    "Record",
    "Registry",
    "detect",
    "get_importer",
    "importer_names",
    "load_records",
    "omissions_recorded",
    "peek_json",
    "register",
]


def register(importer: Importer) -> Importer:
    """Add ``importer`` to the default registry (sniffed after the built-ins). Returns it.

    Built-in modules need not call this (``_registry.BUILTIN`` lists them); calling it at import,
    as some do, is harmless."""
    return REGISTRY.register(importer)


def get_importer(name: str) -> Importer:
    """The importer registered as ``name``. Raises :class:`ImportFailed` listing the known names."""
    return REGISTRY.get(name)


def importer_names() -> list[str]:
    """Names of the registered importers, in sniffing order (``native``, ``otel``, plug-ins)."""
    return REGISTRY.names()


def detect(path: Path, problems: list[ImportProblem] | None = None) -> Importer:
    """The most confident importer for ``path`` (:meth:`Registry.detect`). Raises :class:`ImportFailed`."""
    return REGISTRY.detect(path, problems)


def load_records(importer: Importer, path: Path) -> Iterator[Record]:
    """``importer.load(path)`` with bugs turned into problem records (:meth:`Registry.load`)."""
    return REGISTRY.load(importer, path)


def omissions_recorded(source_format: str | None) -> bool:
    """Whether traces from ``source_format`` can say which candidate items were omitted.

    The importer's declared ``records_omissions``: False for OpenTelemetry GenAI spans (they
    record only what was sent, so omitted counts show as "not recorded", never 0). True for the
    native format, for traces built by an application (``None``) and for unknown formats.
    """
    return REGISTRY.records_omissions(source_format)
