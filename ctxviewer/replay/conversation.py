"""A trace's retained items as a provider-neutral conversation, tool calls paired with their results.

:func:`conversation_of` reads the retained items in final order:

* ``policy`` items (and any item sent under role ``system``) -> the system text, joined by a blank line;
* ``tool`` items -> tool definitions (their content is the JSON definition: ``name``,
  ``description`` and ``parameters`` / ``input_schema`` / ``inputSchema``);
* an ``assistant`` item -> an assistant turn; lines of its content that are a tool call as the
  importers render it (``{"type":"tool_call","id":...,"name":...,"arguments":...}``,
  :func:`ctxviewer.importers.common.messages.part_text`) become its tool calls, the other lines its text;
* a ``tool`` role item -> the result of the oldest call still waiting for one; a ``user`` history
  item right after an assistant turn with exactly one call waiting -> that call's result (Anthropic
  Messages sends a tool result as the next user turn, which importers may keep as user text; a note
  says so);
* everything else -> a user turn (role ``user``, the default for evidence, memory and history).

So the provider accepts it, every call gets a result: a call with none recorded before the next
non-result turn (or at the end) gets the result text :data:`NO_RESULT`, and a result with no call
waiting is sent as user text; each such repair is a note ("assumed"). A call without a recorded id
gets ``call_N``. No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ctxviewer.model.trace import ContextItem, Kind, RequestTrace

NO_RESULT = "[tool result not recorded]"
"""The result sent for a recorded tool call whose result the trace does not hold."""


@dataclass(frozen=True)
class Call:
    """A tool call of an assistant turn; ``arguments`` is the JSON string as recorded."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatTurn:
    """One turn: ``role`` is ``user``, ``assistant`` or ``tool`` (a result; ``call_id`` its call)."""

    role: str
    text: str
    item_id: str | None = None
    calls: tuple[Call, ...] = ()
    call_id: str | None = None


@dataclass(frozen=True)
class ToolDef:
    """A tool definition: name, description, JSON Schema of the arguments."""

    name: str
    description: str | None
    schema: dict[str, Any]


@dataclass(frozen=True)
class Conversation:
    """System text, tools and turns in order, and the notes on what was assumed."""

    system: str | None
    tools: tuple[ToolDef, ...]
    turns: tuple[ChatTurn, ...]
    notes: tuple[str, ...] = field(default=())


def _tool_def(item: ContextItem, notes: list[str]) -> ToolDef | None:
    try:
        d = json.loads(item.content or "")
    except ValueError:
        d = None
    if isinstance(d, dict) and isinstance(d.get("function"), dict):
        d = d["function"]  # {"type": "function", "function": {...}}
    if not isinstance(d, dict) or not isinstance(d.get("name"), str):
        notes.append(f"tool item {item.id} is not a JSON tool definition with a name; not sent")
        return None
    schema = d.get("parameters", d.get("input_schema", d.get("inputSchema")))
    if not isinstance(schema, dict):
        schema = {"type": "object", "properties": {}}
        notes.append(f"tool {d['name']}: no parameter schema recorded; sent as an empty object schema (assumed)")
    desc = d.get("description")
    return ToolDef(d["name"], desc if isinstance(desc, str) else None, schema)


def _split_calls(text: str, counter: list[int]) -> tuple[str, tuple[Call, ...]]:
    kept, calls = [], []
    for line in text.split("\n"):
        try:
            d = json.loads(line) if line.startswith("{") else None
        except ValueError:
            d = None
        if isinstance(d, dict) and d.get("type") == "tool_call" and isinstance(d.get("name"), str):
            counter[0] += 1
            args = d.get("arguments")
            args_text = args if isinstance(args, str) else json.dumps(args if args is not None else {},
                                                                      ensure_ascii=False, separators=(",", ":"))
            calls.append(Call(str(d.get("id") or f"call_{counter[0]}"), d["name"], args_text))
        else:
            kept.append(line)
    return "\n".join(kept).strip("\n"), tuple(calls)


def _role(item: ContextItem) -> str:
    if item.role in ("assistant", "tool", "system"):
        return item.role
    return "system" if item.kind is Kind.POLICY else "user"


def conversation_of(trace: RequestTrace) -> Conversation:
    """The retained items of ``trace`` as a :class:`Conversation` (module docstring)."""
    notes: list[str] = []
    system: list[str] = []
    tools: list[ToolDef] = []
    turns: list[ChatTurn] = []
    waiting: list[Call] = []
    counter = [0]

    def close_waiting() -> None:
        for c in waiting:
            turns.append(ChatTurn("tool", NO_RESULT, None, (), c.id))
            notes.append(f"tool call {c.id} ({c.name}) has no recorded result; sent with {NO_RESULT!r} (assumed)")
        waiting.clear()

    for item in trace.retained:
        if item.kind is Kind.TOOL and item.role is None:
            t = _tool_def(item, notes)
            if t is not None:
                tools.append(t)
            continue
        text = item.content
        if text is None:
            notes.append(f"item {item.id}: content not recorded; sent empty")
            text = ""
        role = _role(item)
        if role == "system":
            system.append(text)
        elif role == "user" and item.kind is Kind.HISTORY and len(waiting) == 1:
            # Anthropic Messages carries a tool result in the next user turn (a tool_result block), which
            # an importer may keep as user text: the one call waiting is what it answers
            turns.append(ChatTurn("tool", text, item.id, (), waiting.pop(0).id))
            notes.append(f"item {item.id}: the user turn right after tool call {turns[-1].call_id} is taken as its "
                         "result (the record does not mark it as one)")
        elif role == "tool":
            if waiting:
                turns.append(ChatTurn("tool", text, item.id, (), waiting.pop(0).id))
            else:
                turns.append(ChatTurn("user", text, item.id))
                notes.append(f"item {item.id}: a tool result with no call waiting for it; sent as user text")
        else:
            close_waiting()
            if role == "assistant":
                body, calls = _split_calls(text, counter)
                turns.append(ChatTurn("assistant", body, item.id, calls))
                waiting.extend(calls)
            else:
                turns.append(ChatTurn("user", text, item.id))
    close_waiting()
    return Conversation("\n\n".join(system) if system else None, tuple(tools), tuple(turns), tuple(notes))
