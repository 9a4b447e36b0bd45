"""OTel GenAI retrieval spans (``gen_ai.operation.name = "retrieval"``) recorded on the chat call
they fed: ``gen_ai.retrieval.query.text``, ``gen_ai.retrieval.documents`` (``[{id, score, ...}]``,
schema ``gen-ai-retrieval-documents.json``: only ``id`` and ``score`` required) and
``gen_ai.data_source.id`` (semconv registry, v1.40.0).

The documents are kept as the call's ``ctxviewer.documents`` (id, score, the rest of each
document as its metadata, the query; store = the data source or the span name) and the span in
``ctxviewer.fed_by`` -- not as evidence items: the chat span's own input messages are what was
sent, and a RAG application puts the retrieved text there itself, so items would count it twice.
No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.llm_call import Document, documents_attribute
from ctxviewer.importers.common.spans.span import Span


def is_retrieval_span(span: Span) -> bool:
    """True for a span of operation ``retrieval``."""
    return span.attributes.get("gen_ai.operation.name") == "retrieval"


def retrieval_documents(span: Span) -> list[Document]:
    """The documents of retrieval ``span`` (module docstring); ``[]`` when it records none."""
    a = span.attributes
    docs = gm.parse_structured(a.get("gen_ai.retrieval.documents"))
    query = pm._str(a.get("gen_ai.retrieval.query.text"))
    store = pm._str(a.get("gen_ai.data_source.id")) or pm._str(span.name)
    out = []
    for d in docs if isinstance(docs, list) else []:
        if not isinstance(d, Mapping):
            continue
        score = d.get("score")
        rest = {k: v for k, v in d.items() if k not in ("id", "score", "content")}
        out.append(Document(id=pm._str(d.get("id")), content=pm._str(d.get("content")),
                            score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
                            store=store, metadata=rest or None, query=query))
    return out


def retrieval_attributes(fed: list[tuple[Span, list[Document]]]) -> dict[str, Any]:
    """The attributes of a chat call fed by the retrieval spans ``fed`` (span, its documents):
    ``ctxviewer.documents`` (:func:`~ctxviewer.importers.common.llm_call.documents_attribute`)."""
    docs = [d for _s, ds in fed for d in ds]
    return documents_attribute(docs, items=False)
