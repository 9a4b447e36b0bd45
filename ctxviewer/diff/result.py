"""The request-level parts of a diff: frozen records the GUI, the CLI and the tests all read.

:class:`TraceDiff` (built by :func:`ctxviewer.diff.diff_traces`) holds the aligned items
(:class:`~ctxviewer.diff.items.ItemDiff`) and the request-level changes: first point of divergence,
policy, endpoint / reserve fields, token accounting, per-category tokens and the eq. 3.1 verdict
before and after, evidence order (with the document the answer needed), response, tool calls and
the findings each assessment gave (fixed / new). Tokens throughout; ``None`` = not
recorded. No Qt here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ctxviewer.diff.arguments import ArgumentChange, argument_changes
from ctxviewer.diff.items import Change, ItemDiff
from ctxviewer.model.trace import Category
from ctxviewer.util.visible import one_line

DIVERGENCE_CHARS = 40
"""Code points of each side's content :meth:`Divergence.words` shows (then ``…``)."""


@dataclass(frozen=True)
class FieldChange:
    """One scalar field that differs: ``name`` (e.g. ``"endpoint.capacity"``), value in A and in B."""

    name: str
    a: Any
    b: Any


@dataclass(frozen=True)
class Divergence:
    """The first position (1-based, among the items sent) where what the model received differs."""

    position: int
    id_a: str | None
    """Id of the item A sent there; ``None`` when A sent fewer items."""
    id_b: str | None
    """Id of the item B sent there; ``None`` when B sent fewer items."""
    text_a: str | None = None
    """The start of that item's content in A (at most :data:`DIVERGENCE_CHARS` code points, on one line)."""
    text_b: str | None = None
    """The start of that item's content in B."""

    def words(self) -> str:
        """``position 19: KB-1002 → PARTS-NB-RIDGEBACK2``: the position and each side's item id
        (``nothing`` where a side sent fewer items). When both sides' ids are the same, the start of
        each one's content follows it (``position 2: msg-0 "I want to fly to Rome…" → msg-0 "May 10
        to 17."``): ids are often positional (``msg-0`` of an OTel call is its first message,
        whichever it is), so one id may name two different messages."""
        same = self.id_a == self.id_b

        def side(item_id: str | None, text: str | None) -> str:
            if item_id is None:
                return "nothing"
            return f"{one_line(item_id)} \"{text}\"" if same and text else one_line(item_id)

        return f"position {self.position}: {side(self.id_a, self.text_a)} → {side(self.id_b, self.text_b)}"


@dataclass(frozen=True)
class PolicyDiff:
    """The versioned system policy of both requests (chapter 3.3)."""

    id_a: str | None
    version_a: str | None
    available_a: bool | None
    id_b: str | None
    version_b: str | None
    available_b: bool | None
    text_a: str | None = None
    text_b: str | None = None
    """The policy text each request sent (its policy items' content, joined by a blank line);
    ``None`` when it sent none or did not keep the content."""

    @property
    def changed(self) -> bool:
        """True when id, version or availability differ."""
        return (self.id_a, self.version_a, self.available_a) != (self.id_b, self.version_b, self.available_b)

    @property
    def text_changed(self) -> bool:
        """True when both requests kept a policy text and the texts differ (a new prompt version
        shows as a word diff of the two texts, not as one item removed and another added)."""
        return self.text_a is not None and self.text_b is not None and self.text_a != self.text_b


@dataclass(frozen=True)
class CategoryDelta:
    """One eq. 3.1 category in A and B: retained tokens used and declared budget B_x."""

    category: Category
    used_a: int | None
    used_b: int | None
    declared_a: int | None
    declared_b: int | None
    omitted_a: int | None
    omitted_b: int | None

    @property
    def delta(self) -> int | None:
        """``used_b - used_a`` in tokens; ``None`` when either is unknown."""
        if self.used_a is None or self.used_b is None:
            return None
        return self.used_b - self.used_a


@dataclass(frozen=True)
class EvidencePlace:
    """Where one evidence document sat in each request (1-based request position; ``None`` when
    absent or omitted) and its rank among the evidence sent (1 = first evidence document)."""

    id: str
    position_a: int | None
    position_b: int | None
    rank_a: int | None
    rank_b: int | None
    needed_a: bool = False
    needed_b: bool = False
    """The document the answer needed (user-marked, else best matching the question:
    :mod:`ctxviewer.assess.evidence_positions`, Table 3.1 row 3) in A / in B."""
    band_a: str | None = None
    band_b: str | None = None
    """Lost-in-the-middle band (``edge`` / ``shoulder`` / ``middle``) among the evidence sent by
    A / B (:func:`ctxviewer.assess.evidence_positions.band`); ``None`` when not sent."""

    @property
    def needed(self) -> bool:
        """True when either side names this document as the one the answer needed."""
        return self.needed_a or self.needed_b


@dataclass(frozen=True)
class FindingChange:
    """One finding rule (:class:`ctxviewer.model.findings.Finding` ``rule``) in the assessments of A and
    B: how many findings it gave, the worst severity and the first message on each side (``None``
    / 0 when the rule found nothing there)."""

    rule: str
    table_row: int | None
    """The Table 3.1 row of the rule, where one applies."""
    count_a: int
    count_b: int
    severity_a: str | None
    severity_b: str | None
    message_a: str | None
    message_b: str | None

    @property
    def status(self) -> str:
        """``"fixed"`` (only in A), ``"new"`` (only in B), ``"changed"`` (count, severity or
        message differ) or ``"unchanged"``."""
        if not self.count_b:
            return "fixed"
        if not self.count_a:
            return "new"
        if (self.count_a, self.severity_a, self.message_a) != (self.count_b, self.severity_b, self.message_b):
            return "changed"
        return "unchanged"


@dataclass(frozen=True)
class CheckDiff:
    """One application check on a tool call, before and after (``None`` = not run / absent)."""

    check: str
    passed_a: bool | None
    passed_b: bool | None


@dataclass(frozen=True)
class ToolCallDiff:
    """A proposed tool call in A and/or B (paired by name, in order), with its verdicts and checks."""

    name: str
    arguments_a: str | None
    arguments_b: str | None
    verdict_a: str | None
    verdict_b: str | None
    in_a: bool
    in_b: bool
    checks: tuple[CheckDiff, ...]

    @property
    def argument_changes(self) -> tuple[ArgumentChange, ...]:
        """The arguments that differ, per key (:func:`ctxviewer.diff.arguments.argument_changes`)."""
        return argument_changes(self.arguments_a, self.arguments_b)

    @property
    def changed(self) -> bool:
        """True when the call appears on one side only, or its arguments, verdict or checks differ."""
        return (not (self.in_a and self.in_b) or self.arguments_a != self.arguments_b
                or self.verdict_a != self.verdict_b or any(c.passed_a != c.passed_b for c in self.checks))


@dataclass(frozen=True)
class TraceDiff:
    """Everything that differs between request A and request B. Build with
    :func:`ctxviewer.diff.diff_traces`."""

    trace_a: str
    trace_b: str
    items: tuple[ItemDiff, ...]
    """Aligned rows (see :func:`ctxviewer.diff.items.diff_items`)."""
    first_divergence: Divergence | None
    """``None`` when both requests sent the same content in the same order."""
    policy: PolicyDiff
    fields: tuple[FieldChange, ...]
    """Endpoint, model, capacity, limits, reserved output, safety margin, encoding that differ."""
    accounting: tuple[FieldChange, ...]
    """Token counts of the request as a whole that differ (application input count, provider-
    reported usage)."""
    allocations: tuple[CategoryDelta, ...]
    """Per-category tokens, eq. 3.1 order."""
    verdict_a: str
    verdict_b: str
    """The assessment's verdict in words (:attr:`ctxviewer.assess.assessment.Assessment.verdict`)."""
    fits_a: bool | None
    fits_b: bool | None
    """Whether eq. 3.1 holds in A / B (``None``: cannot be decided)."""
    state_a: str
    state_b: str
    """The assessment state (``ok`` / ``warning`` / ``failure``) of A / B."""
    evidence: tuple[EvidencePlace, ...]
    """Evidence documents in B's order, then those only in A."""
    response_a: str | None
    response_b: str | None
    finish_reason_a: str | None
    finish_reason_b: str | None
    tool_calls: tuple[ToolCallDiff, ...]
    findings: tuple[FindingChange, ...] = ()
    """Every finding rule of either assessment, in the order of A's findings (worst first) then
    B's new ones: what the replay fixed, what it broke."""
    needed_source_a: str | None = None
    needed_source_b: str | None = None
    """How the needed document was chosen in A / B: ``"marked"`` (by the user), ``"best match"``
    (with the question) or ``None`` (no evidence, or nothing matched)."""

    @property
    def needed(self) -> tuple[EvidencePlace, ...]:
        """The evidence documents the answer needed (in A or B), in :attr:`evidence` order."""
        return tuple(e for e in self.evidence if e.needed)

    @property
    def evidence_sent_a(self) -> int:
        """How many evidence documents A sent."""
        return sum(1 for e in self.evidence if e.rank_a is not None)

    @property
    def evidence_sent_b(self) -> int:
        """How many evidence documents B sent."""
        return sum(1 for e in self.evidence if e.rank_b is not None)

    def count(self, change: Change) -> int:
        """Number of rows whose primary change is ``change``."""
        return sum(1 for d in self.items if d.change is change)

    @property
    def counts(self) -> dict[Change, int]:
        """Rows per primary change, only the changes that occur."""
        return dict(Counter(d.change for d in self.items))

    @property
    def changed_items(self) -> tuple[ItemDiff, ...]:
        """The rows that are not unchanged, in row order."""
        return tuple(d for d in self.items if d.is_change)

    @property
    def content_identical(self) -> bool:
        """True when the model received the same content in the same order (no divergence)."""
        return self.first_divergence is None

    @property
    def accounting_only(self) -> bool:
        """True when the content sent is identical and only token counts differ."""
        only = {Change.UNCHANGED, Change.RETOKENIZED}
        return (self.content_identical and all(set(d.changes) <= only for d in self.items)
                and bool(self.accounting or any(Change.RETOKENIZED in d.changes for d in self.items)))

    @property
    def response_changed(self) -> bool:
        """True when the response text or finish reason differ."""
        return (self.response_a, self.finish_reason_a) != (self.response_b, self.finish_reason_b)

    @property
    def no_change(self) -> bool:
        """True when nothing the diff compares differs."""
        return (not self.changed_items and not self.policy.changed and not self.fields
                and not self.accounting and not self.response_changed
                and not any(t.changed for t in self.tool_calls) and self.verdict_a == self.verdict_b
                and self.state_a == self.state_b
                and all(f.status == "unchanged" for f in self.findings))
