"""What a call whose message content was not captured (``ctxviewer.content`` = ``"not captured"``)
does record, in words: its output, its usage, or metadata only.

A span can lack its input messages and still record its output (OpenInference's
``llm.output_messages`` with reasoning and text, and no token count): "usage and metadata only"
would be false twice there. :func:`uncaptured_what` names what is recorded beside the missing
messages; the importers' warning (:mod:`ctxviewer.importers.common.llm_call`) and the ``Content``
row of ``show`` (:mod:`ctxviewer.assess.trace_header`) say it. No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxviewer.model.span_facts import ERROR, span_status
from ctxviewer.model.trace import RequestTrace, Response, ToolCall, Usage

OUTPUT_ONLY_WARNING = "no input messages captured: the span records its output only"
"""The import warning where the response (text, reasoning or tool calls) is recorded and no input."""
OUTPUT_ONLY_ROW = "input not captured: the span records its output and no input messages"
"""The ``Content`` row of ``show`` for such a call."""


def usage_recorded(usage: Usage) -> bool:
    """True when the provider reported any token count (input, output, cache or reasoning)."""
    return any(v is not None for v in (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens,
                                       usage.cache_creation_input_tokens, usage.reasoning_tokens))


def output_recorded(response: Response | None, tool_calls: Sequence[ToolCall]) -> bool:
    """True when the call records the model's output: response text, reasoning or a tool call."""
    return bool(tool_calls) or (response is not None and (response.text is not None or response.reasoning is not None))


def answered(trace: RequestTrace) -> bool:
    """Whether the provider answered the request as the trace records it: a response with text,
    reasoning or an id (each not empty), or proposed tool calls, and a span status that is not
    ``error`` (:func:`ctxviewer.model.span_facts.span_status`). Unlike :func:`output_recorded`, an
    empty text is no answer."""
    if span_status(trace.attributes) == ERROR:
        return False
    r = trace.response
    return bool(trace.tool_calls) or (r is not None and bool(r.text or r.reasoning or r.id))


def uncaptured_what(usage: Usage) -> str:
    """What a call with neither messages nor output records: ``"usage and metadata only"``, or
    ``"metadata only, no usage"`` when no token count is reported either."""
    return "usage and metadata only" if usage_recorded(usage) else "metadata only, no usage"


def uncaptured_warning(note: str | None, usage: Usage, response: Response | None, tool_calls: Sequence[ToolCall]) -> str:
    """The import warning for a call whose message content was not captured: :data:`OUTPUT_ONLY_WARNING`
    when its output is recorded, else the source's ``note`` (``None``: "no message content
    captured") followed by :func:`uncaptured_what`."""
    if output_recorded(response, tool_calls):
        return OUTPUT_ONLY_WARNING
    return f"{note}; {uncaptured_what(usage)}" if note else f"no message content captured ({uncaptured_what(usage)})"


def uncaptured_row(trace: RequestTrace) -> str:
    """The ``Content`` row of ``show`` for a trace whose content was not captured (and no mapping's note)."""
    if output_recorded(trace.response, trace.tool_calls):
        return OUTPUT_ONLY_ROW
    return (f"not captured: the span has {uncaptured_what(trace.usage)} "
            "(message content capture is opt-in in OpenTelemetry)")
