"""Untrusted text an importer found placed inside another item: a retrieved document inside the
system or user message (the "stuff" pattern), a tool's output fed back inside a user or assistant
message (text-based ReAct agents: CrewAI, LangChain ReAct write ``Observation: <tool output>``).

Importers record where: ``ctxviewer.documents`` rows (:data:`DOCUMENTS`) and
``ctxviewer.tool_outputs`` rows (:data:`TOOL_OUTPUTS`: ``{"tool", "span", "sent_in", "at"}``),
``sent_in`` the item's id and ``at`` ``[start, end)`` of the text in its content, in characters.
:func:`placed_data` is the one reading of both: the injection scanner scans these ranges as the
untrusted data they are whatever the holding item's role (``check``, ``scan``), and ``show``'s
"Fed by" row says where a tool's output went and that it is scanned -- one fact for both. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ctxviewer.model.trace import RequestTrace

DOCUMENTS = "ctxviewer.documents"
"""Trace attribute: the retrieval's rows, one per document (``sent_in`` / ``at`` when sent inside a message)."""
TOOL_OUTPUTS = "ctxviewer.tool_outputs"
"""Trace attribute: where the output of a tool span that fed the call sits inside one of its items."""


@dataclass(frozen=True)
class Placed:
    """One range of untrusted text inside an item."""

    item_id: str
    """The item holding it."""
    start: int
    """First character of the text in the item's content (0-based)."""
    end: int
    """One past its last character."""
    source: str
    """What it is, in words: ``"retrieved document kb-2"``, ``"output of tool search (span c2…05)"``."""
    span: str | None = None
    """The tool span whose output it is; ``None`` for a retrieved document."""


def placed_data(trace: RequestTrace) -> list[Placed]:
    """Every placed range of ``trace`` (module docstring), documents first, each checked against
    its item's content (a row whose item is missing or whose range does not fit is left out)."""
    content = {i.id: i.content or "" for i in trace.items}
    out: list[Placed] = []
    for key in (DOCUMENTS, TOOL_OUTPUTS):
        rows = trace.attributes.get(key)
        for row in rows if isinstance(rows, (list, tuple)) else ():
            if not isinstance(row, Mapping) or str(row.get("sent_in")) not in content:
                continue
            at, text = row.get("at"), content[str(row.get("sent_in"))]
            if not (isinstance(at, (list, tuple)) and len(at) == 2 and all(isinstance(n, int) for n in at)
                    and 0 <= at[0] <= at[1] <= len(text)):
                continue
            if key == DOCUMENTS:
                source, span = f"retrieved document {row.get('id') or '(id not recorded)'}", None
            else:
                span = str(row.get("span") or "") or None
                source = f"output of tool {row.get('tool') or '(name not recorded)'}" + (f" (span {span})" if span else "")
            out.append(Placed(str(row["sent_in"]), at[0], at[1], source, span))
    return out
