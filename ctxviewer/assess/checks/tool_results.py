"""Orphan tool results: a tool result sent without the assistant turn that called the tool.

Providers reject a ``tool`` message whose call is not in the request (OpenAI: "messages with role
'tool' must be a response to a preceding message with 'tool_calls'"). A retained item with role
``tool`` is an orphan (``tool_result.orphan``, failure) when the nearest earlier conversation item
that is not itself a tool result is an omitted assistant turn, or when there is no earlier
assistant turn at all: trimming dropped the call and kept its result.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import Kind, RequestTrace, Status

_CONVERSATION = (Kind.HISTORY, Kind.USER, Kind.MEMORY, Kind.SUMMARY)


class ToolResultCheck:
    """Orphan tool results (see the module docstring)."""

    id = "tool_result"
    title = "orphan tool result"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """One ``tool_result.orphan`` finding per orphaned tool result."""
        previous = None
        for item in trace.items:
            if item.kind not in _CONVERSATION:
                continue
            if item.role == "tool":
                if item.status is Status.RETAINED and (previous is None or previous.status is Status.OMITTED):
                    why = (f"the turn before it ({previous.id}, which carried the call) was omitted"
                           if previous is not None else "no turn carrying its call precedes it")
                    yield rule_finding(
                        "tool_result.orphan", Severity.FAILURE,
                        f"tool result {item.id} is sent but {why}; the provider will reject the request",
                        Evidence(item_ids=(item.id,) + ((previous.id,) if previous is not None else ()),
                                 positions=(item.position,) if item.position else ()))
                continue
            previous = item


CHECK = ToolResultCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
