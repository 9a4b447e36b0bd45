"""The model's output of one call: the response and tool calls a trace shows (the first choice),
and the other choices, kept instead of dropped.

OTel GenAI ``gen_ai.output.messages`` holds one message per choice (``gen_ai.request.choice.count``
> 1, OpenAI's ``n``). A trace has one response: :func:`response_of` reads the first choice.
:func:`other_choices` keeps every further choice -- its finish reason, text and tool calls -- as
the trace attribute :data:`OTHER_CHOICES_ATTRIBUTE`, with an import warning naming them: a second
choice proposing ``delete_all_files({"path": "/"})`` was dropped without a word. No Qt here.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common.part_shapes import reasoning_text
from ctxviewer.model.trace import Response, ToolCall
from ctxviewer.util.json_escapes import decode_escapes

OTHER_CHOICES_ATTRIBUTE = "ctxviewer.other_choices"
"""Trace attribute: the choices after the first, each ``{"choice": N (1-based), "finish_reason",
"text", "tool_calls": [{"name", "arguments", "id"}]}`` (keys with no value left out)."""


def _tool_calls_only(outputs: Sequence[Mapping[str, Any]]) -> bool:
    """Several output messages that each carry tool calls and no text: some instrumentations (Koog)
    write each tool call of one turn as its own message; n choices of nothing but tool calls are
    not a real shape, so they are one turn's calls."""
    return len(outputs) > 1 and all(
        gm.tool_call_parts(m) and not any(p.get("type") == "text" and p.get("content") for p in m.get("parts") or [])
        for m in outputs)


def one_response_items(outputs: Sequence[Mapping[str, Any]] | None, choices: bool = False) -> list[dict[str, Any]] | None:
    """``outputs`` as one assistant message holding every message's parts in order, when they are the
    output items of one response rather than choices: more than one message, all ``assistant`` (or
    no role), none with a ``finish_reason`` (the semconv ``OutputMessage`` of a choice requires one),
    and ``choices`` (``gen_ai.request.choice.count`` > 1) not set. Logfire's ``instrument_openai``
    writes each OpenAI Responses output item (a ``message``, each ``function_call``) as its own output
    message (``convert_responses_outputs_to_semconv``), so two parallel tool calls read as "Tool calls
    none" and two "other choices" (new user nu3 #5). Else ``outputs`` unchanged (as a list, or ``None``)."""
    if outputs is None:
        return None
    out = [dict(m) for m in outputs]
    if choices or len(out) < 2 or any(m.get("finish_reason") not in (None, "") or m.get("role") not in (None, "assistant")
                                      for m in out):
        return out
    return [{"role": "assistant", "parts": [p for m in out for p in (m.get("parts") or [])]}]


def _text(message: Mapping[str, Any]) -> str | None:
    texts = [str(p.get("content") or "") for p in message.get("parts") or [] if p.get("type") == "text"]
    return decode_escapes("".join(texts)) if texts else None


def response_of(output: Sequence[Mapping[str, Any]] | None, output_tool_calls: Sequence[Mapping[str, Any]],
                finish_reason: Any, response_model: str | None, response_id: str | None, choices: bool = False,
                ) -> tuple[Response | None, tuple[ToolCall, ...]]:
    """Response (the first output message, in the OTel GenAI parts shape) and its tool calls
    (arguments as sent; ``output_tool_calls`` when the first output message has none), or every
    message's tool calls when the output is one turn's calls written as separate messages
    (:func:`_tool_calls_only`) -- unless ``choices`` says the messages are choices
    (``gen_ai.request.choice.count`` > 1: OpenAI ``n=2`` with tools answers two choices of tool calls
    only). ``finish_reason``, ``response_model`` and ``response_id`` are the call's own (the finish reason falls back to the first message's). ``(None, calls)`` when there
    is nothing of a response at all."""
    first = output[0] if output else None
    calls: list[Mapping[str, Any]] = list(gm.tool_call_parts(first)) if first else []
    if not calls:
        calls = list(output_tool_calls)
    if output and not choices and _tool_calls_only(output):
        calls = [c for m in output for c in gm.tool_call_parts(m)]
    tool_calls = tuple(ToolCall(name=str(c.get("name") or ""), arguments=gm.arguments_string(c.get("arguments")),
                                id=None if c.get("id") in (None, "") else str(c.get("id"))) for c in calls)
    reason = finish_reason or (first.get("finish_reason") if first else None)
    if first is None and reason is None and response_model is None and response_id is None:
        return None, tool_calls
    text = reasoning = None
    if first is not None:
        text = _text(first)
        thoughts = [t for t in (reasoning_text(p) for p in first.get("parts") or []) if t is not None]
        reasoning = "\n".join(thoughts) if thoughts else None
    return Response(text=text, finish_reason=None if reason is None else str(reason),
                    model=response_model, id=response_id, reasoning=reasoning), tool_calls


def other_choices(output: Sequence[Mapping[str, Any]] | None, choices: bool = False,
                  field: str = "gen_ai.output.messages") -> tuple[list[dict[str, Any]], str | None]:
    """The choices after the first as the :data:`OTHER_CHOICES_ATTRIBUTE` value, and the import
    warning naming them by the source's ``field`` (``"gen_ai.output.messages holds 2 choices: the trace shows choice 1;
    choice 2 (finish reason tool_calls; proposes delete_all_files) is kept as
    ctxviewer.other_choices"``); ``([], None)`` for one choice or one turn's calls written as
    separate messages."""
    if not output or len(output) < 2 or (not choices and _tool_calls_only(output)):
        return [], None
    kept: list[dict[str, Any]] = []
    said: list[str] = []
    for n, message in enumerate(output[1:], 2):
        calls = [{k: v for k, v in (("name", str(c.get("name") or "")), ("arguments", gm.arguments_string(c.get("arguments"))),
                                    ("id", c.get("id"))) if v not in (None, "")}
                 for c in gm.tool_call_parts(message)]
        entry = {k: v for k, v in (("choice", n), ("finish_reason", message.get("finish_reason")),
                                   ("text", _text(message)), ("tool_calls", calls)) if v not in (None, "", [])}
        kept.append(entry)
        what = [f"finish reason {entry['finish_reason']}"] if "finish_reason" in entry else []
        if calls:
            what.append("proposes " + ", ".join(c.get("name") or "a tool call" for c in calls))
        said.append(f"choice {n}" + (f" ({'; '.join(what)})" if what else ""))
    return kept, (f"{field} holds {len(output)} choices: the trace shows choice 1; "
                  f"{', '.join(said)} {'is' if len(said) == 1 else 'are'} kept as {OTHER_CHOICES_ATTRIBUTE}")
