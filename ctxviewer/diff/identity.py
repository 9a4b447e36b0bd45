"""What makes two context items "the same item" and "the same content" across two traces.

Identity: kind + id, except

* policy items: the policy id and version (``Policy.id`` / ``Policy.version``) plus the item id, so
  a version bump is another policy, never an edit of the same one;
* tool definitions: the tool's name (``name`` or ``function.name`` in the JSON definition, else
  the item id without a ``tool:`` / ``tool-`` prefix);
* messages (history, summary, memory, user): the id; items whose id found no partner are then
  paired by content hash (OTel message ids are only indexes, ``msg-{i}``).

Content equality ignores serialisation: text that parses as JSON (an object or array) is compared
as its canonical dump (sorted keys, UTF-8, compact), so ``ensure_ascii`` escapes or another key
order are no change. Other text is compared as is. No Qt here.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ctxviewer.model.trace import ContextItem, Kind, RequestTrace

MESSAGE_KINDS = frozenset({Kind.HISTORY, Kind.SUMMARY, Kind.MEMORY, Kind.USER})
"""Kinds paired by content hash when their ids find no partner."""


_POSITIONAL = re.compile(r"msg-\d+")


def is_positional_id(item_id: str) -> bool:
    """True for ids that are only a message index (``msg-0``, ``msg-12``: the OTel and provider
    importers), which shift when earlier turns are dropped and so identify nothing."""
    return _POSITIONAL.fullmatch(item_id) is not None


def _parse_json(text: str) -> Any:
    stripped = text.lstrip()
    if stripped[:1] not in ("{", "["):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def normalise_content(text: str | None) -> str | None:
    """``text`` with JSON serialisation differences removed: a JSON object or array becomes its
    canonical dump (``sort_keys``, ``ensure_ascii=False``, compact separators); other text is
    returned unchanged. ``None`` stays ``None`` (content not kept)."""
    if text is None:
        return None
    obj = _parse_json(text)
    if obj is None:
        return text
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_digest(item: ContextItem) -> str | None:
    """Hex sha256 (first 32 hex) of the item's role and normalised content; ``None`` when the
    content was not kept."""
    norm = normalise_content(item.content)
    if norm is None:
        return None
    data = f"{item.role or ''}\x00{norm}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


def tool_name(item: ContextItem) -> str:
    """The tool's name from its JSON definition (``name``, or ``function.name``), else the item id
    without a ``tool:`` / ``tool-`` prefix."""
    obj = _parse_json(item.content or "")
    if isinstance(obj, dict):
        fn = obj.get("function")
        name = obj.get("name") or (fn.get("name") if isinstance(fn, dict) else None)
        if isinstance(name, str) and name:
            return name
    for prefix in ("tool:", "tool-"):
        if item.id.startswith(prefix):
            return item.id[len(prefix):]
    return item.id


def identity(item: ContextItem, trace: RequestTrace) -> tuple[str, ...]:
    """The alignment key of ``item`` in ``trace`` (module docstring): ``("policy", policy id,
    version, item id)``, ``("tool", name)`` or ``(kind, id)``. Missing policy fields are ``""``."""
    if item.kind is Kind.POLICY:
        return ("policy", trace.policy.id or "", trace.policy.version or "", item.id)
    if item.kind is Kind.TOOL:
        return ("tool", tool_name(item))
    return (item.kind.value, item.id)
