"""Langfuse observations as steps of a run (the run tree): every observation of a trace download,
with its parent, type, times and status (``fern/apis/server/definition/observations.yml``
``Observation``). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.values import parse_time
from ctxviewer.model.run import RunSpan


def observation_time(value: Any) -> datetime | None:
    """An observation's ``startTime`` / ``endTime``: Langfuse writes ISO-8601 text
    (``"2025-08-22T10:41:07.120Z"``); ``None`` / ``""`` -> ``None``. Raises ``ValueError`` for
    anything else -- a number is no Langfuse time (read as nanoseconds it would be a 1970 date
    and a 55-year duration)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.strip().lstrip("+-").isdigit():
        raise ValueError(f"{value!r} is not an ISO-8601 time")
    return parse_time(value)


def time_or_none(value: Any) -> datetime | None:
    """:func:`observation_time`, ``None`` for a value it refuses (the mapping warns of it)."""
    try:
        return observation_time(value)
    except ValueError:
        return None


_STEP_KEYS = frozenset({"id", "parentObservationId", "type", "name", "startTime", "endTime", "level", "statusMessage"})
"""Observation keys a :class:`RunSpan` holds in its own fields (the rest go to its attributes)."""


def run_span(run_id: str, o: Mapping[str, Any], trace_id: str | None) -> RunSpan:
    """Observation ``o`` as a step of the run ``run_id``: kind = its ``type`` lower-cased (``agent``,
    ``generation``, ``tool``, ``span``...), parent ``parentObservationId``, start / end
    ``startTime`` / ``endTime``, status ``error`` for level ERROR, ``trace_id`` the trace of a model
    call; every other key of the observation in the attributes (a model call's ``input`` and
    ``output`` live in its trace and are left out here)."""
    skip = _STEP_KEYS | ({"input", "output"} if trace_id is not None else set())
    start, end = time_or_none(o.get("startTime")), time_or_none(o.get("endTime"))
    error = o.get("level") == "ERROR"
    return RunSpan(run_id, str(o["id"]), pm._str(o.get("parentObservationId")), str(o.get("type") or "span").lower(),
                   pm._str(o.get("name")), start, end, "error" if error else ("ok" if end is not None else None),
                   pm._str(o.get("statusMessage")) if error else None, trace_id,
                   {k: v for k, v in o.items() if k not in skip and v is not None})
