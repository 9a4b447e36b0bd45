"""The request as the model received it, as a conversation: messages in order with their roles,
and the omitted candidates shown in place with their reason.

:func:`conversation` turns a trace's items (tool definitions aside: they are not messages) into
:class:`Turn` s in final order -- the order of ``RequestTrace.items``, where omitted items keep the
place they held among the candidates -- followed by the model's response when one was recorded.
Each turn carries its heading in words and its text made visible (:func:`ctxviewer.util.visible.reveal`);
the window greys the omitted ones. No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctxviewer.model.trace import NOT_RECORDED, Kind, RequestTrace, Status
from ctxviewer.model.words import fmt_int
from ctxviewer.util.visible import one_line, reveal

_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


TOOL_CALLS_ONLY = "no text (tool calls only)"
"""What a response without text says when it proposed tool calls: the trace records that the answer
was calls (OpenAI ``content: null``, output parts that are all ``tool_call``), not a capture gap."""


def no_text(trace: RequestTrace) -> str:
    """What the response says where it has no text: :data:`TOOL_CALLS_ONLY` when the trace records
    proposed tool calls, else ``"text not recorded"``."""
    return TOOL_CALLS_ONLY if trace.tool_calls else f"text {NOT_RECORDED}"


def shown_text(text: str) -> str:
    """``reveal(text).text``, skipping the character-by-character pass for plain ASCII text with
    no control characters (nothing to reveal there; a 2,000-message conversation stays fast)."""
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return text
    return reveal(text).text


DEFAULT_ROLE = {Kind.POLICY: "system", Kind.USER: "user"}
"""The role of an item whose trace did not record one, where the kind decides it."""
RESPONSE_ID = ""
"""``Turn.item_id`` of the response turn (it is not an item)."""


@dataclass(frozen=True)
class Turn:
    """One message of the conversation (or an omitted candidate, or the response)."""

    item_id: str
    """The item it comes from; :data:`RESPONSE_ID` for the response."""
    role: str
    """``system``, ``user``, ``assistant``, ``tool``; ``"role not recorded"`` when unknown."""
    heading: str
    """E.g. ``"5 · user · history turn-04 · 24 tokens"`` or ``"omitted (window) · assistant ·
    history turn-01 · 134 tokens"``."""
    text: str
    """The content with invisible characters made visible; ``"content not recorded"`` if absent."""
    omitted: bool
    """True for a candidate left out of the request (shown greyed, in place)."""
    reason: str | None
    """The omission reason (``None`` for sent messages; ``"not recorded"`` when unknown)."""


def conversation(trace: RequestTrace) -> tuple[Turn, ...]:
    """The turns of ``trace`` (see the module docstring): one per non-tool item in final order,
    then the response (role ``assistant``, heading ``"response · finish reason stop"``)."""
    turns: list[Turn] = []
    for it in trace.items:
        if it.kind is Kind.TOOL:
            continue
        role = it.role or DEFAULT_ROLE.get(it.kind, f"role {NOT_RECORDED}")
        tokens = f"{fmt_int(it.tokens)} tokens" if it.tokens is not None else f"tokens {NOT_RECORDED}"
        what = f"{role} · {it.kind_label} {one_line(it.id)} · {tokens}"
        omitted = it.status is Status.OMITTED
        if omitted:
            reason = it.omission_reason or NOT_RECORDED
            heading = f"omitted ({one_line(reason)}) · {what}"
        else:
            reason = None
            heading = f"{it.position if it.position is not None else '?'} · {what}"
        text = shown_text(it.content) if it.content is not None else f"content {NOT_RECORDED}"
        turns.append(Turn(it.id, role, heading, text, omitted, reason))
    r = trace.response
    if r is not None:
        finish = one_line(r.finish_reason) if r.finish_reason else NOT_RECORDED
        calls = f" · {len(trace.tool_calls)} tool call(s) proposed" if trace.tool_calls else ""
        text = shown_text(r.text) if r.text else no_text(trace)
        turns.append(Turn(RESPONSE_ID, "assistant", f"response · assistant · finish reason {finish}{calls}",
                          text, False, None))
    return tuple(turns)
