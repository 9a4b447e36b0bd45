"""The account of every field: which keys of a source record an importer did not map.

An importer maps what it understands; everything else in the record must be *named*, never lost
in silence. Each importer describes the keys it reads as a :class:`Mapped` tree (built from dotted
paths with :func:`mapped`), and :func:`unmapped_keys` walks the record and lists every key with a
value that no mapped path covers -- as the dotted path of the outermost such key
(``extra.runtime``, not each of its leaves); flat span attributes are accounted by
:func:`unmapped_attribute_keys` (indices written ``N``). Empty values (``None``, ``""``, ``[]``,
objects of empty values: :func:`is_empty`) carry nothing and are not listed.

The list goes on the trace as :data:`UNMAPPED_ATTRIBUTE` (``ctxviewer.unmapped``: the sorted
paths), which the Attributes pane shows and the import report counts per file
(:func:`count_unmapped`, :func:`describe_unmapped`: ``"12 keys not mapped: extra.runtime ×9, …"``).

No Qt here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

UNMAPPED_ATTRIBUTE = "ctxviewer.unmapped"
"""Trace attribute: the sorted dotted paths of the source record's keys the importer did not map."""

Mapped = Mapping[str, "Mapped | bool"]
"""A tree of mapped keys: ``True`` covers the key and everything under it; a mapping covers only
the keys it names below."""

def mapped(*paths: str) -> dict[str, Any]:
    """The :class:`Mapped` tree of dotted ``paths`` (``"inputs.messages"``, ``"extra.metadata.ls_provider"``):
    each path covers its last key and everything under it. A path that is a prefix of another covers
    the whole subtree (the shorter wins)."""
    tree: dict[str, Any] = {}
    for path in sorted(paths, key=lambda p: p.count(".")):
        node = tree
        *parents, last = path.split(".")
        for key in parents:
            child = node.get(key)
            if child is True:
                break
            node = node.setdefault(key, {})
        else:
            node[last] = True
    return tree


def is_empty(value: Any) -> bool:
    """True for a value that carries nothing: ``None``, ``""``, an empty list, or a mapping whose
    values all carry nothing (LiteLLM's ``error_information`` of empty strings on a call that
    succeeded, ``{"web_search_options": null}``)."""
    if value is None:
        return True
    if isinstance(value, Mapping):
        return all(is_empty(v) for v in value.values())
    return isinstance(value, (str, list, tuple)) and not value


_empty = is_empty


def unmapped_keys(record: Mapping[str, Any], tree: Mapped, prefix: str = "") -> list[str]:
    """The dotted paths (joined under ``prefix``) of the keys of ``record`` that ``tree`` does not
    cover and whose value is not empty, in record order. A key ``tree`` maps partly (a mapping
    below it) is walked into when its value is a mapping, else counted as mapped (a list or string
    the importer reads some of)."""
    out: list[str] = []
    for key, value in record.items():
        if _empty(value):
            continue
        rule = tree.get(key)
        path = f"{prefix}{key}"
        if rule is True:
            continue
        if rule is None or rule is False:
            out.append(path)
        elif isinstance(value, Mapping):
            out.extend(unmapped_keys(value, rule, path + "."))
    return out


def unmapped_attribute(keys: Iterable[str]) -> dict[str, list[str]]:
    """``{UNMAPPED_ATTRIBUTE: sorted distinct keys}``, or ``{}`` when there are none (a trace
    whose record was mapped whole carries no such attribute)."""
    found = sorted(set(keys))
    return {UNMAPPED_ATTRIBUTE: found} if found else {}


def count_unmapped(attributes: Mapping[str, Any], into: Counter[str]) -> None:
    """Add the trace's :data:`UNMAPPED_ATTRIBUTE` keys (one per trace) to ``into``."""
    keys = attributes.get(UNMAPPED_ATTRIBUTE)
    if isinstance(keys, (list, tuple)):
        into.update(str(k) for k in keys)


def describe_unmapped(counts: Mapping[str, int], limit: int = 8) -> str:
    """``"12 keys not mapped: extra.runtime ×9, serialized ×3"`` -- the distinct keys, most
    frequent first (then by name), at most ``limit`` named and ``"… and N more"``; ``""`` for none.
    ``×N`` is the number of records (traces) holding the key."""
    if not counts:
        return ""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    named = ", ".join(f"{k} ×{n}" for k, n in ranked[:limit])
    more = f", … and {len(ranked) - limit} more" if len(ranked) > limit else ""
    noun = "key" if len(ranked) == 1 else "keys"
    return f"{len(ranked)} {noun} not mapped: {named}{more}"


def tally(traces_attributes: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """The per-key record counts of :data:`UNMAPPED_ATTRIBUTE` over several traces' attributes."""
    counts: Counter[str] = Counter()
    for attrs in traces_attributes:
        count_unmapped(attrs, counts)
    return counts


_INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)")


@lru_cache(maxsize=64)
def _compiled(read: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    return frozenset(r for r in read if not r.endswith(".")), tuple(r for r in read if r.endswith("."))


def unmapped_attribute_keys(attrs: Mapping[str, Any], read: Iterable[str]) -> list[str]:
    """The flat span attribute keys (OTel / OpenInference: dotted names, list indices in the key)
    not covered by ``read`` -- exact names or prefixes ending in ``.``, list indices written ``N``
    in both (``llm.input_messages.N.message.role``) -- each named with its indices as ``N``
    (``llm.prompt_template.variables``, ``llm.input_messages.N.message.foo``), distinct, in
    first-seen order. Empty values are not listed."""
    exact, prefixes = _compiled(tuple(read))
    out: dict[str, None] = {}
    for key, value in attrs.items():
        if key in exact or key.startswith(prefixes) or _empty(value):  # the common case, without the regex
            continue
        name = _INDEX.sub("N", key) if any(c.isdigit() for c in key) else key
        if name in exact or name.startswith(prefixes):
            continue
        out[name] = None
    return list(out)
