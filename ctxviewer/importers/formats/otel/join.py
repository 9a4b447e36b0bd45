"""OTLP log records of a separate file joined to the spans of this one.

The opentelemetry-python-contrib GenAI instrumentations (semconv 1.28 - 1.36) put a call's
messages in log records (``gen_ai.system.message``, ``gen_ai.user.message``,
``gen_ai.assistant.message``, ``gen_ai.tool.message``, ``gen_ai.choice``) carrying the chat
span's ``traceId`` / ``spanId``, and the spans themselves carry no content. A collector with a
traces and a logs pipeline writes them to two files. Given together to one import (two paths, or
a folder holding both), the ``otel`` importer reads the logs files of the run
(:class:`~ctxviewer.importers.contract.Companions`, format ``otel-logs``) and attaches each
record to the span of its span id as a span event, so :mod:`.events` folds the content into the
call and the span no longer says content was "not captured". The ``otel-logs`` importer then
imports only the records no span joined, and names them (:func:`.logs.rest_warnings`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxviewer.importers.common.containers import load_documents
from ctxviewer.importers.contract import Companions, ImportFailed, ImportProblem
from ctxviewer.importers.formats.otel.logs import NAME as LOGS
from ctxviewer.importers.formats.otel.logs import log_records

Events = dict[str, list[dict[str, Any]]]


def _events_of(path: Path) -> Events:
    """The log records of ``path`` that carry a span id, as span events keyed by span id (a file
    or record that cannot be read is left to the logs file's own import, which names it)."""
    out: Events = {}
    try:
        docs = load_documents(path)
    except ImportFailed:
        return out
    for record, doc in docs:
        if not isinstance(doc, Mapping) or "resourceLogs" not in doc:
            continue
        for rec in log_records(doc, str(path), f"{record} "):
            if isinstance(rec, ImportProblem) or not rec["span_id"]:
                continue
            out.setdefault(rec["span_id"], []).append(
                {"name": rec["name"], "time": rec["time"], "attributes": rec["attributes"], "body": rec["body"]})
    return out


def companion_events(companions: Companions | None) -> tuple[Events, dict[Path, set[str]]]:
    """The span events of every ``otel-logs`` file of the run, merged (``span id -> events`` in
    file order), and which span ids each file holds. ``({}, {})`` without companions. Each file is
    read once per run (:attr:`Companions.cache`)."""
    merged: Events = {}
    held: dict[Path, set[str]] = {}
    if companions is None:
        return merged, held
    for path in companions.of(LOGS):
        key = ("otel-logs events", path)
        if key not in companions.cache:
            companions.cache[key] = _events_of(path)
        events: Events = companions.cache[key]
        held[path] = set(events)
        for sid, evs in events.items():
            merged.setdefault(sid, []).extend(evs)
    return merged, held


def mark_joined(companions: Companions | None, held: dict[Path, set[str]], joined: set[str], host: Path) -> None:
    """Tell ``companions`` which records of each logs file the spans of ``host`` joined."""
    if companions is not None:
        for path, ids in held.items():
            companions.mark(path, ids & joined, str(host))
