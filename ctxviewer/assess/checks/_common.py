"""Helpers shared by the built-in checks: findings with their Table 3.1 or rule words, citations.

:func:`table_finding` builds a finding that is an instance of a Table 3.1 row (its
``first_evidence`` and ``repair`` from ``ctxviewer/resources/table_3_1.json``); :func:`rule_finding` one of a
check that is not a table row (words from ``ctxviewer/resources/check_rules.json``, keyed by rule id).
No Qt here.
"""

from __future__ import annotations

import functools
import json

from ctxviewer.assess.textmatch import cites
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.table31 import row
from ctxviewer.model.trace import ContextItem, RequestTrace
from ctxviewer.util import assets


@functools.cache
def rule_texts() -> dict[str, dict[str, str]]:
    """Rule id -> ``{"title", "first_evidence", "repair"}`` from ``check_rules.json``. Raises
    ``FileNotFoundError`` / ``ValueError`` if the data file is missing or malformed (packaging)."""
    data = json.loads(assets.read_text("check_rules.json"))
    return dict(data["rules"])


def table_finding(rule: str, severity: Severity, message: str, evidence: Evidence, table_row: int) -> Finding:
    """A finding that is an instance of Table 3.1 row ``table_row`` (its words attached)."""
    r = row(table_row)
    return Finding(rule=rule, severity=severity, message=message, evidence=evidence,
                   table_row=table_row, first_evidence=r.first_evidence, repair=r.repair)


def rule_finding(rule: str, severity: Severity, message: str, evidence: Evidence) -> Finding:
    """A finding of a non-table check; ``first_evidence``/``repair`` from ``check_rules.json``
    (``None`` for a rule id the file does not have)."""
    words = rule_texts().get(rule, {})
    return Finding(rule=rule, severity=severity, message=message, evidence=evidence,
                   first_evidence=words.get("first_evidence"), repair=words.get("repair"))


def document_ids(item: ContextItem) -> tuple[str, ...]:
    """The identifiers an answer may cite ``item`` by: its id and its source document id."""
    ids = [item.id]
    if item.source and item.source.document_id and item.source.document_id not in ids:
        ids.append(item.source.document_id)
    return tuple(ids)


def answer_text(trace: RequestTrace) -> str | None:
    """The response text, ``None`` when there is none (no response or empty text)."""
    return trace.response.text if trace.response and trace.response.text else None


def is_cited(trace: RequestTrace, item: ContextItem) -> bool:
    """True if the answer names ``item`` by its id or source document id."""
    text = answer_text(trace)
    return text is not None and any(cites(text, i) for i in document_ids(item))


def positions(*items: ContextItem) -> tuple[int, ...]:
    """The request positions of the retained ``items`` (omitted ones have none)."""
    return tuple(i.position for i in items if i.position is not None)
