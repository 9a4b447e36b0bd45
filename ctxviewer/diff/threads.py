"""When two calls are one thread, and how the later one carries the earlier one.

One conversation (:func:`ctxviewer.diff.conversation.conversation_key`) holds many threads: an
agent's loop, its sub-agents, graders and scorers, independent calls. A later call continues an
earlier one (:func:`continues`, :func:`align`) only when all of these hold:

1. **Same agent, or the same span lineage** -- the agent name
   (:func:`ctxviewer.model.span_facts.agent_name`, inherited from an ancestor span by the
   importers) is the same, or neither records one. With no agent on either, two calls of one run
   (one OTel trace id, one Langfuse or LangSmith trace, one Inspect sample):

   * in different Inspect spans (``inspect.span_id``: a solver's loop runs in one span, a
     model-graded scorer in its own) are other threads;
   * under different parent spans (``otel.parent_span_id``, ``langfuse.parent_observation_id``)
     are one thread only when the later call carries the earlier call's reply: graph frameworks
     (LangGraph, Koog) run every step under its own node span, and the next step of a call is the
     one that received its output, which a sub-agent's or a grader's first call does not.

   Calls of different runs (a chat app's turns, one run each) are judged by their content alone.
2. **Content on both** -- a call whose content was not captured (``ctxviewer.content = "not
   captured"``, or no message with content) belongs to no thread; nor does a standalone tool span,
   nor a call that continues state the provider holds (``previous_response_id``, a provider-held
   conversation id; :mod:`ctxviewer.assess.checks.server_state`): such a request sends only what is
   new by design.
3. **The later input extends the earlier one** -- the earlier call's messages are matched, in
   order, against the later call's messages, and its reply among the rest; the later call carries
   the earlier call's last message or its reply (the recent end of the thread), every later
   message before the carried-over end is a matched one (or a new summary or memory item: nothing
   foreign comes first), and the conversation moved on: the later call sends something after the
   last match, or carries the reply, or the earlier call recorded no reply (a retry).

Messages are matched by their shape (:class:`MessageShape`: role, text with whitespace collapsed
and JSON canonical, tool calls as name and canonical arguments, in any order), never by id: OTel
message ids are indexes (``msg-{i}``) that shift when turns are dropped. The reply reappears in
the next request in the framework's own shape -- text and tool calls in one message, parts
reordered, a reasoning part added, the calls split over several messages or interleaved with their
results -- and is the same message in each (:func:`reply_shape`). No Qt here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from ctxviewer.assess.checks.server_state import is_tool_span, server_held_state
from ctxviewer.diff.identity import MESSAGE_KINDS, normalise_content
from ctxviewer.model.span_facts import agent_name
from ctxviewer.model.trace import ContextItem, Kind, RequestTrace, Status, ToolCall
from ctxviewer.util.memo import by_identity

PARENT_KEYS: tuple[str, ...] = ("otel.parent_span_id", "langfuse.parent_observation_id")
"""Attributes naming the parent span of a call, as the importers store them (rule 1 of the module
docstring): OTel / OpenInference parent span, Langfuse parent observation."""
INSPECT_SPAN = "inspect.span_id"
"""Attribute naming the Inspect span a model call ran in (rule 1 of the module docstring)."""
NOT_CAPTURED = "not captured"
"""``ctxviewer.content`` of a call whose message content was not captured (the importers' word)."""
_NEW_CONTEXT = (Kind.SUMMARY, Kind.MEMORY)
MEMO_TRACES = 80
"""Traces whose message shapes :func:`_shaped` remembers (by identity): more than the 64 earlier
calls :func:`ctxviewer.diff.conversation.thread_predecessor` tries for one call."""


@dataclass(frozen=True)
class MessageShape:
    """What makes two renderings of one chat message the same message (module docstring)."""

    role: str
    """Chat role (``""`` when not recorded)."""
    text: str
    """The text parts, JSON canonical (:func:`ctxviewer.diff.identity.normalise_content`) and
    whitespace runs collapsed to one space; ``""`` when the message has only tool calls."""
    calls: tuple[str, ...]
    """Its tool calls, each ``"name\\x00canonical arguments"``, sorted (parts in any order)."""


def _json_object(text: str) -> Any:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def _canonical(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        raw: str = value
        try:
            value = json.loads(raw)
        except ValueError:
            return raw.strip()
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _call_key(name: Any, arguments: Any) -> str:
    return f"{name or ''}\x00{_canonical(arguments)}"


def _part_call(obj: Any) -> str | None:
    """The call key of a rendered ``tool_call`` part (``{"type":"tool_call","name",...}``)."""
    if isinstance(obj, dict) and obj.get("type") == "tool_call" and obj.get("name"):
        return _call_key(obj.get("name"), obj.get("arguments"))
    return None


def _collapse(text: str) -> str:
    return " ".join(text.split())


def message_shape(item: ContextItem) -> MessageShape | None:
    """The :class:`MessageShape` of a message item, ``None`` when its content was not kept.

    The importers render a message's parts one per line, a tool call as the compact JSON
    ``{"type":"tool_call","id",...,"name",...,"arguments",...}``; those lines are its calls (their
    ids are not compared), the other lines its text."""
    if item.content is None:
        return None
    texts: list[str] = []
    calls: list[str] = []
    whole = _part_call(_json_object(item.content))
    if whole is not None:
        calls.append(whole)
    elif normalise_content(item.content) != item.content:  # one JSON value: compare it canonically
        texts.append(normalise_content(item.content) or "")
    else:
        for line in item.content.splitlines():
            call = _part_call(_json_object(line))
            if call is not None:
                calls.append(call)
            else:
                texts.append(line)
    return MessageShape(role=item.role or "", text=_collapse("\n".join(texts)), calls=tuple(sorted(calls)))


def _call_part(call: ToolCall) -> str:
    args: Any = call.arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    part = {"type": "tool_call", "id": call.id, "name": call.name, "arguments": args}
    return json.dumps({k: v for k, v in part.items() if v is not None}, ensure_ascii=False, separators=(",", ":"))


def _reply_item(prev: RequestTrace) -> ContextItem | None:
    """``prev``'s reply as an assistant history item (id ``"<trace id>#response"``): its text and
    its proposed tool calls, one part per line as the importers render a message; ``None`` when
    neither was recorded."""
    text = prev.response.text if prev.response is not None else None
    lines = ([text] if text else []) + [_call_part(c) for c in prev.tool_calls]
    if not lines:
        return None
    return ContextItem(kind=Kind.HISTORY, id=f"{prev.trace_id}#response", content="\n".join(lines), role="assistant")


def reply_shape(prev: RequestTrace) -> MessageShape | None:
    """The shape of ``prev``'s reply (response text and proposed tool calls), ``None`` when the
    trace recorded neither."""
    text = prev.response.text if prev.response is not None else None
    calls = tuple(sorted(_call_key(c.name, c.arguments) for c in prev.tool_calls))
    if not text and not calls:
        return None
    return MessageShape(role="assistant", text=_collapse(text or ""), calls=calls)


def _reply_carried(reply: MessageShape, shapes: Sequence[MessageShape | None], taken: set[int]) -> tuple[int, ...]:
    """The indexes of the messages (those not in ``taken``: already matched to the earlier call's
    input) that restate ``reply``, ``()`` when they do not restate all of it. Its text is carried
    by one assistant message holding that text (with other parts around it: tool calls, a
    reasoning part), each of its tool calls by a message holding that call, whatever its role and
    grouping: in one message with the text, parts reordered, split over several messages, or
    interleaved with their results (Koog)."""
    used: list[int] = []
    if reply.text:
        at = next((n for n, s in enumerate(shapes) if n not in taken and s is not None
                   and s.role == "assistant" and reply.text in s.text), None)
        if at is None:
            return ()
        used.append(at)
    pending = list(reply.calls)
    for n, s in enumerate(shapes):
        if not pending or s is None or n in taken:
            continue
        took = False
        for call in s.calls:
            if call in pending:
                pending.remove(call)
                took = True
        if took and n not in used:
            used.append(n)
    return () if pending else tuple(sorted(used))


def _messages(t: RequestTrace) -> list[ContextItem]:
    return [i for i in t.items if i.status is Status.RETAINED and i.kind in MESSAGE_KINDS]


@by_identity(size=MEMO_TRACES)
def _shaped(t: RequestTrace) -> tuple[tuple[ContextItem, ...], tuple[MessageShape | None, ...]]:
    """The sent messages of ``t`` (:func:`_messages`) and the :func:`message_shape` of each, in
    order: computed once per trace object while it is among the last :data:`MEMO_TRACES` (one
    call is aligned with each of its earlier calls in turn, and each of those with its own later
    calls: the import's derived-omissions refresh, the thread view)."""
    sent = tuple(_messages(t))
    return sent, tuple(message_shape(i) for i in sent)


def has_content(trace: RequestTrace) -> bool:
    """True when the call's message content was captured: not marked ``ctxviewer.content = "not
    captured"`` and at least one sent message (history, summary, memory, user) kept its text."""
    if trace.attributes.get("ctxviewer.content") == NOT_CAPTURED:
        return False
    return any(i.content is not None for i in _messages(trace))


def _run_of(trace: RequestTrace) -> str | None:
    """The run a call belongs to: its Langfuse / LangSmith trace, Inspect sample, or OTel trace id."""
    for key in ("langfuse.trace_id", "langsmith.trace_id"):
        value = trace.attributes.get(key)
        if value:
            return f"{key}:{value}"
    if trace.source_format == "inspect_ai" and "/" in trace.trace_id:
        return "inspect:" + trace.trace_id.rsplit("/", 1)[0]
    if trace.source_format in ("otel", "openinference") and ":" in trace.trace_id:
        return "otel:" + trace.trace_id.split(":", 1)[0]
    return None


def _thread_terms(prev: RequestTrace, cur: RequestTrace) -> bool | None:
    """Rules 1 and 2 of the module docstring: ``None`` when the two calls are of other threads
    whatever their content; else whether ``cur`` must carry ``prev``'s reply to continue it
    (different parent spans within one run)."""
    if not has_content(prev) or not has_content(cur) or is_tool_span(prev) or is_tool_span(cur):
        return None
    if server_held_state(cur) is not None:
        return None
    agent = agent_name(prev.attributes)
    if agent != agent_name(cur.attributes):
        return None
    if agent is not None:
        return False
    run = _run_of(prev)
    if run is None or run != _run_of(cur):
        return False
    if prev.attributes.get(INSPECT_SPAN) != cur.attributes.get(INSPECT_SPAN):
        return None
    return any(prev.attributes.get(k) != cur.attributes.get(k) for k in PARENT_KEYS)


@dataclass(frozen=True)
class Alignment:
    """How a later call carries an earlier call of its thread (:func:`align`)."""

    earlier: tuple[ContextItem, ...]
    """``prev``'s messages with content, then its reply item (last, when recorded)."""
    matched: frozenset[int]
    """Indexes into ``earlier`` found in the later call."""
    reply_at: int | None
    """Index of the reply in ``earlier``."""
    summaries: tuple[ContextItem, ...]
    """The later call's summary items that the earlier call did not have."""


def _align(prev: RequestTrace, cur: RequestTrace, carry_reply: bool = False) -> Alignment | None:
    """Rule 3 of the module docstring; ``None`` when ``cur``'s input does not extend ``prev``'s
    (or, with ``carry_reply``, does not carry ``prev``'s reply)."""
    sent, shapes = _shaped(prev)
    inputs = [i for i in sent if i.content is not None]
    later, shapes_c = _shaped(cur)
    if not inputs or not later:
        return None
    shapes_e = [s for i, s in zip(sent, shapes) if i.content is not None]
    matched_e: set[int] = set()
    matched_c: set[int] = set()
    last_e = last_c = -1
    for ci, shape in enumerate(shapes_c):  # the earlier input, in order
        if shape is None:
            continue
        hit = next((ei for ei in range(last_e + 1, len(inputs)) if shapes_e[ei] == shape), None)
        if hit is not None:
            matched_e.add(hit)
            matched_c.add(ci)
            last_e, last_c = hit, ci
    reply, reply_item = reply_shape(prev), _reply_item(prev)
    carried: tuple[int, ...] = ()
    if reply is not None:
        carried = _reply_carried(reply, shapes_c, matched_c)
    if not ((len(inputs) - 1) in matched_e or carried) or (carry_reply and not carried):
        return None
    boundary = carried[0] if carried else last_c
    for n in range(boundary):
        if n not in matched_c and shapes_c[n] is not None and later[n].kind not in _NEW_CONTEXT:
            return None  # a message the earlier call never had comes before the carried-over part
    end = max([last_c, *carried])
    sent_after = any(shapes_c[n] is not None for n in range(end + 1, len(later)))
    if not (sent_after or reply is None or carried):
        return None  # the same input sent again after a reply: a retry or a parallel call, not a next step
    earlier = list(inputs)
    reply_at = None
    if reply is not None and reply_item is not None:
        reply_at = len(earlier)
        earlier.append(reply_item)
        if carried:
            matched_e.add(reply_at)
    before = set(shapes_e)
    summaries = tuple(i for i, s in zip(later, shapes_c) if i.kind is Kind.SUMMARY and s not in before)
    return Alignment(tuple(earlier), frozenset(matched_e), reply_at, summaries)


def align(prev: RequestTrace, cur: RequestTrace) -> Alignment | None:
    """How ``cur`` carries ``prev`` when ``cur`` continues ``prev``'s thread (rules 1 to 3 of the
    module docstring), else ``None``."""
    terms = _thread_terms(prev, cur)
    return None if terms is None else _align(prev, cur, terms)


def continues(prev: RequestTrace, cur: RequestTrace) -> bool:
    """True when ``cur`` is the next call of ``prev``'s thread as far as the two calls show (rules 1
    to 3 of the module docstring; which earlier call that is needs the other calls:
    :func:`ctxviewer.diff.conversation.thread_predecessor`)."""
    return align(prev, cur) is not None
