"""A message as the window's Rendered view draws it: tool calls, tool results, images and Markdown.

:func:`message_blocks` reads one message's text as the importers store it
(:func:`ctxviewer.importers.common.messages.part_text`: one line per non-text part) and returns
typed blocks (:mod:`ctxviewer.present.blocks`):

* a line that is a tool call (``{"type":"tool_call","id":...,"name":...,"arguments":...}``) -> a
  :class:`~ctxviewer.present.blocks.ToolCallBlock`: name, call id ("not recorded" when absent) and
  the arguments pretty-printed, or shown exactly as sent with the note of
  :func:`ctxviewer.present.tool_arguments.arguments_view` when they are not a JSON object;
* a line that is an image placeholder -> an :class:`~ctxviewer.present.blocks.ImageBlock`, decoded
  from the recorded request body when it holds the payload (:mod:`ctxviewer.present.message_images`);
* a tool result (role ``tool``, or an item :func:`tool_links` pairs with a call) -> one
  :class:`~ctxviewer.present.blocks.ToolResultBlock`: JSON re-indented, any other text verbatim;
* a text that is one JSON object or array as a whole (a tool definition, a JSON document) -> a
  note "JSON, re-indented:" and a code block of it re-indented with 2 spaces;
* the other lines -> Markdown from a sanitised subset (:mod:`ctxviewer.present.markdown_blocks`).

:func:`tool_links` pairs results with calls in the trace's item order: a ``tool`` item answers the
oldest call still waiting; a ``user`` history item right after an assistant turn with exactly one
call waiting is taken as that call's result (Anthropic sends a result as the next user turn) and
its label says "assumed". Text over :data:`RENDER_LIMIT` is not rendered (the window shows it raw).
No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxviewer.model.trace import NOT_RECORDED, Kind, RequestTrace, Response
from ctxviewer.present.blocks import Block, CodeBlock, TextBlock, TextRun, ToolCallBlock, ToolResultBlock
from ctxviewer.present.message_images import ImageKey, placeholder_image
from ctxviewer.present.tool_arguments import arguments_view
from ctxviewer.tokens.item_rule import tool_call_of
from ctxviewer.util.large_text import SHOW_LIMIT
from ctxviewer.util.visible import one_line, reveal

RENDER_LIMIT = SHOW_LIMIT
"""Code points of a message rendered at most (200,000); a longer one is shown raw."""


@dataclass(frozen=True)
class ToolLink:
    """The call a tool result answers: its id (``None``: not recorded) and name; ``assumed`` the
    rule that paired them when the record does not mark the item as a result."""

    call_id: str | None
    name: str
    assumed: str | None = None


def call_block(call: Mapping[str, Any]) -> ToolCallBlock:
    """The labelled block of one tool call ``{"name": str, "id": str | None, "arguments": str |
    object | None}``: name and id shown with markers for invisible characters, the arguments as
    :func:`ctxviewer.present.tool_arguments.arguments_view` words them (pretty-printed JSON, or
    exactly as sent under a note)."""
    args = call.get("arguments")
    if args is not None and not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    view = arguments_view(args)
    cid = call.get("id")
    return ToolCallBlock(one_line(str(call["name"])), one_line(str(cid)) if cid not in (None, "") else None,
                         view.heading, reveal(view.body).text if view.body is not None else None)


def _json_value(text: str) -> Any:
    """The JSON object or array ``text`` is as a whole, else ``None``."""
    if text.strip()[:1] not in ("{", "["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def _result_block(text: str, link: ToolLink | None) -> ToolResultBlock:
    if link is None:
        label = "tool result (the call it answers is not recorded)"
    else:
        cid = f"call {one_line(link.call_id)}" if link.call_id else f"call id {NOT_RECORDED}"
        label = f"tool result for {one_line(link.name)} ({cid})"
        if link.assumed:
            label += f"; assumed: {link.assumed}"
    value = _json_value(text)
    if value is not None:
        return ToolResultBlock(label, "result (JSON, re-indented):",
                               reveal(json.dumps(value, indent=2, ensure_ascii=False)).text)
    return ToolResultBlock(label, "result (text, as sent):", reveal(text.replace("\r\n", "\n")).text)


def message_blocks(text: str | None, *, role: str | None = None, result_of: ToolLink | None = None,
                   images: Mapping[ImageKey, tuple[str, str, str]] | None = None) -> tuple[Block, ...]:
    """The blocks of one message's stored ``text`` (see the module docstring); ``role`` the
    message's role, ``result_of`` the call it answers (:func:`tool_links`), ``images`` the recorded
    request's payloads (:func:`ctxviewer.present.message_images.recorded_images`). ``None`` text ->
    one paragraph "content not recorded". Never raises."""
    if text is None:
        return (TextBlock("paragraph", (TextRun(f"content {NOT_RECORDED}", ("italic",)),)),)
    if role == "tool" or result_of is not None:
        return (_result_block(text, result_of),)
    value = _json_value(text) if tool_call_of(text) is None else None
    if value is not None:
        return (TextBlock("paragraph", (TextRun("JSON, re-indented:", ("italic",)),)),
                CodeBlock(reveal(json.dumps(value, indent=2, ensure_ascii=False)).text, "json"))
    blocks: list[Block] = []
    prose: list[str] = []

    def flush() -> None:
        if any(line.strip() for line in prose):
            from ctxviewer.present.markdown_blocks import markdown_blocks  # markdown-it: when a message shows

            blocks.extend(markdown_blocks("\n".join(prose)))
        prose.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        call = tool_call_of(line)
        image = placeholder_image(line, images or {}) if call is None and line.startswith("[image") else None
        if call is None and image is None:
            prose.append(line)
            continue
        flush()
        blocks.append(call_block(call) if call is not None else image)  # type: ignore[arg-type]
    flush()
    return tuple(blocks)


def response_blocks(response: Response | None, trace: RequestTrace) -> tuple[Block, ...]:
    """The response's text as blocks, then one block per proposed tool call (``trace.tool_calls``)."""
    text = response.text if response is not None else None
    blocks = list(message_blocks(text)) if text else []
    for c in trace.tool_calls:
        blocks.append(call_block({"name": c.name, "id": c.id, "arguments": c.arguments}))
    if not blocks:
        blocks.append(TextBlock("paragraph", (TextRun(f"text {NOT_RECORDED}", ("italic",)),)))
    return tuple(blocks)


def tool_links(trace: RequestTrace) -> dict[str, ToolLink]:
    """Item id -> the call it answers, for every tool result in ``trace`` (module docstring)."""
    links: dict[str, ToolLink] = {}
    waiting: list[ToolLink] = []
    for it in trace.items:
        if it.kind is Kind.TOOL and it.role is None:  # a tool definition
            continue
        if it.role == "tool":
            if waiting:
                links[it.id] = waiting.pop(0)
            continue
        if it.role == "user" and it.kind is Kind.HISTORY and len(waiting) == 1:
            w = waiting.pop()
            links[it.id] = ToolLink(w.call_id, w.name, "the user turn right after the call, which the record "
                                                       "does not mark as a result")
            continue
        waiting.clear()
        if it.role == "assistant" and it.content:
            for line in it.content.split("\n"):
                call = tool_call_of(line)
                if call is not None:
                    cid = call.get("id")
                    waiting.append(ToolLink(str(cid) if cid not in (None, "") else None, str(call["name"])))
    return links
