"""A page of Langfuse's public API list endpoints saved to a file: ``{"data": [...], "meta": {page,
limit, totalItems, totalPages}}``.

Shapes (langfuse ``fern/apis/server/definition/trace.yml`` ``Traces``, ``observations.yml``
``ObservationsViews``, ``utils/pagination.yml`` ``MetaResponse``; the SDKs' ``fetch_traces`` /
``fetch_observations`` return the same):

* ``GET /api/public/traces`` -- ``data`` holds ``TraceWithDetails``: the trace's fields, with
  ``observations`` (and ``scores``) as **ids only**; a script that fetched each trace's details
  first holds the ``Observation`` objects there instead;
* ``GET /api/public/observations`` -- ``data`` holds ``ObservationsView`` objects (``id``,
  ``traceId``, ``type``, ``parentObservationId``, ``startTime`` ...), grouped here by ``traceId``.

Each trace then maps as a trace download does (:func:`ctxviewer.importers.formats.langfuse.trace_records`).
A page that is one of several says so once (``page 1 of 3: 50 of 140 traces in this file``); traces
whose observations are ids only are named in one problem (their calls are not in the file). No Qt here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ctxviewer.importers.contract import ImportProblem, RunRecord

META_KEYS = frozenset({"page", "limit", "totalItems", "totalPages"})
"""The keys of the API's ``MetaResponse`` (``utils/pagination.yml``)."""

_HEAD = re.compile(r'^\s*\{\s*"(?:data|meta)"\s*:')

TraceRecords = Callable[[str, Mapping[str, Any], list[Mapping[str, Any]], Callable[[Mapping[str, Any]], str]],
                        Iterator[RunRecord]]
""":func:`ctxviewer.importers.formats.langfuse.trace_records` (passed in: this module is imported by it)."""


def sniff_page(text: str) -> bool:
    """Whether a file head (``text``) begins as a public API page: an object whose first key is
    ``data`` or ``meta``, holding Langfuse's trace (``htmlPath`` beside ``observations``) or
    observation (``traceId`` beside ``parentObservationId``) keys or the page's ``totalItems``."""
    if not _HEAD.match(text):
        return False
    return ('"htmlPath"' in text and '"observations"' in text) or (
        '"traceId"' in text and '"parentObservationId"' in text) or ('"totalItems"' in text and '"totalPages"' in text)


def is_page(doc: Any) -> bool:
    """Whether a parsed document is a public API page: ``data`` a list, ``meta`` an object with
    :data:`META_KEYS` among its keys."""
    return (isinstance(doc, Mapping) and isinstance(doc.get("data"), list) and isinstance(doc.get("meta"), Mapping)
            and bool(META_KEYS & set(doc["meta"])))


def _is_observation(item: Mapping[str, Any]) -> bool:
    return "traceId" in item and "type" in item and "htmlPath" not in item


def page_note(file: str, meta: Mapping[str, Any], held: int, kind: str) -> list[ImportProblem]:
    """One problem when ``meta`` says the listing has more than this page (``totalPages`` > 1 or
    ``totalItems`` > ``held``, the items in the file): ``page 1 of 3: 50 of 140 traces in this file``.
    Nothing is dropped (the file is read whole); ``[]`` for a listing of one page."""
    pages, total = meta.get("totalPages"), meta.get("totalItems")
    pages = pages if isinstance(pages, int) and not isinstance(pages, bool) else None
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    if not ((pages is not None and pages > 1) or (total is not None and total > held)):
        return []
    page = meta.get("page") if isinstance(meta.get("page"), int) and not isinstance(meta.get("page"), bool) else "?"
    of_pages = f" of {pages}" if pages is not None else ""
    of_total = f" of {total}" if total is not None else ""
    return [ImportProblem(file, "whole file", f"page {page}{of_pages}: {held}{of_total} {kind} in this file "
                                              "(a page of the Langfuse public API; the other pages are not)")]


def _namer(tid: str) -> Callable[[Mapping[str, Any]], str]:
    """How a problem names an observation of trace ``tid``: ``trace TID observation ID``."""
    return lambda o: f"trace {tid} observation {o.get('id')}"


def page_records(file: str, doc: Mapping[str, Any], trace_records: TraceRecords) -> Iterator[RunRecord]:
    """The records of one API page (see module docstring): the page note, then each trace's records
    in page order (then the traces known only from observations, by first appearance), then one
    problem for the traces whose observations are ids only."""
    items = [x for x in doc["data"] if isinstance(x, Mapping)]
    observations = [x for x in items if _is_observation(x)]
    traces = [x for x in items if not _is_observation(x)]
    kind = "traces" if traces or not observations else "observations"
    yield from page_note(file, doc["meta"], len(traces) if kind == "traces" else len(observations), kind)  # objects only
    by_trace: dict[str, list[Mapping[str, Any]]] = {}
    for o in observations:
        by_trace.setdefault(str(o.get("traceId")), []).append(o)
    ids_only: list[str] = []
    for t in traces:
        tid = str(t.get("id"))
        found = t.get("observations")
        listed: list[Any] = found if isinstance(found, list) else []
        own = [o for o in listed if isinstance(o, Mapping)] + by_trace.pop(tid, [])
        if not own and any(isinstance(o, str) for o in listed):
            ids_only.append(tid)
            continue
        yield from trace_records(file, t, own, _namer(tid))
    for tid, own in by_trace.items():
        yield from trace_records(file, {"id": tid}, own, _namer(tid))
    if ids_only:
        shown = ", ".join(ids_only[:3]) + (f" and {len(ids_only) - 3} more" if len(ids_only) > 3 else "")
        yield ImportProblem(file, "whole file", f"{len(ids_only)} trace(s) list their observations by id only "
                            f"({shown}), as GET /api/public/traces returns them: their model calls are not in this "
                            "file; save GET /api/public/traces/{id} per trace, or the GET /api/public/observations "
                            "pages, and import those")
