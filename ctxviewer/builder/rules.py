"""Counting rules the builder serializes and counts a request with, each with a fast *tally*.

* :class:`ChatRule` -- the request is an OpenAI-shaped chat body (``messages``, ``tools``); it is
  counted by the endpoint's rule (:func:`ctxviewer.tokens.request_accounting.count_request`). Messages are
  framed by special tokens, so the count is per message plus per-request constants.
* :class:`TextRule` -- the request is one rendered prompt text (every item rendered by a template
  and concatenated) counted by one encode; items interact at their junctions, so its tally uses
  :class:`~.junctions.JunctionCounter`.

``rule.count(kept)`` is the textbook step (serialize, then count the whole request);
``rule.tally(cands)`` gives the same numbers incrementally: ``tally.total`` after any sequence of
``tally.remove(i)`` equals ``rule.count`` of the remaining candidates (property-tested). No Qt here.
"""

from __future__ import annotations

import json
import operator
from typing import Any, Callable, Protocol, Sequence

from ctxviewer.builder.candidates import Candidate
from ctxviewer.builder.junctions import CountedSegment, JunctionCounter, JunctionUnstable
from ctxviewer.model.trace import Kind
from ctxviewer.model.vocabulary import RESULT_ROLES
from ctxviewer.tokens.item_rule import TOOL_CALL_PREFIX, call_texts, content_tokens, function_of, tool_call_of
from ctxviewer.tokens.profiles import Resolution, resolve
from ctxviewer.tokens.request_accounting import Counter, count_request, count_tool


class Tally(Protocol):
    """Input tokens of the candidates still kept; ``remove`` drops one (by index)."""

    total: int

    def remove(self, index: int) -> None: ...


class CountingRule(Protocol):
    """How a request is serialized and counted (see the module docstring)."""

    encoding: str
    description: str

    def cost(self, cand: Candidate) -> int: ...
    def serialize(self, kept: Sequence[Candidate]) -> Any: ...
    def count(self, kept: Sequence[Candidate]) -> int: ...
    def tally(self, cands: Sequence[Candidate]) -> Tally: ...


def _may_define(cand: Candidate) -> bool:
    """A ``tool`` candidate that is not a result: it answers no call and is not sent under a
    result's role (:data:`~ctxviewer.model.vocabulary.RESULT_ROLES`)."""
    return cand.kind is Kind.TOOL and cand.tool_call_id is None and cand.role not in RESULT_ROLES


def tool_definition(cand: Candidate) -> dict[str, Any] | None:
    """The tool definition a ``tool`` candidate carries, as stored (OpenAI's ``{"type": "function",
    "function": {...}}``, a bare function, or Anthropic's ``input_schema`` form:
    :func:`ctxviewer.tokens.item_rule.function_of`), else ``None`` -- then it is a tool result
    (it answers a call, or is sent under a result's role ``tool`` / ``function``) or other tool
    text, sent as a message. Kept as stored, so the serialized body's tools count as the
    recording's items do."""
    if not _may_define(cand) or not cand.text.lstrip().startswith("{"):
        return None
    try:
        obj = json.loads(cand.text)
    except ValueError:
        return None
    return obj if function_of(obj) is not None else None


def _message(c: Candidate) -> dict[str, Any]:
    """The chat message of one candidate. Its stored tool-call lines (:mod:`ctxviewer.tokens.item_rule`)
    go back into ``tool_calls`` with their names and arguments, the other lines stay its content,
    so the body counts as :func:`~ctxviewer.tokens.item_rule.content_tokens` counts the text."""
    lines = c.text.split("\n") if TOOL_CALL_PREFIX in c.text else []
    calls = [call for call in map(tool_call_of, lines) if call is not None]
    text = "\n".join(line for line in lines if tool_call_of(line) is None) if calls else c.text
    msg: dict[str, Any] = {"role": c.chat_role, "content": text if text or not calls else None}
    ids = list(c.tool_call_ids) + [str(call.get("id") or "") for call in calls[len(c.tool_call_ids):]]
    if ids:
        named = [call_texts(call) for call in calls] + [("", "")] * (len(ids) - len(calls))
        msg["tool_calls"] = [{"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
                             for cid, (name, args) in zip(ids, named)]
    if c.tool_call_id is not None:
        msg["tool_call_id"] = c.tool_call_id
    return msg


class ChatRule:
    """Chat body counted by the endpoint profile's rule (cookbook framing and tool rule)."""

    def __init__(self, model: str | None, encoding: str | None = None) -> None:
        self.model = model
        self.resolution: Resolution = resolve(model, encoding)
        self.encoding = self.resolution.encoding
        p = self.resolution.profile
        self.description = (f"chat messages, {p.framing.tokens_per_message} tokens per message + role, "
                            f"{p.framing.reply_priming} reply priming, tool rule of profile {p.name}")
        self._counter = Counter(p, self.encoding)
        self._cache: dict[tuple[str, str, bool], tuple[int, int, bool]] = {}
        self._roles: dict[str, int] = {}
        self._by_id: dict[int, tuple[Candidate, tuple[int, int, bool]]] = {}
        self._starts: dict[tuple[int, ...], tuple[list[int], list[int], int, int]] = {}
        self._clears = 0

    def entry(self, cand: Candidate) -> tuple[int, int, bool]:
        """``(content tokens, framing tokens, is a tool definition)`` of one candidate, counted once
        per role and text (looked up by object identity first, so a re-trim hashes no texts).
        Framing is the per-message tokens plus the role, or a tool definition's overhead."""
        hit = self._by_id.get(id(cand))
        if hit is not None and hit[0] is cand:
            return hit[1]
        definition = _may_define(cand)
        key = (cand.chat_role, cand.text, definition)
        out = self._cache.get(key)
        if out is None:
            obj = tool_definition(cand) if definition else None
            fn = function_of(obj) if obj is not None else None
            if fn is not None:
                tc = count_tool(self._counter, *fn, json.dumps(obj, separators=(",", ":"), ensure_ascii=False))
                out = (tc.content, tc.overhead, True)
            else:
                role = self._roles.get(cand.chat_role)
                if role is None:
                    role = self._roles[cand.chat_role] = self._counter.text(cand.chat_role)
                out = (content_tokens(cand.text, self.encoding), self.resolution.profile.framing.tokens_per_message + role, False)
            self._cache[key] = out
        if len(self._by_id) > 500_000:
            self._by_id.clear()
            self._starts.clear()  # its keys are ids of candidates _by_id kept alive
            self._clears += 1
        self._by_id[id(cand)] = (cand, out)
        return out

    def start(self, cands: Sequence[Candidate]) -> tuple[list[int], list[int], int, int]:
        """Per candidate: tokens (content + framing) and 1 for a tool definition; their sums.
        Cached for the last few candidate lists (a re-trim of the same list starts from it)."""
        key = tuple(map(id, cands))
        hit = self._starts.get(key)
        if hit is not None:
            return hit
        clears = self._clears
        entries = list(map(self.entry, cands))
        costs = [content + framing for content, framing, _ in entries]
        is_tool = [int(tool) for _, _, tool in entries]
        out = (costs, is_tool, sum(costs), sum(is_tool))
        if clears == self._clears:  # every candidate in key is kept alive in _by_id: ids stay valid
            if len(self._starts) > 16:
                self._starts.clear()
            self._starts[key] = out
        return out

    def cost(self, cand: Candidate) -> int:
        """Content tokens of one candidate (a tool definition: its text lines)."""
        return self.entry(cand)[0]

    def serialize(self, kept: Sequence[Candidate]) -> dict[str, Any]:
        """The chat body: ``model``, ``messages`` in order, ``tools`` (the tool definitions)."""
        tools = [t for t in (tool_definition(c) for c in kept) if t is not None]
        body: dict[str, Any] = {"model": self.model,
                                "messages": [_message(c) for c in kept if tool_definition(c) is None]}
        if tools:
            body["tools"] = tools
        return body

    def count(self, kept: Sequence[Candidate]) -> int:
        """Input tokens of the serialized body by the endpoint's rule (the textbook step)."""
        return count_request(self.serialize(kept), self.model, self.encoding).total

    def tally(self, cands: Sequence[Candidate]) -> ChatTally:
        """Incremental count of ``cands``, all kept at first."""
        return ChatTally(self, cands)


class ChatTally:
    """Per-item costs summed; ``func_end`` while any tool definition is kept."""

    def __init__(self, rule: ChatRule, cands: Sequence[Candidate]) -> None:
        prof = rule.resolution.profile
        self.costs, self.is_tool, base, self.tools = rule.start(cands)
        self.func_end = prof.tools.func_end
        self.base = prof.framing.reply_priming + base
        self.total = self.base + (self.func_end if self.tools else 0)

    def remove(self, index: int) -> None:
        """Drop candidate ``index``."""
        self.base -= self.costs[index]
        self.tools -= self.is_tool[index]
        self.total = self.base + (self.func_end if self.tools else 0)


def default_template(c: Candidate) -> str:
    """``<kind id="...">`` block with the item's text (the default :class:`TextRule` rendering)."""
    return f'<{c.kind.value} id="{c.id}">\n{c.text}\n</{c.kind.value}>\n'


class TextRule:
    """One plain-text prompt: every kept item rendered by ``template``, concatenated, one encode."""

    def __init__(self, encoding: str, template: Callable[[Candidate], str] = default_template) -> None:
        self.encoding = encoding
        self.template = template
        self.description = f"rendered text, one {encoding} encode of the concatenated items"
        self.junctions = JunctionCounter(encoding)
        self._by_id: dict[int, tuple[Candidate, CountedSegment]] = {}
        self._starts: dict[tuple[int, ...], tuple[int, dict[int, int], bool]] = {}
        self._last_segs: tuple[tuple[Candidate, ...], list[CountedSegment]] | None = None
        """The last tally's candidates (kept alive, compared by identity) and their segments."""

    def segment(self, cand: Candidate) -> CountedSegment:
        """The cached segment of ``cand`` (looked up by object identity first, then by text)."""
        hit = self._by_id.get(id(cand))
        if hit is not None and hit[0] is cand:
            return hit[1]
        if len(self._by_id) > 500_000:
            self._by_id.clear()
        seg = self.junctions.segment(self.template(cand))
        self._by_id[id(cand)] = (cand, seg)
        return seg

    def cost(self, cand: Candidate) -> int:
        """Tokens of the item's rendered segment alone."""
        return self.segment(cand).tokens

    def serialize(self, kept: Sequence[Candidate]) -> str:
        """The prompt text."""
        return "".join(self.template(c) for c in kept)

    def count(self, kept: Sequence[Candidate]) -> int:
        """Tokens of the whole prompt, encoded from scratch (the textbook step)."""
        return len(self.junctions.enc.encode_ordinary(self.serialize(kept)))

    def tally(self, cands: Sequence[Candidate]) -> TextTally:
        """Incremental exact count of ``cands`` (all kept at first)."""
        return TextTally(self, cands)


class TextTally:
    """Bodies of long segments plus windows between them, updated per removal (see junctions)."""

    def __init__(self, rule: TextRule, cands: Sequence[Candidate]) -> None:
        self.jc = rule.junctions
        last = rule._last_segs
        if last is not None and len(last[0]) == len(cands) and all(map(operator.is_, last[0], cands)):
            self.segs = last[1]  # the same (frozen) candidates as the last tally: read only below
        else:
            seg = rule.segment
            self.segs = [seg(c) for c in cands]
            rule._last_segs = (tuple(cands), self.segs)
        n = len(cands)
        self.prev = list(range(-1, n - 1))
        self.next = list(range(1, n + 1))
        self.head, self.n = 0, n
        key = tuple(map(id, self.segs))
        start = rule._starts.get(key)
        if start is None:
            start = self._start()
            if len(rule._starts) > 16:
                rule._starts.clear()
            rule._starts[key] = start
        self.total, win, self.fallback = start
        self.win: dict[int, int] = dict(win)  # left long index (-1 = start) -> window tokens

    def _start(self) -> tuple[int, dict[int, int], bool]:
        win: dict[int, int] = {}
        try:
            total, left, shorts = 0, -1, list[int]()
            for i, seg in enumerate(self.segs):
                if seg.long:
                    win[left] = self._window(left, shorts, i)
                    total += seg.body + win[left]
                    left, shorts = i, []
                else:
                    shorts.append(i)
            win[left] = self._window(left, shorts, self.n)
            return total + win[left], win, False
        except JunctionUnstable:
            self.fallback = True
            return self._full(), {}, True

    def _window(self, left: int, shorts: list[int], right: int) -> int:
        return self.jc.window(self.segs[left] if left >= 0 else None, [self.segs[s] for s in shorts],
                              self.segs[right] if right < self.n else None)

    def _kept(self) -> list[int]:
        out, i = [], self.head
        while i < self.n:
            out.append(i)
            i = self.next[i]
        return out

    def _full(self) -> int:
        self.jc.full_encodes += 1
        return len(self.jc.enc.encode_ordinary("".join(self.segs[i].text for i in self._kept())))

    def _to_fallback(self) -> None:
        self.fallback = True
        self.total = self._full()

    def remove(self, index: int) -> None:
        """Drop candidate ``index`` and update the total exactly."""
        p, q = self.prev[index], self.next[index]
        if p >= 0:
            self.next[p] = q
        else:
            self.head = q
        if q < self.n:
            self.prev[q] = p
        if self.fallback:
            self._to_fallback()
            return
        segs, n = self.segs, self.n
        seg = segs[index]
        if seg.long and (p < 0 or segs[p].long) and (q >= n or segs[q].long):
            # Common case: long segments on both sides; one cached window replaces two.
            lseg = segs[p] if p >= 0 else None
            rseg = segs[q] if q < n else None
            after = self.jc.pairs.get(id(lseg))
            w = after.get(id(rseg)) if after is not None else None
            if w is None:
                try:
                    w = self.jc.window(lseg, (), rseg)
                except JunctionUnstable:
                    self._to_fallback()
                    return
            self.total += w - seg.body - self.win.pop(index) - self.win[p]
            self.win[p] = w
            return
        left = p
        while left >= 0 and not self.segs[left].long:
            left = self.prev[left]
        right = q
        while right < self.n and not self.segs[right].long:
            right = self.next[right]
        try:
            if self.segs[index].long:
                self.total -= self.segs[index].body + self.win.pop(index)
            self.total -= self.win[left]
            self.win[left] = self._window(left, self._shorts_between(left, right), right)
            self.total += self.win[left]
        except JunctionUnstable:
            self._to_fallback()

    def _shorts_between(self, left: int, right: int) -> list[int]:
        out, i = [], (self.next[left] if left >= 0 else self.head)
        while i < right:
            out.append(i)
            i = self.next[i]
        return out
