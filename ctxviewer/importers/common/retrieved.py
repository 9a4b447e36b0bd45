"""Retrieved documents of a model call: their shape (:class:`Document`), their items and attribute
rows, and what a reranker between the retrieval and the call kept and dropped. No Qt here.

A RAG pipeline retrieves candidates (a RETRIEVER span: ``retrieval.documents``), a reranker
reorders them and keeps the best (a RERANKER span: ``reranker.input_documents`` the candidates it
was given, ``reranker.output_documents`` the ones it kept, ``reranker.top_k`` -- OpenInference
``spec/semantic_conventions.md``; LlamaIndex node postprocessors and Haystack rankers write it),
and only the reranker's output reaches the model. :func:`resolve` reads the spans that fed one
call in order and returns each document once -- however many spans name it (by ``document.id``,
else by its text) -- with the ones a reranker dropped marked by its name
(:attr:`Document.omission_reason`, ``"rank: ..."``, the what-if's rank rule): a dropped document
is an omitted ``evidence`` item, never a sent one, and a kept one is one item, not one per span.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from ctxviewer.model.trace import ContextItem, Kind, SourceRef, Status, Trust


@dataclass(frozen=True)
class Document:
    """A retrieved document that fed a model call (OpenInference ``retrieval.documents.N.document.*``)."""

    id: str | None
    """Document id as recorded."""
    content: str | None
    """Document text; ``None`` if not captured."""
    score: float | None = None
    """Retrieval score."""
    store: str | None = None
    """Store / retriever name."""
    metadata: Any = None
    """The document's metadata as recorded (a JSON object, usually); ``None`` if none."""
    query: str | None = None
    """The query of the retrieval that returned it; ``None`` if not recorded."""
    omission_reason: str | None = None
    """Why it was not sent, as the trace records it (a reranker dropped it: :func:`resolve`);
    ``None`` for a document that fed the call. Such a document is an omitted ``evidence`` item."""


@dataclass(frozen=True)
class Feed:
    """One span that gave documents to a call: a retrieval (``given`` is ``None``) or a reranker."""

    name: str
    """The span's name (``SentenceTransformerRerank.postprocess_nodes``) or id."""
    found: Sequence[Document]
    """A retrieval's documents; a reranker's output documents (what it kept, in its order)."""
    given: Sequence[Document] | None = None
    """A reranker's input documents (its candidates); ``None`` for a retrieval."""
    top_k: Any = None
    """A reranker's ``reranker.top_k`` as recorded; ``None`` if not recorded."""


def _key(d: Document) -> tuple[str, str] | None:
    return ("id", d.id) if d.id else (("text", d.content) if d.content else None)


def resolve(feeds: Sequence[Feed]) -> tuple[list[Document], str | None]:
    """The documents of ``feeds`` (in the order the spans ran) as one list -- each document once,
    as the first span that named it recorded it; those a reranker kept first, in its order; the
    ones a reranker was given and did not keep last, with :attr:`Document.omission_reason`
    ``"rank: dropped by reranker NAME (top_k K)"`` -- and the note saying what each reranker
    kept and dropped (``None`` when no reranker recorded both lists). A reranker that records
    no input documents drops nothing it was not shown to drop."""
    entries: list[list[Any]] = []  # [document, reason or None]
    said: list[str] = []

    def find(d: Document) -> list[Any]:
        k = _key(d)
        hit = next((e for e in entries if k is not None and _key(e[0]) == k), None)
        if hit is None and d.content:  # one span records the id, another only the text
            hit = next((e for e in entries if e[0].content == d.content), None)
        if hit is None:
            hit = [d, None]
            entries.append(hit)
        return hit

    for f in feeds:
        given = [find(d) for d in f.given or ()]
        kept: list[list[Any]] = []
        for d in f.found:
            e = find(d)
            if all(e is not x for x in kept):
                kept.append(e)
        if f.given is None:
            continue
        for e in kept:
            e[1] = None
        cut = [e for e in given if all(e is not k for k in kept)]
        k = f" (top_k {f.top_k})" if f.top_k not in (None, "") else ""
        for e in cut:
            e[1] = f"rank: dropped by reranker {f.name}{k}"
        entries[:] = kept + [e for e in entries if all(e is not x for x in kept)]
        if given:
            names = ", ".join(_name(e[0]) for e in cut) or "none"
            said.append(f"reranker {f.name}{k} kept {len(kept)} of {len(given)} document(s) "
                        f"({', '.join(_name(e[0]) for e in kept) or 'none'}); dropped: {names} "
                        "(omitted items: only its output reached the model)")
    sent = [e[0] for e in entries if e[1] is None]
    dropped = [replace(e[0], omission_reason=e[1]) for e in entries if e[1] is not None]
    return sent + dropped, "; ".join(said) or None


def _name(d: Document) -> str:
    return d.id or "(id not recorded)"


def doc_items(docs: Sequence[Document]) -> list[ContextItem]:
    """``evidence`` items ``doc-0``, ``doc-1`` ... of ``docs``, untrusted, source = store and id;
    a document with an :attr:`~Document.omission_reason` is omitted with that reason (the caller
    numbers the positions of the retained ones)."""
    out = []
    for n, d in enumerate(docs):
        item = ContextItem(kind=Kind.EVIDENCE, id=f"doc-{n}", content=d.content, trust=Trust.UNTRUSTED,
                           source=SourceRef(store=d.store, document_id=d.id))
        out.append(replace(item, status=Status.OMITTED, omission_reason=d.omission_reason) if d.omission_reason else item)
    return out


def documents_attribute(docs: Sequence[Document], items: bool = True) -> dict[str, Any]:
    """``{"ctxviewer.documents": [...]}``: what the retrieval recorded of each document beyond its
    text -- ``{"item", "id", "score", "metadata", "query", "store", "omitted"}`` (``item`` the
    evidence item's id ``doc-N``, left out with ``items`` False: documents that fed the call but
    are no items of it; ``omitted`` the reason a dropped one was not sent; a field not recorded left
    out) -- for the Attributes pane; ``{}`` when no document records a score, metadata, query or
    omission (OpenInference ``retrieval.documents.N.document.{id, score, metadata}`` with the
    RETRIEVER span's ``input.value``; OTel ``gen_ai.retrieval.documents`` with
    ``gen_ai.retrieval.query.text``)."""
    out = []
    for n, d in enumerate(docs):
        row: dict[str, Any] = {"item": f"doc-{n}"} if items else {}
        for key in ("id", "score", "metadata", "query", "store"):
            value = getattr(d, key)
            if value not in (None, "", {}, []):
                row[key] = value
        if d.omission_reason:
            row["omitted"] = d.omission_reason
        if set(row) & {"score", "metadata", "query", "omitted"}:  # the id and store are the item's source already
            out.append(row)
    return {"ctxviewer.documents": out} if out else {}
