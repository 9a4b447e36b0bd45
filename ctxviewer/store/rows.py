"""The ``items`` row of a context item as :meth:`TraceStore.add <ctxviewer.store.TraceStore.add>`
writes it: the values of the item's native JSON form (:func:`ctxviewer.serialize.item_to_dict`),
read straight from the item (issue 11, import speed: no JSON form built per item at import).
No Qt here.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..model import ContextItem, SourceRef
from ..serialize import source_to_dict


def item_row(trace_id: str, ordinal: int, item: ContextItem, content_ref: Any) -> tuple[Any, ...]:
    """The ``items`` row of ``item`` (``store._ITEM_COLUMNS`` order), its content stored as ``content_ref``:
    the values of its native JSON form (:func:`ctxviewer.serialize.item_to_dict`), read straight
    from the item (issue 11: no JSON form built per item)."""
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
    d = source_to_dict(source)
    return json.dumps(d, ensure_ascii=False, sort_keys=True) if d else None
