"""Which user messages of a model call are a tool's output sent back, not the user's words.

A text-based ReAct agent (CrewAI, LangChain ReAct, read through OpenInference) runs a tool and
sends its output back to the model as a user message ``Observation: <tool output>``. Such a
message is the tool's untrusted data (:mod:`ctxviewer.model.placed_data` places and scans it),
and it is no user request: taken as one, the trace's "user request" was the tool output (its
tokens in the user category, its text the question the needed evidence is matched against).
:func:`observation_messages` finds these messages before the trace is made, and the normaliser
(:func:`ctxviewer.importers.common.llm_call.build_items`) makes them history and the last user
message of the user's own words the user request -- or none, said as not recorded.

A user message is an observation when, with every occurrence of a fed tool's output taken out
(:func:`~ctxviewer.importers.common.sent_documents.output_bodies`), what is left is only the ReAct
labels ``Observation:`` / ``Thought:`` (:data:`REACT_LABELS`, at least one of them) and white
space. A message that also
holds other words (LangChain's one-message prompt: the question, then the scratchpad with its
observations) stays the user request, its tool output still placed and scanned. No Qt here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.sent_documents import output_bodies

REACT_LABELS = re.compile(r"\b(?:Observation|Thought)\s*:", re.IGNORECASE)
"""The ReAct scaffolding labels an observation message may hold around the tool output
(LangChain's ``ReActSingleInputOutputParser`` format, CrewAI's ``Observation:`` / ``Thought:``)."""


def is_observation(text: str, bodies: Sequence[str]) -> bool:
    """Whether message ``text`` is nothing but the tool outputs ``bodies`` (at least one of them in
    it) and :data:`REACT_LABELS` (at least one; module docstring)."""
    rest, found = text, False
    for body in bodies:
        if body in rest:
            rest, found = rest.replace(body, " "), True
    # a label must be there: a user message that only equals a tool's output (an ask-human tool's
    # reply, the user's own words) is no ReAct observation
    return found and REACT_LABELS.search(rest) is not None and not REACT_LABELS.sub(" ", rest).strip()


def observation_messages(messages: Sequence[gm.Message], outputs: Sequence[tuple[str, str, Any]]) -> frozenset[int]:
    """The indexes in ``messages`` (OTel GenAI shape) of the ``user`` messages that are only the
    output of a tool that fed the call -- ``outputs`` as ``(tool name, span id, output.value)``
    (:func:`~ctxviewer.importers.common.sent_documents.tool_output_rows`' input) -- sent back
    (:func:`is_observation`); empty when no output was captured."""
    bodies = [b for _tool, _span, value in outputs for b in output_bodies(value)]
    if not bodies:
        return frozenset()
    return frozenset(i for i, m in enumerate(messages)
                     if m.get("role") == "user" and is_observation(gm.message_text(m), bodies))
