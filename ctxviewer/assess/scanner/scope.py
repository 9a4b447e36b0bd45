"""Which items of a trace the scanner reads, and its hits as findings.

Only untrusted data is scanned (chapter 3.5): documents and evidence, tool results (history items
with role ``tool``), memory and summaries -- every item whose ``trust`` is ``untrusted`` except the
user's own words (the ``user`` item and history turns with role ``user``, the principal), text the
model itself wrote (role ``assistant``) and the application's own tool definitions (``tool`` items:
the developer wrote them, as the policy; the chapter classifies supplied text as "trusted policy or
untrusted data" by where it came from). Model-written text is labelled as such and not reported;
the same text returned inside a tool result is scanned, because its role there is ``tool``. A tool
definition that names where it came from (its ``source``: an external tool server, a URL) is
another party's text and is scanned. Trusted policy, the user's words and the model's are not
scanned, except the untrusted text an importer found placed inside them (:func:`scan_items`,
:mod:`ctxviewer.model.placed_data`: a retrieved document inside the system or user message, a
tool's output fed back inside a user or assistant message by a ReAct agent): retrieved text and
tool output are data wherever they were put.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from ctxviewer.assess.scanner.invisible import INVISIBLE
from ctxviewer.assess.scanner.patterns import Hit
from ctxviewer.assess.scanner.registry import scan_text_cached
from ctxviewer.model.findings import Evidence, Finding, TextSpan
from ctxviewer.model.placed_data import Placed, placed_data
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
    the item holds placed untrusted text: only that text is scanned)."""

    item: ContextItem
    scope: Scope
    hits: tuple[Hit, ...]


def scan_items(trace: RequestTrace) -> list[ItemScan]:
    """One :class:`ItemScan` per item of ``trace``, in final order (omitted items included:
    an omitted document was not sent, but its hits still say what the store holds); a trusted,
    user or assistant item's hits are those in the untrusted text placed inside it."""
    out = []
    placed = placed_data(trace)
    for item in trace.items:
        scope = scope_of(item)
        hits = scan_text_cached(item.content or "") if scope is Scope.UNTRUSTED else ()
        if scope in _HOLDERS:
            hits = _placed_hits(item, scope, [p for p in placed if p.item_id == item.id])
        out.append(ItemScan(item, scope, hits))
    return out


_HOLDERS = {Scope.TRUSTED: "trusted message", Scope.PRINCIPAL: "user message", Scope.MODEL: "assistant message"}
"""The scopes whose item is not scanned as a whole but may hold placed untrusted text, in words."""


def _placed_hits(item: ContextItem, scope: Scope, placed: list[Placed]) -> tuple[Hit, ...]:
    """The hits in the untrusted text placed inside ``item`` (:func:`ctxviewer.model.placed_data.placed_data`:
    a retrieved document sent inside the system or user message, a tool's output fed back inside a
    user or assistant message): that text is untrusted data wherever it was placed, so it is
    scanned; each hit's span is in the item's content and its reason names the document or tool."""
    content = item.content or ""
    out: list[Hit] = []
    for p in placed:
        out += [replace(h, start=h.start + p.start, end=h.end + p.start,
                        reason=f"{p.source}, sent inside this {_HOLDERS[scope]}: {h.reason}")
                for h in scan_text_cached(content[p.start:p.end])]
    return tuple(sorted(out, key=lambda h: (h.start, -h.end)))


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
