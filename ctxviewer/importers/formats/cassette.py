"""Recorded HTTP cassettes (VCR.py / pytest-recording YAML) of provider APIs: one trace per
interaction, mapped by :mod:`ctxviewer.importers.common.exchanges`.

A cassette is ``{interactions: [{request: {method, uri, body, headers}, response: {status: {code},
headers, body: {string}}}], version}`` (vcrpy ``cassette.py`` serializer). Bodies are JSON strings,
``!!binary`` bytes (gzip-compressed when the server sent ``content-encoding: gzip``) or SSE text.
Headers are never imported (they may hold API keys). Parsed with PyYAML's safe loader. No Qt here.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterator

import yaml

from ctxviewer.importers.common.compressed import GZIP_MAGIC, gunzip
from ctxviewer.importers.common.containers import head_text, read_text
from ctxviewer.importers.common.exchanges import load_exchanges
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record


def _body(value: Any) -> Any:
    if isinstance(value, Mapping) and "string" in value:
        value = value["string"]
    if isinstance(value, (bytes, bytearray)):
        data = bytes(value)
        if data.startswith(GZIP_MAGIC):  # within the same bound as a gzipped file (no decompression bomb)
            try:
                data = gunzip(data, "a gzip body in the cassette")
            except (EOFError, OSError, zlib.error):  # cut short or not gzip after all: kept as recorded
                pass
        value = data.decode("utf-8", errors="replace")
    return value


def _http(record: Any) -> dict[str, Any]:
    """The HTTP record with its body decoded; its other keys (``headers``) stay for the account of
    every field (named, never imported)."""
    if not isinstance(record, Mapping):
        return {}
    return {**record, "body": _body(record.get("body"))}


class CassetteImporter:
    """The ``cassette`` importer (see module docstring)."""

    name = "cassette"
    records_omissions = False
    description = "VCR/pytest-recording YAML cassettes of OpenAI and Anthropic API calls"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` for YAML starting with ``interactions:`` that records
        requests; else 0."""
        text = head_text(head).lstrip()
        return SPECIFIC if text.startswith("interactions:") and "request:" in text else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per interaction; problems for interactions that are not API calls, and a
        warning per interaction that records a request but no ``response`` key (the file cut short)."""
        try:
            doc = yaml.safe_load(read_text(path))
        except yaml.YAMLError as exc:
            raise ImportFailed(f"{path}: not a YAML cassette: {exc}") from None
        if not isinstance(doc, Mapping) or not isinstance(doc.get("interactions"), list):
            raise ImportFailed(f"{path}: not a cassette (no interactions list)")
        interactions = [(i, it) for i, it in enumerate(doc["interactions"]) if isinstance(it, Mapping)]
        triples = ((f"interactions[{i}]", _http(it.get("request")), _http(it.get("response")))
                   for i, it in interactions)
        yield from load_exchanges(path, triples, self.name)
        for i, it in interactions:  # new-user finding F20: a cassette cut short is still YAML
            if "request" in it and "response" not in it:
                yield ImportProblem(str(path), f"interactions[{i}]", "no response recorded (a recorder writes one "
                                    "with every request: was the file cut short?); imported with the response "
                                    "not recorded")


IMPORTER = CassetteImporter()
