"""Values as the store writes them: content addresses (:func:`content_digest`, the sha256 that keys
``blobs`` and ``token_counts``; :func:`content_hash`, its hex as users see it), and the ``items`` row of a
context item as :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>` writes it: the values of the item's native JSON form (:func:`ctxviewer.model.serialize.item_to_dict`),
read straight from the item (import speed: no JSON form built per item at import).
No Qt here.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxviewer.model.trace import ContextItem, SourceRef


def content_digest(text: str) -> bytes:
    """The 32-byte sha256 digest of ``text`` encoded as UTF-8 (lone surrogates kept): the key of
    its row in ``blobs`` and of its ``token_counts`` (schema 6 stores the digest, not its hex)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def content_hash(text: str) -> str:
    """Hex sha256 of ``text`` encoded as UTF-8 (64 characters): the content address users see
    (``request.sha256``, :meth:`TraceStore.blob`); ``content_digest(text).hex()``."""
    return content_digest(text).hex()


ITEM_COLUMNS = (
    "trace_id",
    "ordinal",
    "item_id",
    "kind",
    "status",
    "position",
    "priority",
    "trust",
    "tokens",
    "omission_reason",
    "role",
    "source",
    "tokens_source",
    "tokens_encoding",
    "content_hash",
)
"""The columns of an ``items`` row, in the order :func:`item_row` gives them (written by
:mod:`ctxviewer.store.writes`, read back by :mod:`ctxviewer.store.loading`)."""


def item_row(trace_id: str, ordinal: int, item: ContextItem, content_ref: Any) -> tuple[Any, ...]:
    """The ``items`` row of ``item`` (:data:`ITEM_COLUMNS` order), its content stored as ``content_ref``:
    the values of its native JSON form (:func:`ctxviewer.model.serialize.item_to_dict`), read straight
    from the item (no JSON form built per item: import speed)."""
    prov = item.tokens_provenance
    return (
        trace_id, ordinal, item.id, item.kind.value, item.status.value, item.position, item.priority,
        item.trust.value, item.tokens, item.omission_reason, item.role,
        None if item.source is None else _source_json(item.source),
        None if prov is None else prov.source.value, None if prov is None else prov.encoding,
        content_ref,
    )


@functools.lru_cache(maxsize=4096)
def _source_json(source: SourceRef) -> str | None:
    """The ``items.source`` column of ``source`` (its JSON form, keys sorted; ``None`` when it
    records nothing), once per distinct source (documents recur across traces)."""
    from ctxviewer.model.serialize import source_to_dict  # the codec, only when an item has a source

    d = source_to_dict(source)
    return json.dumps(d, ensure_ascii=False, sort_keys=True) if d else None
