"""The ancestors of a Langfuse generation, and what they record for it: the observations above it
(``parentObservationId`` up to the trace) and the system instructions one of them gives the calls
below it (:mod:`ctxviewer.importers.common.inherit`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm


def ancestors(obs: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The ancestor observations of ``obs``, nearest first (a cycle of parent ids ends the walk)."""
    out: list[Mapping[str, Any]] = []
    seen: set[int] = set()
    cur = by_id.get(str(obs.get("parentObservationId")))
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        cur = by_id.get(str(cur.get("parentObservationId")))
    return out


def ancestor_system(obs: Mapping[str, Any], attrs: Mapping[str, Any],
                    messages: Callable[[Any], list[gm.Message]]) -> list[dict[str, Any]] | None:
    """The system instructions ancestor observation ``obs`` (span attributes ``attrs``) records for
    the calls below it, as parts: its ``gen_ai.system_instructions``, else -- for an observation
    that is not itself a generation -- the system / developer messages of its input read by
    ``messages`` (a conversation span's input is the conversation the agent was given); ``None``."""
    parts = gm.parse_parts(attrs.get("gen_ai.system_instructions"))
    if parts:
        return parts
    if obs.get("type") == "GENERATION":
        return None
    try:
        msgs = messages(obs.get("input"))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    own = [p for m in msgs if m.get("role") in ("system", "developer") for p in m.get("parts") or []]
    return own or None
