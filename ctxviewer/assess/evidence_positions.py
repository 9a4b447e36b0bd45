"""The evidence position map: where each evidence item sat in the request, and which one the answer
needed (Table 3.1 row 3, "relevant document overlooked among irrelevant passages").

For a trace with evidence items, :func:`evidence_map` lists them in request order -- retained and
omitted, omitted ones where they stood among the candidates -- with each item's share of the
evidence tokens, whether the answer cites it, whether it is *needed*, and for retained items its
1-based index among the retained evidence and a lost-in-the-middle risk band:

* the relative place ``p = (index - 1) / (count - 1)`` of a retained item among ``count``
  retained evidence items is ``edge`` (risk ``low``) for ``p < 0.2`` or ``p > 0.8``, ``middle``
  (risk ``high``) for ``0.35 <= p <= 0.65``, else ``shoulder`` (risk ``medium``). Models use
  passages at the start and end of a long context best and those in the middle worst (Liu et al.,
  "Lost in the Middle", 2023); a list shorter than :data:`LONG_LIST` is all ``edge``.

The needed documents are the ones the user marked (:class:`~ctxviewer.assess.config.CheckConfig`
``needed``), else the one that best matches the question by BM25 (:func:`ctxviewer.assess.textmatch.bm25`
over the evidence texts against the user request), leaving out the records the question names by
identifier (the order the customer asks about is the subject of the question, not its answer);
documents sent inside a message (:func:`sent_inside`) compete too, and when one of them matches
best no evidence item is needed.
The same figures appear in ``show --json`` under ``evidence_positions``. No Qt here.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ctxviewer.assess.textmatch import bm25, cites, identifiers
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, Status

LONG_LIST = 10
"""A retained evidence list this long or longer has a middle where passages get lost."""
RISK = {"edge": "low", "shoulder": "medium", "middle": "high"}
"""Lost-in-the-middle risk of each band."""


@dataclass(frozen=True)
class EvidencePosition:
    """One evidence item on the map."""

    item_id: str
    """The item."""
    status: Status
    """Retained or omitted."""
    position: int | None
    """1-based position in the request; ``None`` when omitted."""
    index: int | None
    """1-based index among the retained evidence; ``None`` when omitted."""
    tokens: int | None
    """The item's tokens; ``None`` if not recorded."""
    share: float | None
    """``tokens`` over the sum of all evidence tokens on the map (0..1); ``None`` if unknown."""
    score: float
    """BM25 match with the question (0.0 = no shared content word)."""
    cited: bool
    """The answer names the item (by id or source document id)."""
    needed: bool
    """The item is the document the answer needed (user-marked or best matching the question)."""
    band: str | None
    """``edge``, ``shoulder`` or ``middle`` for retained items; ``None`` when omitted."""
    omission_reason: str | None
    """Why an omitted item was left out (``rank``, ``budget``...)."""

    @property
    def risk(self) -> str | None:
        """``low``, ``medium`` or ``high`` (:data:`RISK` of the band); ``None`` when omitted."""
        return RISK[self.band] if self.band else None


@dataclass(frozen=True)
class EvidenceMap:
    """The evidence items of one trace in request order (see the module docstring)."""

    entries: tuple[EvidencePosition, ...]
    """Every evidence item, retained and omitted, in request order."""
    retained_count: int
    """How many evidence items were sent."""
    middle: tuple[int, int] | None
    """First and last retained index of the ``middle`` band; ``None`` for a short list."""
    needed_source: str | None
    """``"marked"`` (by the user), ``"best match"`` (with the question) or ``None`` (none found)."""

    @property
    def long(self) -> bool:
        """True when the retained list has at least :data:`LONG_LIST` items."""
        return self.retained_count >= LONG_LIST

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (``show --json`` ``evidence_positions``)."""
        return {
            "retained_count": self.retained_count,
            "long_list": self.long,
            "middle_band": list(self.middle) if self.middle else None,
            "needed_source": self.needed_source,
            "items": [
                {"item_id": e.item_id, "status": e.status.value, "position": e.position, "index": e.index,
                 "tokens": e.tokens, "share": None if e.share is None else round(e.share, 4),
                 "score": round(e.score, 3), "cited": e.cited, "needed": e.needed, "band": e.band,
                 "risk": e.risk, "omission_reason": e.omission_reason}
                for e in self.entries
            ],
        }


def band(index: int, count: int) -> str:
    """The band of the ``index``-th (1-based) of ``count`` retained evidence items (module docstring)."""
    if count < LONG_LIST:
        return "edge"
    p = (index - 1) / (count - 1)
    if p < 0.2 or p > 0.8:
        return "edge"
    return "middle" if 0.35 <= p <= 0.65 else "shoulder"


def _ids(item: ContextItem) -> tuple[str, ...]:
    doc = item.source.document_id if item.source else None
    return (item.id,) + ((doc,) if doc and doc != item.id else ())


def _named(item: ContextItem, named: set[str]) -> bool:
    return any(n in i for n in named for i in _ids(item))


def evidence_map(trace: RequestTrace, marked: Iterable[str] = ()) -> EvidenceMap | None:
    """The map of ``trace``'s evidence items; ``None`` when the trace has none.

    ``marked`` are the ids of the documents the user marked as needed for this trace (the check
    config's marks: :func:`ctxviewer.assess.config.marked_documents`); without marks the
    needed document is the best BM25 match of the question. Memoised per trace and marks (traces
    are immutable and hashable), so the evidence check, the diagnostics Evidence tab and the diff
    share one computation: BM25 over every evidence text takes about a second for 3,000 documents."""
    return _evidence_map(trace, tuple(marked))


def sent_inside(trace: RequestTrace) -> list[str]:
    """The texts of the retrieved documents the importer found sent inside a message of ``trace``
    (``ctxviewer.documents`` rows with ``sent_in`` and ``at``,
    :mod:`ctxviewer.importers.common.sent_documents`): no evidence items, but they compete for the
    best match with the question, so a document the reranker dropped is not "needed" because the
    one it kept was sent inside the user message."""
    rows = trace.attributes.get("ctxviewer.documents")
    content = {i.id: i.content or "" for i in trace.items}
    out = []
    for row in rows if isinstance(rows, (list, tuple)) else ():
        at = row.get("at") if isinstance(row, Mapping) else None
        text = content.get(str(row.get("sent_in"))) if isinstance(row, Mapping) else None
        if text is not None and isinstance(at, (list, tuple)) and len(at) == 2 and all(isinstance(n, int) for n in at):
            out.append(text[at[0]:at[1]])
    return out


@functools.lru_cache(maxsize=16)
def _evidence_map(trace: RequestTrace, marked_ids: tuple[str, ...]) -> EvidenceMap | None:
    items = [i for i in trace.items if i.kind is Kind.EVIDENCE]
    if not items:
        return None
    answer = trace.response.text if trace.response and trace.response.text else ""
    inside = sent_inside(trace)
    scores = bm25(trace.user_request or "", [i.content or "" for i in items] + inside)
    marked = set(marked_ids)
    needed: set[str] = {i.id for i in items if i.id in marked}
    source = "marked" if needed else None
    if not needed and trace.user_request and any(s > 0 for s in scores):  # (identifiers only then)
        named = identifiers(trace.user_request)
        ranked = sorted(((s, n) for n, s in enumerate(scores) if s > 0 and not (n < len(items) and _named(items[n], named))),
                        key=lambda p: (-p[0], p[1]))
        if ranked and ranked[0][1] < len(items):  # a document sent inside a message matching best needs no item
            needed, source = {items[ranked[0][1]].id}, "best match"
    retained = [i for i in items if i.status is Status.RETAINED]
    count = len(retained)
    index = {i.id: n for n, i in enumerate(retained, 1)}
    known = [i.tokens for i in items if i.tokens is not None]
    total = sum(known) if known else 0
    entries = tuple(
        EvidencePosition(
            item_id=i.id, status=i.status, position=i.position, index=index.get(i.id),
            tokens=i.tokens, share=(i.tokens / total) if (i.tokens is not None and total) else None,
            score=s, cited=bool(answer) and any(cites(answer, x) for x in _ids(i)), needed=i.id in needed,
            band=band(index[i.id], count) if i.id in index else None, omission_reason=i.omission_reason,
        )
        for i, s in zip(items, scores)
    )
    mids = [e.index for e in entries if e.band == "middle" and e.index is not None]
    return EvidenceMap(entries, count, (min(mids), max(mids)) if mids else None, source)
