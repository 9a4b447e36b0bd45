"""What changed in a proposed tool call's arguments between request A and request B, per key.

Arguments are recorded as the JSON text the model produced (``ToolCall.arguments``). When both
sides parse to JSON objects, each top-level key is compared as a JSON value (key order and
whitespace are no change); otherwise the whole text is one change under the key ``None``. A side
whose arguments are missing or not an object is said so (``"not recorded"``, ``"not a JSON
object"``) instead of being compared key by key. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

ABSENT = object()
"""Marks a key one side does not have."""


@dataclass(frozen=True)
class ArgumentChange:
    """One argument that differs: ``key`` (``None``: the arguments as a whole), the value in A and
    in B (JSON values; :data:`ABSENT` when that side lacks the key, ``None`` is JSON null)."""

    key: str | None
    a: Any
    b: Any

    @property
    def change(self) -> str:
        """``"added"`` (only in B), ``"removed"`` (only in A) or ``"changed"``."""
        if self.a is ABSENT:
            return "added"
        if self.b is ABSENT:
            return "removed"
        return "changed"


def _parsed(text: str | None) -> Any:
    if text is None:
        return ABSENT
    try:
        return json.loads(text)
    except ValueError:
        return text


def argument_changes(a: str | None, b: str | None) -> tuple[ArgumentChange, ...]:
    """The arguments that differ between A's call and B's, in B's key order then A's removed keys.

    ``a`` / ``b`` are the calls' ``arguments`` as recorded (JSON text, or ``None`` when not
    recorded / the call is absent on that side). Two JSON objects compare per key; anything else
    compares whole (one change with ``key=None``; ``None`` text is :data:`ABSENT`). Equal JSON
    values give no change (``{"a":1, "b":2}`` and ``{"b": 2, "a": 1}`` are the same). Never raises.
    """
    pa, pb = _parsed(a), _parsed(b)
    if isinstance(pa, dict) and isinstance(pb, dict):
        out = [ArgumentChange(k, pa.get(k, ABSENT), v) for k, v in pb.items() if pa.get(k, ABSENT) != v]
        out += [ArgumentChange(k, v, ABSENT) for k, v in pa.items() if k not in pb]
        return tuple(out)
    if pa == pb:
        return ()
    return (ArgumentChange(None, pa, pb),)


def value_text(v: Any, limit: int = 80) -> str:
    """A value as one line for the text diff: JSON (non-ASCII kept), ``"absent"`` for
    :data:`ABSENT`, cut at ``limit`` characters with ``…``."""
    if v is ABSENT:
        return "absent"
    text = " ".join(json.dumps(v, ensure_ascii=False).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def change_line(c: ArgumentChange) -> str:
    """``"amount: 40 → 400"``, ``"currency: added \"EUR\""``, ``"note: removed \"x\""``,
    ``"arguments: {...} → {...}"`` (the whole text when not both objects)."""
    name = "arguments" if c.key is None else c.key
    if c.change == "added":
        return f"{name}: added {value_text(c.b)}"
    if c.change == "removed":
        return f"{name}: removed {value_text(c.a)}"
    return f"{name}: {value_text(c.a)} → {value_text(c.b)}"


def change_json(c: ArgumentChange) -> dict[str, Any]:
    """``{key, change, a, b}`` for ``diff --json`` (absent values are null, see ``change``)."""
    return {"key": c.key, "change": c.change, "a": None if c.a is ABSENT else c.a,
            "b": None if c.b is ABSENT else c.b}
