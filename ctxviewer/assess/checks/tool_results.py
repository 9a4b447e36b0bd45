"""Orphan tool results: a tool result sent without the assistant turn that called the tool.

Providers reject a ``tool`` message whose call is not in the request (OpenAI: "messages with role
'tool' must be a response to a preceding message with 'tool_calls'"). A retained item with role
``tool`` is an orphan (``tool_result.orphan``, failure) when the nearest earlier conversation item
that is not itself a tool result is an omitted assistant turn, or when there is no earlier
assistant turn at all: trimming dropped the call and kept its result.

That rule holds for a self-contained request only. Two kinds of trace are never judged by it
(:mod:`.server_state`):

* a request that continues state the provider holds (``previous_response_id``, a provider-held
  conversation id): the call lives in that state, so a result with no call before it is how
  such a request looks (OpenAI Responses: the ``function_call_output`` alone);
* a standalone tool span (``execute_tool`` imported on its own): it records a tool's execution,
  its call and result, and was never sent to a provider.

A request the provider answered (:func:`answered`: a response recorded and the span not in
error) with no turn at all before its tool result was not rejected: the call lives where the trace
does not reach (provider-held state the trace does not name, or a turn the exporter did not
capture), and the finding is ``info``, said as such. Not so when the trace records the call's turn
as omitted (that is the cut itself), nor for a what-if whose items changed
(``ctxviewer.whatif.changed``, set by :mod:`ctxviewer.builder.whatif`), which keeps the recorded
answer of the request it changed: those stay failures. A what-if as recorded concludes as the
recording does.
"""

from __future__ import annotations

from typing import Iterable

from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.assess.checks.server_state import is_tool_span, server_held_state
from ctxviewer.model.capture import answered
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import Kind, RequestTrace, Status

_CONVERSATION = (Kind.HISTORY, Kind.USER, Kind.MEMORY, Kind.SUMMARY)


class ToolResultCheck:
    """Orphan tool results (see the module docstring)."""

    id = "tool_result"
    title = "orphan tool result"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """One ``tool_result.orphan`` finding per orphaned tool result; none for a request that
        continues server-held state or a standalone tool span (module docstring)."""
        if is_tool_span(trace) or server_held_state(trace) is not None:
            return
        # a what-if whose items changed keeps the recording's answer, given to another request
        accepted = answered(trace) and not trace.attributes.get("ctxviewer.whatif.changed")
        previous = None
        for item in trace.items:
            if item.kind not in _CONVERSATION:
                continue
            if item.role == "tool":
                if item.status is Status.RETAINED and (previous is None or previous.status is Status.OMITTED):
                    why = (f"the turn before it ({previous.id}, which carried the call) was omitted"
                           if previous is not None else "no turn carrying its call precedes it")
                    held = accepted and previous is None  # an omitted call turn is the trace's own evidence of a cut
                    verdict = ("yet the provider answered: its call is held where the trace does not reach "
                               "(provider-held state or a turn not captured)" if held else
                               "the provider will reject the request")
                    yield rule_finding(
                        "tool_result.orphan", Severity.INFO if held else Severity.FAILURE,
                        f"tool result {item.id} is sent but {why}; {verdict}",
                        Evidence(item_ids=(item.id,) + ((previous.id,) if previous is not None else ()),
                                 positions=(item.position,) if item.position else ()))
                continue
            previous = item


CHECK = ToolResultCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
