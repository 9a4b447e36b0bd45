"""Retrieved documents (and tool outputs: :func:`tool_output_rows`) the call already sent inside one of its messages (the "stuff" pattern of
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
is (:func:`ctxviewer.assess.scanner.scope.scan_items`).

A document whose text is not in the call's captured input was not sent to this call as recorded:
the retrieval fed some other step (a span between them missing from the file, a reranker or a
budget that dropped it) and only the run tree links them. It is kept as a row with
``not_sent`` (and no ``sent_in``), named in the note, and is no evidence item: an item would
place text before the model that its recorded input does not hold. It stays an evidence item
(row ``evidence``, scanned as untrusted) when it may have been sent after all: the input holds
its text with other white space or its start (the exporter cut the message inside it), or only
the system instructions were captured (review 2026-12-07: a trailing newline had made an
injected document "not sent" and unscanned). When the call's input was not captured at all (no
messages, no system instructions) the documents are evidence items as before: nothing recorded
says what was sent, and the retrieval is then the best account of it. A document the trace
records as dropped before the call (a reranker's: :mod:`~ctxviewer.importers.common.retrieved`)
stays an omitted evidence item whatever the input holds, its row naming the item and ``omitted``.
"""

from __future__ import annotations

from typing import Any, Sequence

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.llm_call import LLMCall
from ctxviewer.importers.common.retrieved import Document
from ctxviewer.model.trace import ContextItem, Status


def fold_sent_documents(call: LLMCall) -> None:
    """Take ``call.documents`` off as items when ``call``'s input was captured (messages or system
    instructions), recording them as ``ctxviewer.documents`` rows instead: ``sent_in`` / ``at``
    for a document whose text occurs inside a message (or the system instructions), ``not_sent``
    for one whose text does not (module docstring), with ``ctxviewer.documents_note`` saying which.
    Leaves ``call`` unchanged when it has no documents or its input was not captured."""
    captured = call.content_captured if call.content_captured is not None else bool(call.messages or call.system)
    if not call.documents or not captured:
        return
    texts: list[tuple[str, str]] = []
    if call.system:
        texts.append(("system", gm.message_text({"parts": call.system})))
    texts += [(f"msg-{i}", gm.message_text(m)) for i, m in enumerate(call.messages)]
    rows: list[dict[str, Any]] = []
    kept: list[Document] = []  # still evidence items: the input holds them only approximately, or was captured in part
    squeezed = [" ".join(text.split()) for _, text in texts]
    partial = not call.messages  # system instructions alone: the turns that may hold them were not captured
    dropped = [d for d in call.documents if d.omission_reason]  # a reranker's: omitted items, whatever the input holds
    for d in [d for d in call.documents if not d.omission_reason]:
        body = d.content or ""
        where = next(((item, text.find(body)) for item, text in texts if body.strip() and body in text), None)
        row: dict[str, Any] = {key: getattr(d, key) for key in ("id", "score", "metadata", "query", "store")
                               if getattr(d, key) not in (None, "", {}, [])}
        if where is not None:
            rows.append(dict(row, sent_in=where[0], at=[where[1], where[1] + len(body)]))
        elif body.strip() and (partial or _nearly_in(" ".join(body.split()), squeezed)):
            rows.append(dict(row, item=f"doc-{len(kept)}", evidence=KEPT_AS_EVIDENCE))  # its item, as doc-N are named
            kept.append(d)
        else:
            why = "its text is not recorded" if not body.strip() else "its text is not in the call's input"
            rows.append(dict(row, not_sent=why))
    for d in dropped:
        row = {key: getattr(d, key) for key in ("id", "score", "metadata", "query", "store")
               if getattr(d, key) not in (None, "", {}, [])}
        rows.append(dict(row, item=f"doc-{len(kept)}", omitted=d.omission_reason))
        kept.append(d)
    order = [item for item, _ in texts]
    holders = sorted({r["sent_in"] for r in rows if "sent_in" in r}, key=order.index)
    unsent = [r for r in rows if "not_sent" in r]
    said = []
    if holders:
        said.append(f"{len(rows) - len(unsent) - len(dropped)} retrieved document(s) were sent inside {', '.join(holders)} "
                    "(their text is there); not added again as separate evidence items")
    if len(kept) > len(dropped):
        names = ", ".join(str(r.get("id") or "(id not recorded)") for r in rows if "evidence" in r)
        said.append(f"{len(kept) - len(dropped)} retrieved document(s) ({names}) kept as evidence items: {KEPT_AS_EVIDENCE}")
    if unsent:
        names = ", ".join(str(r.get("id") or "(id not recorded)") for r in unsent)
        said.append(f"{len(unsent)} retrieved document(s) ({names}) were not found in the call's captured input; "
                    "not added as evidence items (the retrieval is on the run tree)")
    call.documents = kept
    call.attributes["ctxviewer.documents"] = rows
    before = call.attributes.get("ctxviewer.documents_note")  # what a reranker kept and dropped, said first
    call.attributes["ctxviewer.documents_note"] = "; ".join(([before] if before else []) + said)


KEPT_AS_EVIDENCE = ("the call's input holds the text only with other spacing or cut short, or holds only the "
                    "system instructions, so it may have been sent; scanned as untrusted evidence")
"""Why a retrieved document that is not exactly in the call's input stays an evidence item."""
LEAD_CHARS = 20
"""Fewest characters of a document's start (white space collapsed) that, ending a message, keep it
as evidence: an exporter that cut the message cut the document inside it."""


def _nearly_in(body: str, texts: list[str]) -> bool:
    """Whether ``body`` (white space collapsed) is in one of ``texts`` (collapsed), or one of them
    ends in a start of it of :data:`LEAD_CHARS` characters or more -- or all of its start when
    shorter -- (the exporter cut the message inside the document, an ellipsis after the cut allowed)."""
    for t in texts:
        if body in t:
            return True
        end = t.rstrip(" .…")
        at = end.rfind(body[:20]) if len(body) >= 20 else -1
        if at >= 0 and body.startswith(end[at:]) and len(end) - at >= min(LEAD_CHARS, len(body) // 2, 20):
            return True
    return False


MIN_OUTPUT_CHARS = 8
"""Fewest characters (white space stripped) of a tool output looked for inside a call's items:
a shorter one (``"42"``, ``"ok"``) would be found by chance and carries no instruction."""


def output_bodies(value: Any) -> list[str]:
    """The texts a tool's ``output.value`` may have been sent as, looked for inside a call's items:
    the value stripped, then the string it encodes when it is a JSON string (``"\\"42 rows\\""``),
    each once and of :data:`MIN_OUTPUT_CHARS` characters or more; ``[]`` for a value that is no string."""
    text = value if isinstance(value, str) else None
    parsed = gm.parse_structured(text) if text else None
    bodies = dict.fromkeys(t.strip() for t in (text, parsed if isinstance(parsed, str) else None) if t)
    return [b for b in bodies if len(b) >= MIN_OUTPUT_CHARS]


def tool_output_rows(items: Sequence[ContextItem], outputs: Sequence[tuple[str, str, Any]]) -> list[dict[str, Any]]:
    """``ctxviewer.tool_outputs`` rows (:mod:`ctxviewer.model.placed_data`) for the tool spans that
    fed a call -- ``outputs`` as ``(tool name, span id, output.value)`` -- whose output text occurs
    inside one of its retained items (``items``, tool definitions left out): ``{"tool", "span",
    "sent_in", "at"}``, ``at`` the first occurrence ``[start, end)`` in that item's content, one row
    per item holding it. A text-based ReAct agent (CrewAI, LangChain ReAct) sends a tool's output
    back as ``Observation: ...`` inside a user or assistant message, where only this row says it is
    the tool's untrusted data. An output not captured, shorter than :data:`MIN_OUTPUT_CHARS` or in
    no item gives no row."""
    rows: list[dict[str, Any]] = []
    for tool, span, value in outputs:
        for body in output_bodies(value):
            found = [(it.id, it.content.find(body)) for it in items
                     if it.content and not it.is_tool_definition and it.status is Status.RETAINED and body in it.content]
            rows += [{"tool": tool, "span": span, "sent_in": item, "at": [at, at + len(body)]} for item, at in found]
            if found:
                break
    return rows
