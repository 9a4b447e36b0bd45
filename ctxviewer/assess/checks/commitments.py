"""Table 3.1 row 2, "old promise forgotten": omitted or summarised history holds a commitment that
no retained item carries (first evidence "History retrieval and summary").

Where the trace has structured commitment records -- context items whose source store is
``commitments`` (:data:`RECORD_STORES`) -- a record that was omitted is ``commitment.record_omitted``
(failure) and no text is scanned. Otherwise the omitted history, summary and memory items are
scanned for commitment language (approvals, promises, conditions; English, German, French and
Spanish in ``ctxviewer/resources/commitment_language.json``). A sentence with such language is *carried*
when one retained history, summary, memory or user item holds at least :data:`CARRIED_SHARE` of
its content words (:func:`ctxviewer.assess.textmatch.coverage`); documents and the policy state rules,
not the commitments made in this conversation, so they do not carry one. The sentences no retained
item carries are one ``commitment.forgotten`` finding (warning) with a span per sentence.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Iterable

from ctxviewer.assess.checks._common import table_finding
from ctxviewer.assess.textmatch import coverage, words
from ctxviewer.model.findings import Evidence, Finding, Severity, TextSpan
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, Status
from ctxviewer.util import assets

RECORD_STORES = frozenset({"commitments"})
"""Source stores whose items are structured commitment records."""
CARRIED_SHARE = 0.6
"""A retained item carries a commitment sentence when it holds this share of its content words."""
_SCANNED = (Kind.HISTORY, Kind.SUMMARY, Kind.MEMORY)
_CARRIERS = (Kind.HISTORY, Kind.SUMMARY, Kind.MEMORY, Kind.USER)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)", re.MULTILINE)


@dataclass(frozen=True)
class Commitment:
    """One sentence of commitment language in an item."""

    item_id: str
    """The item holding it."""
    start: int
    """First code point of the sentence in the item's content."""
    end: int
    """One past its last code point."""
    categories: tuple[str, ...]
    """``approval``, ``promise`` and/or ``condition``."""
    text: str
    """The sentence."""


@functools.cache
def patterns() -> dict[str, re.Pattern[str]]:
    """Category -> one compiled alternation of every language's patterns (case-insensitive)."""
    data = json.loads(assets.read_text("commitment_language.json"))["categories"]
    return {cat: re.compile("|".join(p for lang in langs.values() for p in lang), re.IGNORECASE)
            for cat, langs in data.items()}


def commitments_in(item: ContextItem) -> list[Commitment]:
    """The sentences of ``item.content`` with commitment language, in order."""
    text = item.content or ""
    out = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0)
        cats = tuple(c for c, p in patterns().items() if p.search(sentence))
        if cats:
            lead = len(sentence) - len(sentence.lstrip())
            out.append(Commitment(item.id, m.start() + lead, m.end(), cats, sentence.strip()))
    return out


def _carried(c: Commitment, carriers: list[set[str]]) -> bool:
    need = words(c.text)
    return any(coverage(need, have) >= CARRIED_SHARE for have in carriers)


class CommitmentCheck:
    """Table 3.1 row 2 (see the module docstring)."""

    id = "commitment"
    title = "old promise forgotten (Table 3.1 row 2)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """``commitment.record_omitted`` findings, or one ``commitment.forgotten`` finding."""
        records = [i for i in trace.items if i.source and i.source.store in RECORD_STORES]
        if records:
            for r in records:
                if r.status is Status.OMITTED:
                    yield table_finding(
                        "commitment.record_omitted", Severity.FAILURE,
                        f"commitment record {r.id} was omitted ({r.omission_reason or 'reason not recorded'})",
                        Evidence(item_ids=(r.id,)), 2,
                    )
            return
        found = [c for i in trace.omitted if i.kind in _SCANNED for c in commitments_in(i)]
        if not found:  # (most traces: the retained items' words are not needed; for import speed)
            return
        carriers = [set(words(i.content or "")) for i in trace.retained if i.kind in _CARRIERS]
        lost = [c for c in found if not _carried(c, carriers)]
        if not lost:
            return
        ids = tuple(dict.fromkeys(c.item_id for c in lost))
        cats = sorted({cat for c in lost for cat in c.categories})
        yield table_finding(
            "commitment.forgotten", Severity.WARNING,
            f"omitted history ({', '.join(ids)}) holds {len(lost)} commitment sentence(s) "
            f"({', '.join(cats)}) that no retained item carries; first: \u201c{lost[0].text}\u201d",
            Evidence(item_ids=ids, spans=tuple(TextSpan(c.item_id, c.start, c.end) for c in lost)),
            2,
        )


CHECK = CommitmentCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
