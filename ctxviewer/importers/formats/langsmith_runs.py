"""LangSmith runs as steps of a run tree (the ``langsmith`` importer's ``load_runs``,
:mod:`ctxviewer.importers.formats.langsmith`): every run of a trace -- chain, tool, retriever,
llm, prompt, parser -- under its parent run, with its times, status and everything else it
recorded (langsmith-sdk ``schemas.py`` ``RunBase`` / ``Run``, ``run_trees.py`` ``dotted_order``).
Not a format: it defines no importer. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.values import parse_time
from ctxviewer.model.run import RunSpan

_STEP_KEYS = frozenset({"id", "trace_id", "parent_run_id", "run_type", "name", "start_time", "end_time", "error",
                        "child_runs", "child_run_ids"})
"""Run keys a :class:`RunSpan` holds in its own fields (the rest go to its attributes)."""
_CALL_KEYS = frozenset({"inputs", "outputs"})
"""Keys of a model call's run that live in its trace (messages, output, usage), left off its step."""


def run_time(value: Any) -> datetime | None:
    """A run's ``start_time`` / ``end_time``: ISO-8601 (Python SDK) or epoch milliseconds (JS SDK),
    aware UTC; ``None`` when absent or unreadable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, tz=timezone.utc)
    try:
        return parse_time(value)
    except ValueError:
        return None


def dotted_ids(dotted: Any) -> list[str]:
    """The run ids of a ``dotted_order`` from the root down to the run itself: each ``.``-joined
    segment is ``{YYYYMMDDTHHMMSSffffff}Z{run id}`` (``run_trees.py``); ``[]`` when it is not one."""
    if not isinstance(dotted, str):
        return []
    return [seg.partition("Z")[2] for seg in dotted.split(".") if "Z" in seg and seg.partition("Z")[2]]


def parent_of(run: Mapping[str, Any]) -> str | None:
    """``parent_run_id``, else the second-last run of its ``dotted_order``; ``None`` for a root."""
    if run.get("parent_run_id"):
        return str(run["parent_run_id"])
    chain = dotted_ids(run.get("dotted_order"))
    return chain[-2] if len(chain) > 1 else None


def run_ids(runs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each run's id -> the id of the run tree it belongs to: its ``trace_id`` (the root run's id),
    else the first run of its ``dotted_order``, else its topmost ancestor in the file (parent links
    followed; a cycle stops at the run that closes it)."""
    parents = {str(r.get("id")): parent_of(r) for r in runs}
    out: dict[str, str] = {}
    for r in runs:
        rid = str(r.get("id"))
        if r.get("trace_id"):
            out[rid] = str(r["trace_id"])
            continue
        dotted = dotted_ids(r.get("dotted_order"))
        if dotted:
            out[rid] = dotted[0]
            continue
        cur, seen = rid, {rid}
        while parents.get(cur) in parents and parents[cur] not in seen:
            cur = str(parents[cur])
            seen.add(cur)
        out[rid] = cur
    return out


def run_step(run: Mapping[str, Any], run_id: str, trace_id: str | None) -> RunSpan:
    """Run ``run`` as a step of the run tree ``run_id``: kind = its ``run_type`` (``chain``,
    ``tool``, ``retriever``, ``llm``...; ``run`` when not recorded), parent :func:`parent_of`, start /
    end :func:`run_time`, status ``error`` with ``error`` as the message when it failed, ``ok`` when
    it ended, else not recorded; ``trace_id`` the trace of a model call. Every other key the run
    recorded is in the attributes (a model call's ``inputs`` / ``outputs`` live in its trace)."""
    skip = _STEP_KEYS | (_CALL_KEYS if trace_id is not None else frozenset())
    start, end = run_time(run.get("start_time")), run_time(run.get("end_time"))
    error = run.get("error")
    status = "error" if error else ("ok" if end is not None else None)
    return RunSpan(run_id, str(run.get("id")), parent_of(run), str(run.get("run_type") or "run").lower(),
                   pm._str(run.get("name")), start, end, status, str(error) if error else None, trace_id,
                   {k: v for k, v in run.items() if k not in skip and v is not None})
