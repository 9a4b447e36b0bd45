"""A :class:`~ctxviewer.replay.conversation.Conversation` as the body one provider accepts.

* Chat Completions (``openai-chat``, ``openai-compatible``): ``messages`` with the system text
  first; an assistant turn's calls as ``tool_calls[{id, type: "function", function{name,
  arguments}}]`` (``content`` null when it has no text); results as ``{role: "tool",
  tool_call_id, content}`` right after; ``tools[{type: "function", function{name, description,
  parameters}}]``; ``max_tokens``.
* Responses (``openai-responses``): ``instructions`` (the system text) and ``input`` items --
  messages, ``function_call{call_id, name, arguments}`` and ``function_call_output{call_id,
  output}``; ``tools[{type: "function", name, description, parameters}]``; ``max_output_tokens``.
* Messages (``anthropic-messages``): ``system`` at the top; ``messages`` alternate user and
  assistant (adjacent turns of one role merged into content blocks), begin with a user turn, each
  ``tool_use{id, name, input}`` answered by a ``tool_result{tool_use_id, content}`` block first in
  the next user turn; ``tools[{name, description, input_schema}]``; ``max_tokens`` (required).

:func:`render` takes the settings to send (model, max tokens, temperature, seed) and returns
the body and notes on what could not be carried (Anthropic has no ``seed``). No Qt here.
"""

from __future__ import annotations

import json
from typing import Any

from ctxviewer.replay.conversation import ChatTurn, Conversation


def _args_object(arguments: str) -> Any:
    try:
        value = json.loads(arguments)
    except ValueError:
        return {"_raw": arguments}
    return value if isinstance(value, dict) else {"_value": value}


def _chat(conv: Conversation) -> dict[str, Any]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": conv.system}] if conv.system is not None else []
    for t in conv.turns:
        if t.role == "tool":
            msgs.append({"role": "tool", "tool_call_id": t.call_id, "content": t.text})
        elif t.role == "assistant" and t.calls:
            msgs.append({"role": "assistant", "content": t.text or None, "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in t.calls]})
        else:
            msgs.append({"role": t.role, "content": t.text})
    body: dict[str, Any] = {"messages": msgs}
    if conv.tools:
        body["tools"] = [{"type": "function", "function": {"name": d.name, **({"description": d.description}
                          if d.description else {}), "parameters": d.schema}} for d in conv.tools]
    return body


def _responses(conv: Conversation) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for t in conv.turns:
        if t.role == "tool":
            items.append({"type": "function_call_output", "call_id": t.call_id, "output": t.text})
            continue
        if t.text or not t.calls:
            items.append({"role": t.role, "content": t.text})
        items += [{"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments} for c in t.calls]
    body: dict[str, Any] = {"input": items}
    if conv.system is not None:
        body["instructions"] = conv.system
    if conv.tools:
        body["tools"] = [{"type": "function", "name": d.name, **({"description": d.description} if d.description else {}),
                          "parameters": d.schema} for d in conv.tools]
    return body


def _blocks(t: ChatTurn) -> list[dict[str, Any]]:
    if t.role == "tool":
        return [{"type": "tool_result", "tool_use_id": t.call_id, "content": t.text}]
    out: list[dict[str, Any]] = [{"type": "text", "text": t.text}] if t.text else []
    out += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _args_object(c.arguments)} for c in t.calls]
    return out or [{"type": "text", "text": "(empty)"}]


def _messages(conv: Conversation, notes: list[str]) -> dict[str, Any]:
    msgs: list[dict[str, Any]] = []
    for t in conv.turns:
        role = "user" if t.role in ("user", "tool") else "assistant"
        if msgs and msgs[-1]["role"] == role:
            msgs[-1]["content"] += _blocks(t)
        else:
            msgs.append({"role": role, "content": _blocks(t)})
    if not msgs or msgs[0]["role"] != "user":
        msgs.insert(0, {"role": "user", "content": [{"type": "text", "text": "(conversation start not recorded)"}]})
        notes.append("the first recorded turn is the assistant's; a user turn '(conversation start not recorded)' "
                     "was put first (Messages must begin with a user turn; assumed)")
    body: dict[str, Any] = {"messages": msgs}
    if conv.system is not None:
        body["system"] = conv.system
    if conv.tools:
        body["tools"] = [{"name": d.name, **({"description": d.description} if d.description else {}),
                          "input_schema": d.schema} for d in conv.tools]
    return body


def render(conv: Conversation, kind: str, model: str, max_tokens: int | None,
           params: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``(body, notes)`` of ``conv`` for endpoint ``kind`` (module docstring). ``params`` holds
    ``temperature`` / ``seed`` / ``top_p`` when they are to be sent; ``max_tokens`` ``None`` sends
    none (Anthropic needs one: 1024, noted as assumed)."""
    notes: list[str] = []
    if kind == "anthropic-messages":
        body = _messages(conv, notes)
        if max_tokens is None:
            max_tokens = 1024
            notes.append("max_tokens not recorded; 1024 sent (Anthropic Messages requires it; assumed)")
        body = {"model": model, "max_tokens": max_tokens, **body}
        if "seed" in params:
            notes.append("seed not sent: Anthropic Messages has no seed parameter")
        body.update({k: v for k, v in params.items() if k in ("temperature", "top_p")})
        return body, notes
    if kind == "openai-responses":
        body = {"model": model, **_responses(conv)}
        if max_tokens is not None:
            body["max_output_tokens"] = max_tokens
        if "seed" in params:
            notes.append("seed not sent: the Responses API has no seed parameter")
        body.update({k: v for k, v in params.items() if k in ("temperature", "top_p")})
        return body, notes
    body = {"model": model, **_chat(conv)}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    body.update({k: v for k, v in params.items() if k in ("temperature", "top_p", "seed")})
    return body, notes
