"""What the builder trims: candidate items, the removal units, and the errors it raises.

A :class:`Candidate` is one input of a request (chapter 3.3 ``ContextItem``): its kind, id, text,
priority (higher = more important to retain) and, for conversation turns, the chat role and the
tool-call links that tie an assistant tool call to its results. Policy and the current user request
are required (``Kind.required``); ``pinned`` makes any other item required too.

Removal *units*: an assistant message that made tool calls and the tool results answering them
are one unit, kept or dropped together (never an orphan tool result). A unit's priority is its
highest member's; ties go to the unit that comes first in candidate order (the chapter's
``min(range(len(kept)), key=priority)`` picks the first lowest item too). No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxviewer.assess.budget import CATEGORY_ORDER
from ctxviewer.model.trace import Category, Kind

_KIND_CATEGORY = {
    Kind.POLICY: Category.SYS, Kind.USER: Category.USER, Kind.HISTORY: Category.HIST,
    Kind.SUMMARY: Category.HIST, Kind.MEMORY: Category.MEMORY, Kind.EVIDENCE: Category.EVIDENCE,
    Kind.TOOL: Category.TOOLS,
}


class BuildError(ValueError):
    """The request cannot be built; nothing was sent and nothing was written."""


class RequiredOverBudgetError(BuildError):
    """The required items alone exceed the input budget (chapter 3.3: fail without calling the model)."""

    def __init__(self, required_tokens: int, max_input_tokens: int) -> None:
        self.required_tokens = required_tokens
        self.max_input_tokens = max_input_tokens
        self.overrun = required_tokens - max_input_tokens
        super().__init__(
            f"required items (policy, user request, pinned) need {required_tokens:,} input tokens but the "
            f"input budget is {max_input_tokens:,}: over by {self.overrun:,} tokens; nothing was sent"
        )


@dataclass(frozen=True)
class Candidate:
    """One candidate input. ``priority``: higher is more important to retain (chapter 3.3)."""

    kind: Kind
    id: str
    text: str
    priority: float = 0.0
    role: str | None = None
    """Chat role to send it under; default by kind (policy -> system, tool results -> tool, ...)."""
    pinned: bool = False
    """Never trimmed (required), like policy and the user request."""
    tool_call_ids: tuple[str, ...] = ()
    """For an assistant message: the ids of the tool calls it made."""
    tool_call_id: str | None = None
    """For a tool result: the id of the call it answers."""
    category: Category | None = None
    """eq. 3.1 category; default by kind (memory counts as its own category)."""
    is_required: bool = field(init=False, repr=False, compare=False)
    """Same as :attr:`required`, computed once (the re-trim loop reads it per item)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_required", self.pinned or self.kind.required)

    @property
    def required(self) -> bool:
        """True when the builder may never remove it (policy, user request, pinned)."""
        return self.is_required

    @property
    def cat(self) -> Category:
        """The eq. 3.1 category this item's tokens count in."""
        return self.category or _KIND_CATEGORY[self.kind]

    @property
    def chat_role(self) -> str:
        """The role it is sent under."""
        if self.role:
            return self.role
        return {Kind.POLICY: "system", Kind.USER: "user", Kind.TOOL: "tool"}.get(self.kind, "user")


@dataclass(frozen=True)
class Unit:
    """Candidates removed together (indices into the candidate list, in order)."""

    members: tuple[int, ...]
    priority: float
    required: bool

    @property
    def key(self) -> tuple[float, int]:
        """Removal order: lowest priority first, then earliest in candidate order."""
        return (self.priority, self.members[0])


_REQUIRED_KINDS = frozenset(k for k in Kind if k.required)


def units(cands: list[Candidate]) -> list[Unit]:
    """The removal units of ``cands`` (see the module docstring), in candidate order."""
    if not any(c.tool_call_id is not None for c in cands):  # no tool results: one unit per item
        return [Unit((k,), c.priority, c.pinned or c.kind in _REQUIRED_KINDS) for k, c in enumerate(cands)]
    parent = list(range(len(cands)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    caller = {cid: k for k, c in enumerate(cands) for cid in c.tool_call_ids}
    for k, c in enumerate(cands):
        if c.tool_call_id is not None and c.tool_call_id in caller:
            a, b = find(k), find(caller[c.tool_call_id])
            parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for k in range(len(cands)):
        groups.setdefault(find(k), []).append(k)
    out = []
    for members in groups.values():
        out.append(Unit(tuple(members), max(cands[m].priority for m in members),
                        any(cands[m].required for m in members)))
    return sorted(out, key=lambda u: u.members[0])


def removal_order(cands: list[Candidate]) -> list[tuple[float, int, tuple[int, ...]]]:
    """Optional units as ``(priority, first index, members)``, in removal order (lowest priority
    first, then earliest). Tuples, not :class:`Unit`, so a 5,000-item re-trim stays fast."""
    order: list[tuple[float, int, tuple[int, ...]]]
    if not any(c.tool_call_id is not None for c in cands):
        order = [(c.priority, k, (k,)) for k, c in enumerate(cands) if not c.is_required]
    else:
        order = [(u.priority, u.members[0], u.members) for u in units(cands) if not u.required]
    order.sort()
    return order


CAP_ORDER: tuple[Category, ...] = CATEGORY_ORDER
"""Per-category caps are applied in eq. 3.1 order, before the global limit."""
