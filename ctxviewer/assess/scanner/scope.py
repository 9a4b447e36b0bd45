"""Which items of a trace the scanner reads, and its hits as findings.

Only untrusted data is scanned (chapter 3.5): documents and evidence, tool results (history items
with role ``tool``), memory and summaries -- every item whose ``trust`` is ``untrusted`` except the
user's own words (the ``user`` item and history turns with role ``user``, the principal), text the
model itself wrote (role ``assistant``) and the application's own tool definitions (``tool`` items:
the developer wrote them, as the policy; the chapter classifies supplied text as "trusted policy or
untrusted data" by where it came from). Model-written text is labelled as such and not reported;
the same text returned inside a tool result is scanned, because its role there is ``tool``. A tool
definition that names where it came from (its ``source``: an external tool server, a URL) is
another party's text and is scanned. Trusted policy is not scanned, except the retrieved documents
an importer found sent inside it (:func:`scan_items`): retrieved text is data wherever it was put.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ctxviewer.assess.scanner.invisible import INVISIBLE
from ctxviewer.assess.scanner.patterns import Hit
from ctxviewer.assess.scanner.registry import scan_text_cached
from ctxviewer.model.findings import Evidence, Finding, TextSpan
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, Trust


class Scope(str, enum.Enum):
    """Why an item is or is not scanned; ``.label`` says it in words."""

    UNTRUSTED = "untrusted"
    MODEL = "model"
    PRINCIPAL = "principal"
    TRUSTED = "trusted"
    DEVELOPER = "developer"
    NOT_RECORDED = "not_recorded"

    @property
    def label(self) -> str:
        """Words for the item list: e.g. ``"written by the model: not scanned"``."""
        return _LABELS[self]


_LABELS = {
    Scope.UNTRUSTED: "untrusted data: scanned",
    Scope.MODEL: "written by the model: not scanned",
    Scope.PRINCIPAL: "the user's own request: not scanned",
    Scope.TRUSTED: "trusted policy: not scanned",
    Scope.DEVELOPER: "the application's tool definition: not scanned",
    Scope.NOT_RECORDED: "content not recorded: not scanned",
}


def scope_of(item: ContextItem) -> Scope:
    """The :class:`Scope` of ``item`` (see the module docstring for the rule)."""
    role = (item.role or "").lower()
    if item.content is None:
        return Scope.NOT_RECORDED
    if item.trust is Trust.TRUSTED:
        return Scope.TRUSTED
    if role == "assistant":
        return Scope.MODEL
    if item.kind is Kind.USER or (item.kind is Kind.HISTORY and role in ("user", "human")):
        return Scope.PRINCIPAL
    if item.is_tool_definition and (item.source is None or not (item.source.url or item.source.store)):
        return Scope.DEVELOPER
    return Scope.UNTRUSTED


@dataclass(frozen=True)
class ItemScan:
    """The scan of one item: its scope and hits (empty unless the scope is ``untrusted``, or
    ``trusted`` with retrieved documents sent inside it: only their text is scanned)."""

    item: ContextItem
    scope: Scope
    hits: tuple[Hit, ...]


def scan_items(trace: RequestTrace) -> list[ItemScan]:
    """One :class:`ItemScan` per item of ``trace``, in final order (omitted items included:
    an omitted document was not sent, but its hits still say what the store holds)."""
    out = []
    for item in trace.items:
        scope = scope_of(item)
        hits = scan_text_cached(item.content or "") if scope is Scope.UNTRUSTED else ()
        if scope is Scope.TRUSTED:
            hits = _retrieved_hits(trace, item)
        out.append(ItemScan(item, scope, hits))
    return out


def _retrieved_hits(trace: RequestTrace, item: ContextItem) -> tuple[Hit, ...]:
    """The hits in the retrieved documents sent inside trusted ``item`` (the "stuff" pattern: the
    importer records each as a ``ctxviewer.documents`` row with ``sent_in`` = the item's id and
    ``at`` = ``[start, end)`` of its text in the item's content,
    :mod:`ctxviewer.importers.common.sent_documents`): retrieved text is untrusted data wherever it
    was placed, so it is scanned; each hit's span is in the item's content and its reason names
    the document."""
    rows = trace.attributes.get("ctxviewer.documents")
    content = item.content or ""
    out: list[Hit] = []
    for row in rows if isinstance(rows, (list, tuple)) else ():
        at = row.get("at") if isinstance(row, Mapping) and row.get("sent_in") == item.id else None
        if not (isinstance(at, (list, tuple)) and len(at) == 2 and all(isinstance(n, int) for n in at)
                and 0 <= at[0] <= at[1] <= len(content)):
            continue
        doc = row.get("id") or "(id not recorded)"
        out += [replace(h, start=h.start + at[0], end=h.end + at[0],
                        reason=f"retrieved document {doc}, sent inside this trusted message: {h.reason}")
                for h in scan_text_cached(content[at[0]:at[1]])]
    return tuple(out)


def item_label(item: ContextItem) -> str:
    """``"evidence TCK-58213 (position 5)"`` / ``"... (omitted)"``: how messages name an item."""
    where = f"position {item.position}" if item.position is not None else "omitted"
    return f"{item.kind.value} {item.id} ({where})"


def hit_finding(item: ContextItem, hit: Hit, tool_call_ids: tuple[str, ...] = ()) -> Finding:
    """The :class:`Finding` for one hit: rule, severity, "<item>: <reason>", the span as evidence.
    An ``injection.invisible`` hit's message ends with where it starts, ``" at character N"`` (N
    1-based, code points of the item's content): the characters cannot be seen, so the words must
    say where to look (the span in the evidence is 0-based, ``start`` = N - 1)."""
    where = f" at character {hit.start + 1}" if hit.rule == INVISIBLE.id else ""
    return Finding(
        rule=hit.rule,
        severity=hit.severity,
        message=f"{item_label(item)}: {hit.reason}{where}",
        evidence=Evidence(
            item_ids=(item.id,),
            positions=(item.position,) if item.position is not None else (),
            spans=(TextSpan(item.id, hit.start, hit.end),),
            tool_call_ids=tool_call_ids,
        ),
    )
