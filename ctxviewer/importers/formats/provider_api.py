"""Provider API exchanges: OpenAI Chat Completions, OpenAI Responses and Anthropic Messages
request + response JSON, one :class:`~ctxviewer.model.trace.RequestTrace` per exchange.

Accepted files (any container of :mod:`ctxviewer.importers.common.containers`):

* ``{"request": {...}, "response": {...}}`` -- one exchange; the request/response may be the bare
  bodies or ``{method, uri, body, status}`` HTTP records with the body as JSON or a JSON string;
* JSON Lines or a JSON list of such pairs;
* ``{"interactions": [{request, response}, ...]}`` -- parsed HTTP cassettes (the corpus's
  ``*.extracted.json``). YAML cassettes go through :mod:`ctxviewer.importers.formats.cassette`.

Each exchange is read by :mod:`ctxviewer.importers.common.exchanges` (the API told by the URI or
the body shapes, streams reassembled, HTTP errors as span status), shared with the HTTP cassettes
of :mod:`ctxviewer.importers.formats.cassette`. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common.containers import load_documents, sniff_document
from ctxviewer.importers.common.exchanges import api_of, http_body, load_exchanges
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, Record

NAME = "provider-api"


def pairs_of(doc: Any) -> list[tuple[Any, Any]] | None:
    """The ``(request, response)`` pairs of one document, or ``None`` if it holds none."""
    if isinstance(doc, Mapping):
        if isinstance(doc.get("interactions"), list):
            return [(i.get("request"), i.get("response")) for i in doc["interactions"] if isinstance(i, Mapping)]
        if "request" in doc and "response" in doc:
            return [(doc["request"], doc["response"])]
        return None
    if isinstance(doc, list) and doc and all(isinstance(d, Mapping) and "request" in d for d in doc):
        return [(d.get("request"), d.get("response")) for d in doc]
    return None


def _looks_like_exchange(doc: Any) -> bool:
    pairs = pairs_of(doc)
    if not pairs:
        return False
    req, resp = http_body(pairs[0][0]), http_body(pairs[0][1])
    uri = pairs[0][0].get("uri") if isinstance(pairs[0][0], Mapping) else None
    return api_of(uri if isinstance(uri, str) else None, req, resp) is not None


class ProviderApiImporter:
    """The ``provider-api`` importer (see module docstring)."""

    name = NAME
    records_omissions = False
    description = "OpenAI Chat Completions / Responses and Anthropic Messages request+response JSON"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` when the first document holds a request/response pair of a
        known API; else 0."""
        doc = sniff_document(head)
        return SPECIFIC if doc is not None and _looks_like_exchange(doc) else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per exchange, in file order; problems for bad exchanges and warnings."""
        docs = load_documents(path)

        def triples() -> Iterator[tuple[str, Any, Any]]:
            for record, doc in docs:
                if isinstance(doc, Exception):
                    yield record, None, None
                    continue
                pairs = pairs_of(doc)
                if pairs is None:
                    continue
                for i, (req, resp) in enumerate(pairs):
                    yield (f"{record} interactions[{i}]" if len(pairs) > 1 or record == "document" else record), req, resp

        if not any(pairs_of(d) for _r, d in docs if not isinstance(d, Exception)):
            raise ImportFailed(f"{path}: no request/response pairs (expected request+response or interactions[])")
        yield from load_exchanges(path, triples(), self.name)


IMPORTER = ProviderApiImporter()
