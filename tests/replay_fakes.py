"""A fake OpenAI- and Anthropic-compatible server for the replay and position-test tests.

:class:`FakeServer` listens on 127.0.0.1 (port 0: the OS picks), in a thread, and answers
``POST /v1/chat/completions``, ``/v1/responses`` and ``/v1/messages``. Every request is checked
against the provider's request shape (:func:`request_problems`: a JSON Schema of the required
fields, then the pairing rules the providers enforce -- a Chat ``tool`` message answers a
preceding ``tool_calls`` id and every call is answered before the next turn; an Anthropic
``tool_use`` is followed by its ``tool_result`` first in the next user turn; a Responses
``function_call_output`` answers a preceding ``function_call``); a request that fails is answered
400 and kept in :attr:`FakeServer.problems`.

The answer depends on where the needed passage sits: the position of the first turn holding
:attr:`needle` among the user turns before the last (1-based), and the server answers
:attr:`answer_text` with the probability :attr:`curve` gives at that position (a planted curve;
a constant for the null server), drawn from a seeded generator. :meth:`FakeServer.script` queues
failures for the next requests: ``"429:N"`` (Retry-After N), ``"timeout:S"`` (sleep S seconds),
``"malformed"`` (200 with a body that is not JSON), ``"401"``.
"""

from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import jsonschema

_STR = {"type": "string"}
_OBJ = {"type": "object"}
CHAT_SCHEMA = {
    "type": "object", "required": ["model", "messages"],
    "properties": {
        "model": _STR, "max_tokens": {"type": "integer", "minimum": 1}, "temperature": {"type": "number"},
        "seed": {"type": "integer"}, "stream": {"type": "boolean"},
        "messages": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["role"], "oneOf": [
            {"properties": {"role": {"enum": ["system", "developer", "user"]},
                            "content": {"type": ["string", "array"]}}, "required": ["content"]},
            {"properties": {"role": {"const": "assistant"}, "content": {"type": ["string", "array", "null"]},
                            "tool_calls": {"type": "array", "items": {"type": "object", "required": ["id", "type", "function"],
                                           "properties": {"id": _STR, "type": {"const": "function"}, "function": {
                                               "type": "object", "required": ["name", "arguments"],
                                               "properties": {"name": _STR, "arguments": _STR}}}}}}},
            {"properties": {"role": {"const": "tool"}, "tool_call_id": _STR, "content": {"type": ["string", "array"]}},
             "required": ["tool_call_id", "content"]}]}},
        "tools": {"type": "array", "items": {"type": "object", "required": ["type", "function"], "properties": {
            "type": {"const": "function"}, "function": {"type": "object", "required": ["name"],
                                                        "properties": {"name": _STR, "parameters": _OBJ}}}}},
    },
}
_BLOCK = {"type": "object", "required": ["type"], "oneOf": [
    {"properties": {"type": {"const": "text"}, "text": _STR}, "required": ["text"]},
    {"properties": {"type": {"const": "image"}, "source": _OBJ}, "required": ["source"]},
    {"properties": {"type": {"const": "document"}, "source": _OBJ}, "required": ["source"]},
    {"properties": {"type": {"const": "thinking"}}},
    {"properties": {"type": {"const": "tool_use"}, "id": _STR, "name": _STR, "input": _OBJ}, "required": ["id", "name", "input"]},
    {"properties": {"type": {"const": "tool_result"}, "tool_use_id": _STR, "content": {"type": ["string", "array"]}},
     "required": ["tool_use_id"]}]}
MESSAGES_SCHEMA = {
    "type": "object", "required": ["model", "max_tokens", "messages"],
    "properties": {
        "model": _STR, "max_tokens": {"type": "integer", "minimum": 1}, "temperature": {"type": "number"},
        "system": {"type": ["string", "array"]}, "stream": {"type": "boolean"},
        "messages": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["role", "content"],
                     "properties": {"role": {"enum": ["user", "assistant"]},
                                    "content": {"oneOf": [_STR, {"type": "array", "items": _BLOCK}]}}}},
        "tools": {"type": "array", "items": {"type": "object", "required": ["name", "input_schema"],
                                             "properties": {"name": _STR, "input_schema": _OBJ}}},
    },
}
RESPONSES_SCHEMA = {
    "type": "object", "required": ["model", "input"],
    "properties": {
        "model": _STR, "instructions": _STR, "max_output_tokens": {"type": "integer", "minimum": 1},
        "input": {"oneOf": [_STR, {"type": "array", "items": {"type": "object", "anyOf": [
            {"required": ["role", "content"], "properties": {"role": {"enum": ["user", "assistant", "system", "developer"]}}},
            {"required": ["type", "call_id", "name", "arguments"], "properties": {"type": {"const": "function_call"}}},
            {"required": ["type", "call_id", "output"], "properties": {"type": {"const": "function_call_output"}}},
            {"required": ["type"], "properties": {"type": {"enum": ["reasoning", "message"]}}}]}}]},
        "tools": {"type": "array", "items": {"type": "object", "required": ["type"]}},
    },
}
SCHEMAS = {"/v1/chat/completions": CHAT_SCHEMA, "/v1/messages": MESSAGES_SCHEMA, "/v1/responses": RESPONSES_SCHEMA}


def _chat_pairing(doc: dict[str, Any]) -> list[str]:
    out, waiting = [], set()
    for i, m in enumerate(doc["messages"]):
        if m["role"] == "tool":
            if m["tool_call_id"] not in waiting:
                out.append(f"messages[{i}]: tool_call_id {m['tool_call_id']} answers no preceding tool call")
            waiting.discard(m["tool_call_id"])
            continue
        if waiting:
            out.append(f"messages[{i}]: tool calls {sorted(waiting)} have no tool message before it")
            waiting = set()
        waiting |= {c["id"] for c in m.get("tool_calls") or []}
    return out + ([f"tool calls {sorted(waiting)} never answered"] if waiting else [])


def _messages_pairing(doc: dict[str, Any]) -> list[str]:
    out, msgs = [], doc["messages"]
    if msgs[0]["role"] != "user":
        out.append("messages[0] must be a user turn")
    for i, m in enumerate(msgs):
        if i and m["role"] == msgs[i - 1]["role"]:
            out.append(f"messages[{i}]: two {m['role']} turns in a row")
        blocks = m["content"] if isinstance(m["content"], list) else []
        uses = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if uses:
            nxt = msgs[i + 1]["content"] if i + 1 < len(msgs) and isinstance(msgs[i + 1]["content"], list) else []
            lead = [b.get("tool_use_id") for b in nxt[:len(uses)] if b["type"] == "tool_result"]
            if sorted(lead) != sorted(uses):
                out.append(f"messages[{i}]: tool_use ids {uses} without tool_result blocks immediately after")
    return out


def _responses_pairing(doc: dict[str, Any]) -> list[str]:
    out, calls = [], set()
    for i, it in enumerate(doc["input"] if isinstance(doc["input"], list) else []):
        if it.get("type") == "function_call":
            calls.add(it["call_id"])
        elif it.get("type") == "function_call_output" and it["call_id"] not in calls:
            out.append(f"input[{i}]: function_call_output {it['call_id']} answers no function_call")
    return out


def request_problems(path: str, doc: Any) -> list[str]:
    """What is wrong with request body ``doc`` for endpoint ``path`` (empty: the provider accepts it)."""
    schema = SCHEMAS.get(path)
    if schema is None:
        return [f"unknown path {path}"]
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message[:200]}"
              for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
    if errors:
        return errors
    pairing = {"/v1/chat/completions": _chat_pairing, "/v1/messages": _messages_pairing,
               "/v1/responses": _responses_pairing}[path]
    return pairing(doc)


def _units(path: str, doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of each turn, Anthropic blocks as turns of their message's role."""
    if path == "/v1/responses":
        items = doc["input"] if isinstance(doc["input"], list) else [{"role": "user", "content": doc["input"]}]
        return [(it.get("role", it.get("type", "")), str(it.get("content", it.get("output", "")))) for it in items]
    out = []
    for m in doc["messages"]:
        c = m.get("content")
        if isinstance(c, list):
            out += [(m["role"], b["text"] if "text" in b else json.dumps(b, ensure_ascii=False)) for b in c]
        else:
            out.append((m["role"], c or ""))
    return out


def needle_position(path: str, doc: dict[str, Any], needle: str) -> int | None:
    """1-based position of the first user turn holding ``needle`` among the user turns before the last."""
    users = [t for r, t in _units(path, doc) if r == "user"][:-1]
    for n, text in enumerate(users, 1):
        if needle in text:
            return n
    return None


class FakeServer:
    """See the module docstring. Use as a context manager; :attr:`base_url` ends in ``/v1``."""

    def __init__(self, curve: Callable[[int | None], float] = lambda pos: 1.0, needle: str = "",
                 answer_text: str = "the answer", seed: int = 7, require_key: str | None = None) -> None:
        self.curve, self.needle, self.answer_text, self.require_key = curve, needle, answer_text, require_key
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.problems: list[list[str]] = []
        self.positions: list[int | None] = []
        self._script: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer._handle(self, raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def script(self, *steps: str) -> None:
        """Queue failures for the next requests (module docstring)."""
        with self.lock:
            self._script += steps

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)

    def _handle(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        with self.lock:
            step = self._script.pop(0) if self._script else None
            self.requests.append({"path": h.path, "headers": dict(h.headers), "raw": raw})
        if step is not None and step.startswith("429"):
            return self._send(h, 429, b'{"error": {"message": "slow down"}}', {"Retry-After": step.split(":")[1]})
        if step is not None and step.startswith("timeout"):
            time.sleep(float(step.split(":")[1]))
        if step == "malformed":
            return self._send(h, 200, b'{"choices": [ this is not json')
        key = h.headers.get("x-api-key") or (h.headers.get("Authorization") or "").removeprefix("Bearer ")
        if step == "401" or (self.require_key is not None and key != self.require_key):
            return self._send(h, 401, b'{"error": {"message": "invalid x-api-key"}}')
        try:
            doc = json.loads(raw)
        except ValueError:
            doc = None
        problems = request_problems(h.path, doc)
        with self.lock:
            self.problems.append(problems)
        if problems:
            return self._send(h, 400, json.dumps({"error": {"message": "; ".join(problems)}}).encode())
        pos = needle_position(h.path, doc, self.needle) if self.needle else None
        with self.lock:
            self.positions.append(pos)
            right = self.rng.random() < self.curve(pos)
        text = f"Yes: {self.answer_text}." if right else "I cannot tell from the documents."
        return self._send(h, 200, json.dumps(_answer(h.path, doc["model"], text)).encode())


def _answer(path: str, model: str, text: str) -> dict[str, Any]:
    if path == "/v1/messages":
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 100, "output_tokens": 9, "cache_read_input_tokens": 20}}
    if path == "/v1/responses":
        return {"id": "resp_fake", "object": "response", "model": model, "status": "completed",
                "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}],
                "usage": {"input_tokens": 120, "output_tokens": 9}}
    return {"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 9}}
