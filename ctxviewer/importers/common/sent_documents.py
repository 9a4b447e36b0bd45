"""Retrieved documents the call already sent inside one of its messages (the "stuff" pattern of
LlamaIndex and LangChain RAG chains: the system or user message is the instructions followed by
the retrieved texts). No Qt here.

A RETRIEVER span records the documents it found; the LLM span it fed records the messages that
were sent. When the texts of the documents are inside those messages, the documents were sent --
as part of that message, at its position and with its trust -- and are no separate items of the
request: adding them as ``evidence`` items counts their tokens twice and places them (and any
instruction-like text in them) where they never were. :func:`fold_sent_documents` then takes
them off the call's documents and keeps the retrieval as attributes: ``ctxviewer.documents``
(one row per document: ``id``, ``score``, ``metadata``, ``query``, ``store`` as recorded,
``sent_in``, the item id of the message holding its text, and ``at``, ``[start, end)`` of the text
in that item's content, in characters) and ``ctxviewer.documents_note``. The injection scan reads
``sent_in`` / ``at`` to scan the retrieved text inside a trusted message as the untrusted data it
is (:func:`ctxviewer.assess.scanner.scope.scan_items`). Only when *every* document's text is found
exactly: a document whose text is not captured, or not in any message as recorded, was sent some
other way or not at all, which the trace does not say, so the documents stay items as before.
"""

from __future__ import annotations

from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.llm_call import LLMCall


def fold_sent_documents(call: LLMCall) -> None:
    """Take ``call.documents`` off as items when every one's text occurs inside a message of
    ``call`` (or its system instructions), recording them as attributes instead (module
    docstring); leaves ``call`` unchanged otherwise."""
    if not call.documents:
        return
    texts: list[tuple[str, str]] = []
    if call.system:
        texts.append(("system", gm.message_text({"parts": call.system})))
    texts += [(f"msg-{i}", gm.message_text(m)) for i, m in enumerate(call.messages)]
    rows: list[dict[str, Any]] = []
    for d in call.documents:
        body = d.content or ""
        where = next(((item, text.find(body)) for item, text in texts if body.strip() and body in text), None)
        if where is None:
            return
        row: dict[str, Any] = {key: getattr(d, key) for key in ("id", "score", "metadata", "query", "store")
                               if getattr(d, key) not in (None, "", {}, [])}
        rows.append(dict(row, sent_in=where[0], at=[where[1], where[1] + len(body)]))
    holders = sorted({r["sent_in"] for r in rows}, key=lambda item: [item for item, _ in texts].index(item))
    call.documents = []
    call.attributes["ctxviewer.documents"] = rows
    call.attributes["ctxviewer.documents_note"] = (
        f"{len(rows)} retrieved document(s) were sent inside {', '.join(holders)} (their text is there); "
        "not added again as separate evidence items")
