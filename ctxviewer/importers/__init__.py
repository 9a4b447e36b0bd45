"""Importers: reading trace files. One module (or package) per format, helpers the formats share,
one contract and one registry.

What lives here:

* :mod:`.contract` -- the importer shape (:class:`Importer`, a Protocol: ``name``,
  ``description``, ``records_omissions``, ``sniff(path, head) -> float`` in ``[0, 1]``,
  ``load(path) -> Iterator[Record]``), :class:`ImportProblem`, :class:`ImportFailed`, the
  confidence scale (:data:`CONFIDENT`, :data:`~.contract.SPECIFIC`);
* :mod:`.registry` -- the built-ins and the plug-ins of the entry-point group
  ``ctxviewer.importers`` (:class:`Registry`, on :class:`ctxviewer.util.plugins.PluginRegistry`);
  :func:`detect` picks the most confident importer, reading further into the file until one is
  confident; a bug in one importer becomes a problem record naming the file and the importer
  (:func:`load_records`), never a lost run;
* :mod:`.formats` -- the fifteen formats, one module each (``otel`` and ``mlflow`` packages), in sniffing order:

  ``native`` (ctxviewer's JSON Lines trace format, ``ctxviewer.trace/1``), ``openinference``
  (OpenInference / Arize Phoenix spans), ``otel`` (OpenTelemetry GenAI spans: OTLP/JSON and
  protobuf, span lists, attribute maps; a package, whose ``otel.logs`` is ``otel-logs``: OTLP log records of GenAI events without their spans), ``ctxviewer_otlp`` (``ctxviewer-otlp``: OTLP
  written by ``ctxviewer export --format otlp``), ``cassette`` (VCR / pytest-recording YAML
  cassettes of provider API calls), ``inspect_ai`` (Inspect AI eval logs, ``.json`` and ``.eval``
  zips), ``langfuse`` (Langfuse trace downloads; a package, whose ``langfuse.blob`` is
  ``langfuse-blob``: the blob-storage export's table files and run manifests), ``langfuse_chatml`` (``langfuse-chatml``:
  Langfuse normalised ChatML per observation), ``langsmith`` (LangSmith runs: ingestion batches,
  run lists, run trees), ``litellm`` (LiteLLM ``StandardLoggingPayload`` logs), ``mlflow`` (MLflow traces, v3 JSON), ``promptfoo``
  (promptfoo eval exports), ``provider_api`` (``provider-api``: OpenAI Chat Completions /
  Responses and Anthropic Messages request + response JSON), ``phoenix_annotations``
  (``phoenix-annotations``: Phoenix span annotations, read with their spans) -- module names; the ``--format``
  name is the same unless given;

* :mod:`.common` -- what several formats share: reading files (containers, peeking at a cut-off
  head, notes from deep readers), chat messages of every vocabulary, the span containers
  (:mod:`.common.spans`), and the one normaliser from a model call to a trace
  (:mod:`.common.llm_call`: :class:`~.common.llm_call.LLMCall` -> ``build_trace``).

May import: :mod:`ctxviewer.model` and :mod:`ctxviewer.util` (and third-party parsers). Never the
assessment, the store or a front end (import-linter contracts in ``pyproject.toml``). Inside:
formats import :mod:`.common` and :mod:`.contract`; :mod:`.common` never imports a format; no
format imports another.

A new built-in format is a module in :mod:`.formats` defining ``IMPORTER`` and listed in
:data:`.registry.BUILTIN` where it should be sniffed; a model-call format maps its records to an
:class:`~.common.llm_call.LLMCall` and calls ``build_trace``. Outside ctxviewer, an object of the
same shape under the entry-point group (``[project.entry-points."ctxviewer.importers"]
myformat = "mypkg.importer:IMPORTER"``)::

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

No Qt here.
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
    """Add ``importer`` to the default registry (sniffed after the built-ins and the importers
    registered before it; once loaded, one of the same name is replaced in its place, before
    that a built-in's name stays the built-in's). Returns it. Raises
    :class:`TypeError` for an object without the importer shape. Built-ins never call this:
    :data:`.registry.BUILTIN` lists them."""
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
