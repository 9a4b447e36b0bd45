"""SARIF 2.1.0: the findings of a trace database handed on to code-scanning tools and audit records.

One SARIF log with one run. ``tool.driver.rules`` holds one reporting descriptor per check
(:data:`ctxviewer.assess.checks.CHECKS`: ``policy``, ``budget``, ``injection``, ``tool``, ...); each
result's ``ruleId`` is the finding's rule written hierarchically under its check
(``injection.override`` -> ``injection/override``, SARIF 3.27.5) with ``ruleIndex`` pointing at
the check. Per result:

* ``level``: ``info`` -> ``note``, ``warning`` -> ``warning``, ``failure`` and ``critical`` ->
  ``error`` (the exact severity is kept in ``properties.severity``);
* ``message.text``: the finding's message;
* ``locations[0].logicalLocations``: the trace (``kind: "module"``) and the item
  (``kind: "object"``, fully qualified ``trace/item``);
* ``locations[0].physicalLocation``: the item as an artifact ``trace/<trace>/item/<item>``
  relative to ``uriBaseId`` ``TRACEDB`` (the database), with the character span as
  ``region.charOffset``/``charLength`` (code points of the item's stored content, as
  ``properties.spanUnit`` says) and the flagged text as ``region.snippet``;
* ``partialFingerprints["ctxviewer/findingKey/v1"]``: trace, item, rule and span, which survive
  a re-import;
* ``suppressions``: the reviewer's verdict from the database's review file (:mod:`ctxviewer.review.location`) --
  false positive -> ``accepted``, needs follow-up -> ``underReview``, confirmed injection ->
  ``rejected`` (the finding stands) -- with the verdict and note as ``justification`` and who and
  when in the suppression's property bag (SARIF 3.8; the suppression object has no member of its
  own for them): ``properties.reviewer`` (absent when not recorded) and ``properties.reviewedAt``
  (UTC, ``2026-12-03T05:50:00Z``, the date/time form of SARIF 3.9).

No Qt here. The log is a plain ``dict`` ready for :func:`json.dumps`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ctxviewer import __version__
from ctxviewer.assess.assessment import assess
from ctxviewer.assess.checks import CHECKS
from ctxviewer.assess.context import AssessContext, context_for_db
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.model.findings import Finding, Severity
from ctxviewer.model.trace import RequestTrace
from ctxviewer.review.keys import FindingKey, Review, ReviewVerdict, key_of
from ctxviewer.store import TraceStore

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
"""``$schema`` of the log (the OASIS SARIF 2.1.0 schema as published by SchemaStore)."""

LEVELS = {Severity.INFO: "note", Severity.WARNING: "warning", Severity.FAILURE: "error", Severity.CRITICAL: "error"}
"""SARIF ``level`` for each :class:`~ctxviewer.model.findings.Severity`."""

SUPPRESSION_STATUS = {ReviewVerdict.FALSE_POSITIVE: "accepted", ReviewVerdict.FOLLOW_UP: "underReview",
                      ReviewVerdict.CONFIRMED: "rejected"}
"""SARIF suppression ``status`` for each reviewer verdict."""

TraceFindings = tuple[RequestTrace, list[Finding]]


def _descriptors() -> list[dict[str, Any]]:
    out = [{"id": c.id, "name": c.id, "shortDescription": {"text": c.title}} for c in CHECKS]
    out.append({"id": "check", "name": "check", "shortDescription": {"text": "a check failed to run on the trace"}})
    return out


def _result(trace: RequestTrace, f: Finding, index: dict[str, int], review: Review | None) -> dict[str, Any]:
    check, _, sub = f.rule.partition(".")
    key = key_of(trace.trace_id, f)
    logical: list[dict[str, Any]] = [{"name": trace.trace_id, "kind": "module", "fullyQualifiedName": trace.trace_id}]
    location: dict[str, Any] = {}
    if key.item_id:
        logical.append({"name": key.item_id, "kind": "object", "fullyQualifiedName": f"{trace.trace_id}/{key.item_id}"})
        physical: dict[str, Any] = {"artifactLocation": {"uri": f"trace/{_seg(trace.trace_id)}/item/{_seg(key.item_id)}",
                                                         "uriBaseId": "TRACEDB"}}
        if key.start >= 0:
            region: dict[str, Any] = {"charOffset": key.start, "charLength": key.end - key.start}
            try:
                content = trace.item(key.item_id).content
            except KeyError:
                content = None
            if content is not None:
                region["snippet"] = {"text": content[key.start:key.end]}
            physical["region"] = region
        location["physicalLocation"] = physical
    location["logicalLocations"] = logical
    result: dict[str, Any] = {
        "ruleId": f"{check}/{sub}" if sub else check,
        "level": LEVELS[f.severity],
        "message": {"text": f.message},
        "locations": [location],
        "partialFingerprints": {"ctxviewer/findingKey/v1": "|".join(
            (key.trace_id, key.item_id, key.rule, str(key.start), str(key.end)))},
        "properties": {
            "severity": f.severity.value, "spanUnit": "code points", "traceId": trace.trace_id,
            "toolCallIds": list(f.evidence.tool_call_ids), "tableRow": f.table_row,
            "firstEvidence": f.first_evidence, "repair": f.repair,
        },
    }
    if check in index:
        result["ruleIndex"] = index[check]
    if review is not None and review.verdict is not None:
        sup: dict[str, Any] = {"kind": "external", "status": SUPPRESSION_STATUS[review.verdict],
                               "justification": review.verdict.label + (f": {review.note}" if review.note else "")}
        bag = {"reviewer": review.reviewer} if review.reviewer else {}
        if review.reviewed_at is not None:
            bag["reviewedAt"] = review.when
        if bag:
            sup["properties"] = bag
        result["suppressions"] = [sup]
    return result


def _seg(s: str) -> str:
    from urllib.parse import quote

    return quote(s, safe="")


def sarif_log(results: Iterable[TraceFindings], reviews: Mapping[FindingKey, Review] | None = None,
              db_uri: str | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log of ``results`` (trace, its findings), with ``reviews`` as suppressions.

    ``db_uri`` (e.g. ``file:///data/traces.db``) becomes the ``TRACEDB`` base of the item artifacts.
    """
    rules = _descriptors()
    index = {r["id"]: n for n, r in enumerate(rules)}
    reviews = reviews or {}
    out = [_result(t, f, index, reviews.get(key_of(t.trace_id, f))) for t, fs in results for f in fs]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "ctxviewer", "version": __version__, "rules": rules}},
        "columnKind": "unicodeCodePoints",
        "results": out,
    }
    if db_uri:
        run["originalUriBaseIds"] = {"TRACEDB": {"uri": db_uri.rstrip("/") + "/"}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def assess_db(store: TraceStore, trace_ids: Iterable[str] | None = None,
              progress: Callable[[int, int], None] | None = None,
              cancelled: Callable[[], bool] | None = None,
              context: AssessContext | None = None) -> list[TraceFindings]:
    """Every trace of ``store`` (or ``trace_ids``) with its assessment's findings (all checks), read
    as every surface reads it: dropped messages derived (:func:`ctxviewer.diff.conversation.derive_for_display`),
    assessed in ``context`` (default: the store's own, :func:`ctxviewer.assess.context.context_for_db`).

    Raises ``KeyError`` naming a requested trace id that is not in the store."""
    ids = list(trace_ids) if trace_ids else [r.trace_id for r in store.list(None, 0, -1)]
    ctx = context if context is not None else context_for_db(store.path)
    out: list[TraceFindings] = []
    for n, tid in enumerate(ids):
        if cancelled and cancelled():
            break
        trace = derive_for_display(store, store.load(tid))
        out.append((trace, list(assess(trace, ctx).findings)))
        if progress:
            progress(n + 1, len(ids))
    return out


def write_sarif(path: str | Path, log: Mapping[str, Any]) -> Path:
    """Write ``log`` as UTF-8 JSON to ``path``; returns the path. Raises ``OSError``."""
    p = Path(path)
    p.write_text(json.dumps(log, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return p


def db_reviews(db: str | Path, review_file: str | Path | None = None) -> dict[FindingKey, Review]:
    """The reviews of ``db``: in the review file :func:`ctxviewer.review.location.review_location`
    finds for it (beside it, in the user data directory, or ``review_file`` -- ``--review-file``);
    empty when there is none. The file is only read. Raises
    :class:`~ctxviewer.review.verdicts.ReviewFileError` naming the file and the cause when it
    cannot be read or is not a review file (garbage, damaged, a directory, other tables)."""
    from ctxviewer.review.location import review_location

    with review_location(db, review_file).open() as rf:
        return rf.all()
