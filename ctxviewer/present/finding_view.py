"""What the findings and tool-calls panels say: symbols, colours, groups and row texts (no Qt).

Every surface shows a severity as a colour, a symbol and a word together, so colour is never the
only cue: :data:`SEVERITY_SYMBOL`, :data:`SEVERITY_COLOR`; the headline state likewise
(:func:`state_headline`). :func:`groups` orders findings like an expert-info list: by severity,
worst first, with counts; within a group the instances of the Table 3.1 row the user marked as
observed come first. :func:`where` says in words what a finding points at.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.assess.marks import lead_with
from ctxviewer.model.findings import Finding, Severity, State
from ctxviewer.util.visible import one_line

SEVERITY_SYMBOL = {Severity.CRITICAL: "\u203c", Severity.FAILURE: "\u2716", Severity.WARNING: "\u26a0", Severity.INFO: "\u2139"}
"""‼ critical, ✖ failure, ⚠ warning, ℹ info."""
SEVERITY_COLOR = {Severity.CRITICAL: "#7f1d1d", Severity.FAILURE: "#b91c1c", Severity.WARNING: "#92400e", Severity.INFO: "#1e40af"}
"""Text colours (hex), readable on white."""
STATE_SYMBOL = {State.OK: "\u2714", State.WARNING: "\u26a0", State.FAILURE: "\u2716"}
"""✔ ok, ⚠ warning, ✖ failure."""
CHECK_SYMBOL = {True: "\u2714", False: "\u2716", None: "?"}
"""A tool-call check: ✔ passed, ✖ failed, ? not decided / not recorded."""


def state_headline(state: State) -> str:
    """``"✖ FAILURE"``, ``"⚠ WARNING"``, ``"✔ OK"``: symbol and word of the headline state."""
    return f"{STATE_SYMBOL[state]} {state.value.upper()}"


@dataclass(frozen=True)
class FindingGroup:
    """The findings of one severity."""

    severity: Severity
    """Their severity."""
    findings: tuple[Finding, ...]
    """In order (the observed row's first)."""

    @property
    def title(self) -> str:
        """``"‼ critical (1)"``."""
        return f"{SEVERITY_SYMBOL[self.severity]} {self.severity.value} ({len(self.findings)})"


def groups(findings: tuple[Finding, ...] | list[Finding], observed_row: int | None = None) -> tuple[FindingGroup, ...]:
    """Non-empty severity groups, worst first (:class:`FindingGroup`)."""
    ordered = lead_with(findings, observed_row)
    out = []
    for sev in sorted(Severity, key=lambda s: -s.rank):
        mine = tuple(f for f in ordered if f.severity is sev)
        if mine:
            out.append(FindingGroup(sev, mine))
    return tuple(out)


def where(f: Finding) -> str:
    """What the finding points at, in words: items (with request positions), spans, tool calls,
    fields; ``""`` when it has no evidence. Ids are trace text: invisible characters are shown as
    markers (:func:`ctxviewer.util.visible.one_line`: ``ev-⟨ZWSP⟩x``), as in every table cell."""
    ev = f.evidence
    parts = []
    if ev.item_ids:
        parts.append(", ".join(ev.item_ids))
    if ev.positions:
        parts.append("position " + ", ".join(str(p) for p in ev.positions))
    if ev.spans:
        parts.append(f"{len(ev.spans)} span(s)")
    if ev.tool_call_ids:
        parts.append("call " + ", ".join(ev.tool_call_ids))
    if ev.fields and not ev.item_ids:
        parts.append(", ".join(ev.fields))
    return one_line("; ".join(parts))


def row_label(f: Finding) -> str:
    """``"row 2"`` (of Table 3.1) or ``""``."""
    return f"row {f.table_row}" if f.table_row else ""


def summary(findings: tuple[Finding, ...] | list[Finding]) -> str:
    """``"‼ 1  ✖ 2  ⚠ 3"``: counts per severity present, worst first; ``"no findings"`` when empty."""
    gs = groups(findings)
    return "  ".join(f"{SEVERITY_SYMBOL[g.severity]} {len(g.findings)}" for g in gs) or "no findings"
