"""Untrusted text an importer found placed inside another item: a retrieved document inside the
system or user message (the "stuff" pattern), a tool's output fed back inside a user or assistant
message (text-based ReAct agents: CrewAI, LangChain ReAct write ``Observation: <tool output>``).

Importers record where: ``ctxviewer.documents`` rows (:data:`DOCUMENTS`) and
``ctxviewer.tool_outputs`` rows (:data:`TOOL_OUTPUTS`: ``{"tool", "span", "sent_in", "at"}``),
``sent_in`` the item's id and ``at`` ``[start, end)`` of the text in its content, in characters.
:func:`placed_data` is the one reading of both: the injection scanner scans these ranges as the
untrusted data they are whatever the holding item's role (``check``, ``scan``), and ``show``'s
"Fed by" row says where a tool's output went and that it is scanned -- one fact for both.

A user message that is nothing but such an output (``Observation: <tool output>``, the ReAct labels
aside) is a tool observation, not the user's words: the importer makes it history and the last
user message of the user's own words the user request (none: not recorded), and names it in
:data:`OBSERVATIONS`; :func:`observation_ids` reads them. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ctxviewer.model.trace import Kind, RequestTrace

DOCUMENTS = "ctxviewer.documents"
"""Trace attribute: the retrieval's rows, one per document (``sent_in`` / ``at`` when sent inside a message)."""
TOOL_OUTPUTS = "ctxviewer.tool_outputs"
"""Trace attribute: where the output of a tool span that fed the call sits inside one of its items."""
OBSERVATIONS = "ctxviewer.tool_observations"
"""Trace attribute: the ids of the user messages that are only a tool's output sent back (module
docstring), in order: history items, never the user request."""


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


def observation_ids(trace: RequestTrace) -> list[str]:
    """The ids of ``trace``'s items named in :data:`OBSERVATIONS` (user messages that are a tool's
    output sent back), in the trace's item order; ``[]`` when it names none."""
    named = trace.attributes.get(OBSERVATIONS)
    wanted = {str(n) for n in named} if isinstance(named, (list, tuple)) else set()
    return [i.id for i in trace.items if i.id in wanted]


def user_request_note(trace: RequestTrace) -> str | None:
    """What the header's ``Question`` row (the user request) says of a trace with tool observations
    (:func:`observation_ids`): the user item's id and each observation with the tool output it is
    (``"msg-1 (the user's own words); msg-3 is only the output of tool search (span c2) sent back as
    a user message: history, not the user request"``), or ``"not recorded: ..."`` when no user message
    holds the user's own words; ``None`` for a trace without observations (its user request needs no word)."""
    seen = observation_ids(trace)
    if not seen:
        return None
    source = {p.item_id: p.source for p in placed_data(trace) if p.span is not None}
    what = "; ".join(f"{i} is only the {source.get(i, 'output of a tool')} sent back as a user message" for i in seen)
    users = [i.id for i in trace.items if i.kind is Kind.USER]
    if users:
        return f"{users[-1]} (the user's own words); {what}: history, not the user request"
    return f"not recorded: no user message holds the user's own words ({what}: history)"
