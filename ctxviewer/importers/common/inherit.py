"""What a model call takes from its ancestor spans when it does not record it itself: the system
instructions and the tool definitions of the agent it runs under.

Agent frameworks record the agent's instructions and tools once, on the agent span
(OTel GenAI ``invoke_agent``: ``gen_ai.system_instructions``, ``gen_ai.tool.definitions``, semconv
agent spans; an OpenInference ``AGENT`` span's ``llm.tools.*``; a Langfuse
``AGENT`` observation or the conversation span above the generations), and the chat calls below it
may carry neither. :func:`inherit` gives such a call the nearest ancestor's -- only the part the
call itself does not record (a call with any system or developer message keeps its own policy; a
call with any tool definition keeps its own tools) -- and says where they came from
(:attr:`~ctxviewer.importers.common.llm_call.LLMCall.system_inherited_from`,
:attr:`~ctxviewer.importers.common.llm_call.LLMCall.tools_inherited_from`: ``"span NAME (ID)"``),
which the trace shows as ``ctxviewer.system_inherited_from`` / ``ctxviewer.tools_inherited_from``
and on the items themselves (``source``: ``inherited from span NAME (ID)``). No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxviewer.importers.common.llm_call import POLICY_ROLES, LLMCall


@dataclass(frozen=True)
class Ancestor:
    """What one ancestor span records for the calls below it."""

    label: str
    """How the call names it: ``"span invoke_agent weather-agent (6a0d…)"``, ``"AGENT Hello world (d950…)"``."""
    system: list[dict[str, Any]] | None = None
    """Its system instructions as parts (``[{"type": "text", "content": ...}]``), ``None`` if none."""
    tools: list[dict[str, Any]] | None = None
    """Its tool definitions (provider shape), ``None`` (or empty) if none."""


def inherit(call: LLMCall, ancestors: Sequence[Ancestor]) -> None:
    """Give ``call`` the system instructions and the tool definitions of the nearest of its
    ``ancestors`` (nearest first) that records them, each only when the call records none of its
    own (module docstring). Changes ``call`` in place."""
    has_policy = bool(call.system) or any(m.get("role") in POLICY_ROLES for m in call.messages)
    if not has_policy:
        found = next((a for a in ancestors if a.system), None)
        if found is not None:
            call.system, call.system_inherited_from = found.system, found.label
    if not call.tools:
        found = next((a for a in ancestors if a.tools), None)
        if found is not None and found.tools:
            call.tools, call.tools_inherited_from = list(found.tools), found.label
