"""Context items built from the content files (policy, knowledge base, records, turns, tools)."""

from __future__ import annotations

import functools
import json

from ctxviewer.model.trace import ContextItem, Kind, SourceRef

from .build import POLICY_ID, POLICY_VERSION, PRIO_REQUIRED, item
from .fitting import Block, fit, load_blocks, plain


@functools.cache
def blocks(name: str) -> dict[str, Block]:
    """Cached :func:`fitting.load_blocks`."""
    return load_blocks(name)


def raw(name: str, block_id: str) -> str:
    """Body of one block with its optional phrases still marked ``«...»`` (input of :func:`fit`)."""
    return blocks(name)[block_id].text


def text(name: str, block_id: str) -> str:
    """Body of one block with every optional phrase kept."""
    return plain(blocks(name)[block_id].text)


def policy_item(tokens: int | None = None) -> ContextItem:
    """The pinned support policy, fitted to exactly ``tokens`` when given."""
    body = raw("policy", f"{POLICY_ID}@{POLICY_VERSION}")
    if tokens is not None:
        body = fit(body, tokens)
    body = plain(body)
    return item(
        Kind.POLICY,
        "policy",
        body,
        PRIO_REQUIRED,
        source=SourceRef(store="policies", document_id=f"{POLICY_ID}@{POLICY_VERSION}"),
        role="system",
    )


def user_item(content: str, turn: int) -> ContextItem:
    """The current user request (required)."""
    return item(Kind.USER, "user-request", content, PRIO_REQUIRED, source=SourceRef(store="chat", turn=turn), role="user")


def doc_store(block: Block, default: str = "kb") -> str:
    """The ``store=`` value of a block header, or ``default``."""
    for part in block.meta.split():
        if part.startswith("store="):
            return part[6:]
    return default


def doc_item(
    name: str,
    doc_id: str,
    priority: float,
    *,
    content: str | None = None,
    omitted: str | None = None,
    kind: Kind = Kind.EVIDENCE,
) -> ContextItem:
    """An evidence item from a document block (knowledge base, order record, ticket, ...)."""
    b = blocks(name)[doc_id]
    store = doc_store(b)
    return item(
        kind,
        doc_id,
        content if content is not None else plain(b.text),
        priority,
        source=SourceRef(store=store, document_id=doc_id),
        role="user",
        omitted=omitted,
    )


def turn_items(name: str, priorities: dict[int, float] | None = None, **omit: str) -> list[ContextItem]:
    """History items for every ``turn-NN <role>`` block of ``content/<name>.md``.

    Priority rises with recency (50 + turn number) unless given; ``omit`` maps a block id (with
    ``_`` for ``-``) to an omission reason.
    """
    out = []
    for bid, b in blocks(name).items():
        if not bid.startswith("turn-"):
            continue
        n = int(bid.split("-")[1])
        role = b.meta.split()[0]
        prio = (priorities or {}).get(n, 50.0 + n)
        out.append(
            item(
                Kind.HISTORY,
                bid,
                plain(b.text),
                prio,
                source=SourceRef(store="chat", turn=n),
                role=role,
                omitted=omit.get(bid.replace("-", "_")),
            )
        )
    return out


def tool_json(name: str, description: str | None = None) -> str:
    """A tool definition as compact JSON, optionally with a replaced description."""
    obj = json.loads(text("tools", name))  # plain: optional phrases kept
    if description is not None:
        obj["description"] = description
    return json.dumps(obj, ensure_ascii=False)


def tool_items(names: list[str], total: int | None = None, priority: float = 90.0) -> list[ContextItem]:
    """Tool items; with ``total`` the last tool's description is trimmed so the tokens sum exactly."""
    contents = [tool_json(n) for n in names]
    if total is not None:
        from .fitting import ntok

        rest = total - sum(ntok(c) for c in contents[:-1])
        last = names[-1]
        desc = json.loads(raw("tools", last))["description"]
        contents[-1] = fit(desc, rest, lambda d: tool_json(last, d))
    return [
        item(Kind.TOOL, f"tool:{n}", c, priority, source=SourceRef(store="tools", document_id=n))
        for n, c in zip(names, contents)
    ]
