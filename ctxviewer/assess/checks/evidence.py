"""Table 3.1 row 3, "relevant document overlooked among irrelevant passages" (first evidence
"Retrieval ranking and context order").

The document the answer needed (user-marked, else best matching the question; see
:mod:`ctxviewer.assess.evidence_positions`) and the answer does not cite is reported when

* ``evidence.needed_in_middle`` (warning) -- it sits in the ``middle`` band of a long evidence
  list (lost-in-the-middle risk ``high``): its index, the list length and the band are given;
* ``evidence.needed_omitted_by_rank`` (warning) -- it was omitted because it ranked too low;
* ``evidence.needed_has_duplicates`` (warning) -- other evidence items are near-duplicates of it
  (word 3-shingle Jaccard >= :data:`DUPLICATE_JACCARD`), crowding the list.

A trace without an answer text is not checked: "overlooked" is about what the answer used.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import answer_text, table_finding
from ctxviewer.assess.config import marked_documents
from ctxviewer.assess.evidence_positions import EvidenceMap, EvidencePosition, evidence_map
from ctxviewer.assess.textmatch import jaccard, shingles
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import Kind, RequestTrace, Status

DUPLICATE_JACCARD = 0.8
"""Two evidence texts whose 3-word shingle sets overlap this much are near-duplicates."""


def _where(e: EvidencePosition, m: EvidenceMap) -> str:
    return f"evidence {e.index} of {m.retained_count} (request position {e.position}, {e.band} band, risk {e.risk})"


class EvidenceCheck:
    """Table 3.1 row 3 (see the module docstring)."""

    id = "evidence"
    title = "relevant document overlooked (Table 3.1 row 3)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``evidence.*`` findings for ``trace``."""
        m = evidence_map(trace, marked_documents(trace.trace_id))
        if m is None or answer_text(trace) is None:
            return
        how = "marked as needed by the user" if m.needed_source == "marked" else "best match with the question"
        for e in m.entries:
            if not e.needed or e.cited:
                continue
            if e.status is Status.OMITTED and "rank" in (e.omission_reason or ""):
                yield table_finding(
                    "evidence.needed_omitted_by_rank", Severity.WARNING,
                    f"{e.item_id} ({how}) was omitted by rank and the answer does not cite it",
                    Evidence(item_ids=(e.item_id,), fields=("items.omission_reason",)), 3,
                )
            elif e.band == "middle" and m.long:
                yield table_finding(
                    "evidence.needed_in_middle", Severity.WARNING,
                    f"{e.item_id} ({how}) sits at {_where(e, m)} and the answer does not cite it",
                    Evidence(item_ids=(e.item_id,), positions=(e.position,) if e.position else ()), 3,
                )
            dups = self._duplicates(trace, e.item_id)
            if dups:
                yield table_finding(
                    "evidence.needed_has_duplicates", Severity.WARNING,
                    f"{e.item_id} ({how}) has {len(dups)} near-duplicate(s) in the evidence: {', '.join(dups)}",
                    Evidence(item_ids=(e.item_id, *dups)), 3,
                )

    @staticmethod
    def _duplicates(trace: RequestTrace, item_id: str) -> list[str]:
        ev = [i for i in trace.items if i.kind is Kind.EVIDENCE and i.content]
        target = next((i for i in ev if i.id == item_id), None)
        if target is None:
            return []
        mine = shingles(target.content or "")
        return [i.id for i in ev if i.id != item_id and jaccard(mine, shingles(i.content or "")) >= DUPLICATE_JACCARD]


CHECK = EvidenceCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
