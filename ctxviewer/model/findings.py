"""Findings: what a check concludes about one request trace (the seam every diagnosis fills).

A :class:`Finding` is one conclusion: a rule id, a :class:`Severity`, a message in words, the
:class:`Evidence` it used (item ids, 1-based positions, fields, character spans), and, where one
applies, the Table 3.1 row with its first evidence to inspect and its typical repair. The eq. 3.1
check, the Table 3.1 checks, the tool-call checks and the injection scanner all report findings;
the per-trace assessment (:mod:`ctxviewer.assess.assessment`) sorts them and derives the trace's
:class:`State` from the worst one.

Invariants:

* Findings are immutable and hashable; evidence spans are ``[start, end)`` in code points of the
  item's stored content (never UTF-16 units; the GUI converts in one helper).
* Severity is ordered: ``info < warning < failure < critical``. The state of a trace is ``ok``
  with no finding above ``info``, ``warning`` with a worst finding of ``warning``, else ``failure``.

No Qt here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    """How bad a finding is, in increasing order (compare with :attr:`rank`)."""

    INFO = "info"
    """Worth knowing; never changes the headline (e.g. "omissions not recorded by this format")."""
    WARNING = "warning"
    """Suspect: look before trusting the answer (e.g. slack below the declared safety margin)."""
    FAILURE = "failure"
    """The trace shows a failure (e.g. over capacity, required policy unavailable: Table 3.1 row 1)."""
    CRITICAL = "critical"
    """A failure with consequences (e.g. a tool call permitted although a check failed)."""

    @property
    def rank(self) -> int:
        """0 for ``info`` ... 3 for ``critical``."""
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.FAILURE: 2, Severity.CRITICAL: 3}


class State(str, enum.Enum):
    """The headline state of a trace: the worst finding, in three words."""

    OK = "ok"
    WARNING = "warning"
    FAILURE = "failure"

    @classmethod
    def of(cls, worst: Severity | None) -> State:
        """``ok`` for no finding or ``info``; ``warning``; ``failure`` for ``failure`` and ``critical``."""
        if worst is None or worst is Severity.INFO:
            return cls.OK
        return cls.WARNING if worst is Severity.WARNING else cls.FAILURE


@dataclass(frozen=True)
class TextSpan:
    """A character span in one item's content: ``content[start:end]`` (code points, end exclusive)."""

    item_id: str
    """The item whose stored content the span indexes."""
    start: int
    """First code point of the span (0-based)."""
    end: int
    """One past the last code point."""


@dataclass(frozen=True)
class Evidence:
    """What a finding rests on. Every part may be empty."""

    item_ids: tuple[str, ...] = ()
    """Items involved, in request order (e.g. the omitted turn holding an approval)."""
    positions: tuple[int, ...] = ()
    """1-based positions in the request of the retained items involved."""
    fields: tuple[str, ...] = ()
    """Trace fields involved, as dotted paths (``"policy.available"``, ``"usage.input_tokens"``,
    ``"tool_calls[0].checks[1]"``)."""
    spans: tuple[TextSpan, ...] = ()
    """Character spans in item content (e.g. the injected instruction)."""
    tool_call_ids: tuple[str, ...] = ()
    """Proposed tool calls involved, by ``ToolCall.id`` or, when it has none, ``"#N"`` (0-based index)."""


@dataclass(frozen=True)
class Finding:
    """One conclusion of a check about a trace."""

    rule: str
    """Stable rule id, e.g. ``"policy.unavailable"``, ``"budget.over_capacity"``, ``"injection.override"``."""
    severity: Severity
    """How bad it is."""
    message: str
    """One sentence in words, naming the numbers (tokens) and items involved."""
    evidence: Evidence = field(default_factory=Evidence)
    """What the finding rests on."""
    table_row: int | None = None
    """The Table 3.1 row (1-based) this finding is an instance of; ``None`` if none applies."""
    first_evidence: str | None = None
    """What to inspect first, as Table 3.1 words it for that row."""
    repair: str | None = None
    """The typical repair, as Table 3.1 words it for that row."""


def worst(findings: tuple[Finding, ...] | list[Finding]) -> Severity | None:
    """The highest severity among ``findings``; ``None`` when there are none."""
    return max((f.severity for f in findings), key=lambda s: s.rank, default=None)


def sort_findings(findings: list[Finding] | tuple[Finding, ...]) -> tuple[Finding, ...]:
    """``findings`` worst first; ties keep their order (stable)."""
    return tuple(sorted(findings, key=lambda f: -f.severity.rank))
