"""The words a request trace's fields take: the enumerations of :mod:`ctxviewer.model.trace` --
an item's :class:`Kind`, :class:`Trust` and :class:`Status`, a budget :class:`Category` of eq. 3.1,
the endpoint's :class:`LimitMode`, the application's :class:`ToolVerdict` on a tool call, and
where a token count came from (:class:`TokenSource`). Each is a ``str`` enum: its value is the word
the native format stores (``docs/native-format.md``). No Qt here: part of the core.
"""

from __future__ import annotations

import enum


class Kind(str, enum.Enum):
    """Kind of a context item (chapter 3.2, Figure 3.2).

    ``policy`` and ``user`` are required inputs; the other kinds are optional and may be trimmed.
    """

    POLICY = "policy"
    USER = "user"
    HISTORY = "history"
    SUMMARY = "summary"
    MEMORY = "memory"
    EVIDENCE = "evidence"
    TOOL = "tool"

    @property
    def required(self) -> bool:
        """True for the kinds the builder may never trim (policy and the current user request)."""
        return self in (Kind.POLICY, Kind.USER)


RESULT_ROLES = frozenset({"tool", "function"})
"""Chat roles of a tool's *result* sent back to the model (OpenAI ``tool`` and legacy ``function``):
an item of kind ``tool`` under one of them is a result, not a tool definition."""

TOOL_RESULT_LABEL = "history (tool result)"
"""How a history item holding a tool's result is labelled (:func:`is_tool_result`), so a reader is
not misled into taking it for a conversation turn: it is untrusted data a tool returned (chapter
3.5 names "tool result" as data; 3.2 lists "history, documents, tool results" apart). eq. 3.1 still
counts it in B_hist (:func:`ctxviewer.assess.budget.category_of`), which the label says."""


def is_tool_result(kind: Kind, role: str | None) -> bool:
    """True for a history item holding a tool's result: kind ``history`` sent under a result's
    role (:data:`RESULT_ROLES`: OpenAI ``tool`` / legacy ``function``, OTel GenAI ``tool``
    messages), labelled :data:`TOOL_RESULT_LABEL`."""
    return role in RESULT_ROLES and kind is Kind.HISTORY


class Trust(str, enum.Enum):
    """Whether an item is trusted application policy or untrusted data (chapter 3.5)."""

    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"


class Status(str, enum.Enum):
    """Whether an item was sent (``retained``) or trimmed / filtered out (``omitted``)."""

    RETAINED = "retained"
    OMITTED = "omitted"


class Category(str, enum.Enum):
    """A token-budget category of eq. 3.1: B_sys + B_hist + B_evidence + B_tools + B_user + B_out <= C.

    ``memory`` is its own category only when the trace declares a budget for it; otherwise memory
    items count inside ``hist`` (see :func:`ctxviewer.assess.budget.category_of`).
    """

    SYS = "sys"
    HIST = "hist"
    MEMORY = "memory"
    EVIDENCE = "evidence"
    TOOLS = "tools"
    USER = "user"
    OUT = "out"


class LimitMode(str, enum.Enum):
    """How the endpoint limits tokens (chapter 3.1).

    ``shared``: one context window C holds the input and the generated output (eq. 3.1 as written).
    ``separate``: the endpoint has an input limit and an output limit; both checks are needed.
    """

    SHARED = "shared"
    SEPARATE = "separate"


class ToolVerdict(str, enum.Enum):
    """The application's decision on a proposed tool call (chapter 3.5, Figure 3.3).

    Not to be confused with a trace's verdict (the eq. 3.1 / assessment headline) or a reviewer's
    :class:`~ctxviewer.review.ReviewVerdict` on a finding. Stored as ``verdict`` in native lines.
    """

    PERMITTED = "permitted"
    BLOCKED = "blocked"
    NEEDS_APPROVAL = "needs_approval"


class TokenSource(str, enum.Enum):
    """Where a token count came from (its provenance)."""

    RECORDED = "recorded"
    """Recorded by the application that wrote the trace (e.g. the native format's ``tokens``)."""
    REPORTED = "reported"
    """Reported by the provider (OTel ``gen_ai.usage.*``, a response's ``usage`` object)."""
    COUNTED = "counted"
    """Counted by ctxviewer at import with the model's own tiktoken encoding."""
    ESTIMATED = "estimated"
    """Counted by ctxviewer at import with the nearest tiktoken encoding available offline, which is
    not the model's own tokenizer (Claude, Gemini, an unknown model): an approximation."""
