"""Words for a :class:`~ctxviewer.diff.result.TraceDiff`: the JSON object of ``ctxviewer diff
--json``, the readable summary, and the one-line description of each row the GUI shows.

Every surface says the same thing because every surface calls these functions. No Qt here.
"""

from __future__ import annotations

from typing import Any

from ctxviewer.assess.budget import CATEGORY_LABELS
from ctxviewer.diff.arguments import change_json, change_line
from ctxviewer.diff.items import Change, ItemDiff
from ctxviewer.diff.result import EvidencePlace, TraceDiff
from ctxviewer.diff.words import word_diff
from ctxviewer.model.words import fmt_int, fmt_priority
from ctxviewer.util.visible import one_line

CHANGE_SYMBOLS: dict[Change, str] = {
    Change.UNCHANGED: "=",
    Change.ADDED: "+",
    Change.REMOVED: "-",
    Change.MOVED: "↕",
    Change.CONTENT_CHANGED: "~",
    Change.STATUS_CHANGED: "!",
    Change.PRIORITY_CHANGED: "^",
    Change.RETOKENIZED: "#",
}
"""One symbol per change kind (shown with the colour, so the change is legible without colour)."""

CHANGE_LABELS: dict[Change, str] = {
    Change.UNCHANGED: "unchanged",
    Change.ADDED: "added",
    Change.REMOVED: "removed",
    Change.MOVED: "moved",
    Change.CONTENT_CHANGED: "content changed",
    Change.STATUS_CHANGED: "status changed",
    Change.PRIORITY_CHANGED: "priority changed",
    Change.RETOKENIZED: "re-tokenized",
}
"""Words for each change kind."""


def _pos(p: int | None) -> str:
    return "—" if p is None else str(p)


def _status(item: Any) -> str:
    if item is None:
        return "absent"
    if item.omission_reason and item.status.value == "omitted":
        return f"omitted ({item.omission_reason})"
    return str(item.status.value)


def describe(d: ItemDiff) -> str:
    """What changed for one row, in words: ``"moved 20 → 24 (#2); priority 70 → 50"``,
    ``"retained → omitted (budget)"``, ``"re-tokenized 52 → 53 tokens: accounting change, content
    identical"``, ``"added at 7"``, ``"unchanged"``."""
    parts: list[str] = []
    for c in d.changes:
        if c is Change.ADDED:
            parts.append(f"added at {_pos(d.position_b)}" if d.position_b else f"added ({_status(d.b)})")
        elif c is Change.REMOVED:
            parts.append(f"removed from {_pos(d.position_a)}" if d.position_a else f"removed ({_status(d.a)})")
        elif c is Change.STATUS_CHANGED:
            parts.append(f"{_status(d.a)} → {_status(d.b)}")
        elif c is Change.CONTENT_CHANGED:
            parts.append(f"content changed ({fmt_int(d.tokens_a)} → {fmt_int(d.tokens_b)} tokens)")
        elif c is Change.MOVED:
            parts.append(f"moved {_pos(d.position_a)} → {_pos(d.position_b)} (#{d.move_number})")
        elif c is Change.PRIORITY_CHANGED:
            assert d.a is not None and d.b is not None
            parts.append(f"priority {fmt_priority(d.a.priority)} → {fmt_priority(d.b.priority)}")
        elif c is Change.RETOKENIZED:
            parts.append(f"re-tokenized {fmt_int(d.tokens_a)} → {fmt_int(d.tokens_b)} tokens: "
                         "accounting change, content identical")
        else:
            parts.append("unchanged")
    if d.paired_by_content:
        parts.append(f"same content as A's {d.a.id if d.a else '?'}")
    return "; ".join(parts)


def item_json(d: ItemDiff) -> dict[str, Any]:
    """One row of ``items`` in the ``--json`` output."""
    return {
        "change": d.change.value,
        "changes": [c.value for c in d.changes],
        "kind": d.kind.value,
        "id": d.id,
        "id_a": d.a.id if d.a else None,
        "position_a": d.position_a,
        "position_b": d.position_b,
        "status_a": d.a.status.value if d.a else None,
        "status_b": d.b.status.value if d.b else None,
        "reason_a": d.a.omission_reason if d.a else None,
        "reason_b": d.b.omission_reason if d.b else None,
        "priority_a": d.a.priority if d.a else None,
        "priority_b": d.b.priority if d.b else None,
        "tokens_a": d.tokens_a,
        "tokens_b": d.tokens_b,
        "move_number": d.move_number,
    }


def diff_json(diff: TraceDiff) -> dict[str, Any]:
    """The ``ctxviewer diff --json`` object. Keys: ``trace_a``, ``trace_b``, ``no_change``,
    ``accounting_only``, ``counts`` (primary change -> rows), ``items`` (see :func:`item_json`),
    ``first_divergence`` (``{position, id_a, id_b}`` or null), ``allocations_delta`` (category ->
    ``{used_a, used_b, delta, declared_a, declared_b}``), ``policy`` (``{a, b, changed,
    text_changed, text_diff}``: ``text_diff`` is the word diff of the two policy texts as
    ``[{op, text}]`` runs, ``op`` ``equal`` / ``delete`` / ``insert``, or null when unchanged),
    ``fields`` and ``accounting`` (``{name, a, b}``), ``verdict_a``, ``verdict_b``, ``fits_a``,
    ``fits_b``, ``state_a``, ``state_b``, ``evidence_order`` (``{id, position_a, position_b, rank_a,
    rank_b, needed_a, needed_b, band_a, band_b}``), ``needed_documents`` (``{id, rank_a, rank_b,
    band_a, band_b, needed_a, needed_b, outcome}``: see :func:`needed_outcome`), ``needed_source_a``,
    ``needed_source_b``, ``findings`` (``{rule, table_row, status, count_a, count_b, severity_a,
    severity_b, message_a, message_b}``, status ``fixed`` / ``new`` / ``changed`` / ``unchanged``),
    ``response`` (``{changed, text_a, text_b, finish_reason_a, finish_reason_b}``) and
    ``tool_calls`` (``{name, in_a, in_b, arguments_a, arguments_b, argument_changes, verdict_a,
    verdict_b, checks}``; ``argument_changes``: ``{key, change, a, b}`` per argument that differs,
    :func:`ctxviewer.diff.arguments.change_json`). Tokens throughout; null = not recorded / absent."""
    fd = diff.first_divergence
    p = diff.policy
    return {
        "trace_a": diff.trace_a,
        "trace_b": diff.trace_b,
        "no_change": diff.no_change,
        "accounting_only": diff.accounting_only,
        "counts": {c.value: n for c, n in diff.counts.items()},
        "items": [item_json(d) for d in diff.items],
        "first_divergence": None if fd is None else {"position": fd.position, "id_a": fd.id_a, "id_b": fd.id_b},
        "allocations_delta": {
            c.category.value: {"used_a": c.used_a, "used_b": c.used_b, "delta": c.delta,
                               "declared_a": c.declared_a, "declared_b": c.declared_b}
            for c in diff.allocations
        },
        "policy": {
            "a": {"id": p.id_a, "version": p.version_a, "available": p.available_a},
            "b": {"id": p.id_b, "version": p.version_b, "available": p.available_b},
            "changed": p.changed,
            "text_changed": p.text_changed,
            "text_diff": _policy_segments(diff),
        },
        "fields": [{"name": f.name, "a": f.a, "b": f.b} for f in diff.fields],
        "accounting": [{"name": f.name, "a": f.a, "b": f.b} for f in diff.accounting],
        "verdict_a": diff.verdict_a,
        "verdict_b": diff.verdict_b,
        "fits_a": diff.fits_a,
        "fits_b": diff.fits_b,
        "state_a": diff.state_a,
        "state_b": diff.state_b,
        "evidence_order": [
            {"id": e.id, "position_a": e.position_a, "position_b": e.position_b,
             "rank_a": e.rank_a, "rank_b": e.rank_b, "needed_a": e.needed_a, "needed_b": e.needed_b,
             "band_a": e.band_a, "band_b": e.band_b} for e in diff.evidence
        ],
        "needed_documents": [
            {"id": e.id, "rank_a": e.rank_a, "rank_b": e.rank_b, "band_a": e.band_a, "band_b": e.band_b,
             "needed_a": e.needed_a, "needed_b": e.needed_b, "outcome": needed_outcome(e)} for e in diff.needed
        ],
        "needed_source_a": diff.needed_source_a,
        "needed_source_b": diff.needed_source_b,
        "findings": [
            {"rule": f.rule, "table_row": f.table_row, "status": f.status, "count_a": f.count_a,
             "count_b": f.count_b, "severity_a": f.severity_a, "severity_b": f.severity_b,
             "message_a": f.message_a, "message_b": f.message_b} for f in diff.findings
        ],
        "response": {"changed": diff.response_changed, "text_a": diff.response_a, "text_b": diff.response_b,
                     "finish_reason_a": diff.finish_reason_a, "finish_reason_b": diff.finish_reason_b},
        "tool_calls": [
            {"name": t.name, "in_a": t.in_a, "in_b": t.in_b, "arguments_a": t.arguments_a,
             "arguments_b": t.arguments_b, "argument_changes": [change_json(c) for c in t.argument_changes],
             "verdict_a": t.verdict_a, "verdict_b": t.verdict_b,
             "checks": [{"check": c.check, "passed_a": c.passed_a, "passed_b": c.passed_b} for c in t.checks]}
            for t in diff.tool_calls
        ],
    }


def headline(diff: TraceDiff) -> str:
    """One line: ``"2 moved, 1 content changed; first divergence at position 19"``, ``"no change"``,
    or ``"accounting change only: content identical"``."""
    if diff.no_change:
        return "no change"
    if diff.accounting_only:
        return "accounting change only: content identical"
    order = [Change.ADDED, Change.REMOVED, Change.STATUS_CHANGED, Change.CONTENT_CHANGED, Change.MOVED,
             Change.PRIORITY_CHANGED, Change.RETOKENIZED]
    counts = diff.counts
    parts = [f"{counts[c]} {CHANGE_LABELS[c]}" for c in order if counts.get(c)]
    text = ", ".join(parts) or "items unchanged"
    fd = diff.first_divergence
    text += "; same content sent" if fd is None else f"; first divergence at position {fd.position}"
    return text


def evidence_moves(diff: TraceDiff, limit: int = 4) -> str | None:
    """Where the moved evidence documents went, by rank among the evidence sent:
    ``"PARTS-NB-RIDGEBACK2 6 → 3, KB-1004 4 → 8"`` (at most ``limit``, then ``"+N more"``);
    ``None`` when no evidence document moved."""
    moved = {d.id for d in diff.items if Change.MOVED in d.changes and d.kind.value == "evidence"}
    places = [e for e in diff.evidence if e.id in moved]
    if not places:
        return None
    text = ", ".join(f"{one_line(e.id)} {_pos(e.rank_a)} → {_pos(e.rank_b)}" for e in places[:limit])
    return text + (f", +{len(places) - limit} more" if len(places) > limit else "")


def needed_outcome(e: EvidencePlace) -> str:
    """Did B fix the place of a needed document? ``"out of the middle"``, ``"still in the
    middle"``, ``"moved into the middle"``, ``"now sent"``, ``"no longer sent"``, ``"not sent in
    either"``, ``"not in the middle in either"`` (bands of :mod:`ctxviewer.assess.evidence_positions`:
    Table 3.1 row 3, lost in the middle)."""
    if e.rank_a is None and e.rank_b is None:
        return "not sent in either"
    if e.rank_b is None:
        return "no longer sent"
    if e.rank_a is None:
        return "now sent"
    if e.band_a == "middle":
        return "still in the middle" if e.band_b == "middle" else "out of the middle"
    return "moved into the middle" if e.band_b == "middle" else "not in the middle in either"


def _place(rank: int | None, sent: int, band: str | None) -> str:
    return "not sent" if rank is None else f"{rank} of {sent}" + (f" ({band})" if band else "")


def needed_lines(diff: TraceDiff) -> list[str]:
    """One line per needed document: ``"KB-1004 (best match with the question): evidence 4 of 8
    (edge) → 8 of 8 (edge), 4 places later; not in the middle in either"``. Empty when neither
    request has a needed document."""
    how = {"marked": "marked as needed", "best match": "best match with the question"}
    out = []
    for e in diff.needed:
        source = diff.needed_source_b if e.needed_b else diff.needed_source_a
        who = how.get(source or "", "needed")
        if e.needed_a != e.needed_b:
            who += ", in B" if e.needed_b else ", in A"
        step = ""
        if e.rank_a is not None and e.rank_b is not None and e.rank_a != e.rank_b:
            k = e.rank_b - e.rank_a
            step = f", {abs(k)} place{'s' if abs(k) != 1 else ''} {'later' if k > 0 else 'earlier'}"
        out.append(f"{one_line(e.id)} ({who}): evidence {_place(e.rank_a, diff.evidence_sent_a, e.band_a)} → "
                   f"{_place(e.rank_b, diff.evidence_sent_b, e.band_b)}{step}; {needed_outcome(e)}")
    return out


def findings_line(diff: TraceDiff, limit: int = 3) -> str:
    """The findings the replay fixed, those it brought and those still there, by rule id, leaving
    out empty groups: ``"fixed evidence.needed_in_middle"``, ``"new budget.over_capacity; still
    policy.unavailable"``, or ``"none in either"``. At most ``limit`` rules per group, then
    ``"+N more"``."""
    groups = (("fixed", ("fixed",)), ("new", ("new",)), ("still", ("changed", "unchanged")))
    parts = []
    for word, status in groups:
        rules = [f.rule for f in diff.findings if f.status in status]
        if rules:
            parts.append(f"{word} " + ", ".join(rules[:limit])
                         + (f" +{len(rules) - limit} more" if len(rules) > limit else ""))
    return "; ".join(parts) or "none in either"


def _policy_segments(diff: TraceDiff) -> list[dict[str, str]] | None:
    p = diff.policy
    if not p.text_changed:
        return None
    return [{"op": s.op, "text": s.text} for s in word_diff(p.text_a, p.text_b).segments]


def policy_text_lines(diff: TraceDiff, words_limit: int = 8) -> list[str]:
    """The word diff of the two policy texts, when both were kept and differ: ``"policy text
    1 word removed, 3 added"`` and then the first ``words_limit`` changed runs as ``- 'old'`` /
    ``+ 'new'`` lines. Empty when the texts are the same (or one was not kept)."""
    p = diff.policy
    if not p.text_changed:
        return []
    wd = word_diff(p.text_a, p.text_b)
    n_del, n_ins = wd.words_deleted, wd.words_inserted
    out = [f"policy text       {n_del} word{'' if n_del == 1 else 's'} removed, {n_ins} added"]
    for s in [s for s in wd.segments if s.op != "equal"][:words_limit]:
        out.append(f"      {'-' if s.op == 'delete' else '+'} {_clip(s.text)!r}")
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "not recorded"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def _delta(v: int | None) -> str:
    return "not recorded" if v is None else f"{v:+,}"


def _clip(text: str, n: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


def format_diff_text(diff: TraceDiff, words_limit: int = 8) -> str:
    """The readable summary ``ctxviewer diff`` prints: headline, request-level changes, per-category
    tokens, evidence order, changed items (with the first ``words_limit`` word changes of content
    changes) and tool calls."""
    out = [f"A  {one_line(diff.trace_a)}", f"B  {one_line(diff.trace_b)}", "", headline(diff), ""]  # ids on one line
    fd = diff.first_divergence
    out.append("first divergence  " + ("none (same content, same order)" if fd is None else
               fd.words()))
    p = diff.policy
    pol_a, pol_b = f"{p.id_a or '?'} {p.version_a or 'version not recorded'}", f"{p.id_b or '?'} {p.version_b or 'version not recorded'}"
    out.append("policy            " + (f"{pol_a} → {pol_b}" if p.changed else f"{pol_b} (unchanged)"))
    out += policy_text_lines(diff, words_limit)
    out.append("eq. 3.1           " + (f"{diff.verdict_a} → {diff.verdict_b}" if diff.verdict_a != diff.verdict_b
                                       else f"{diff.verdict_b} (unchanged)"))
    if diff.state_a != diff.state_b:
        out.append(f"state             {diff.state_a} → {diff.state_b}")
    ev = evidence_moves(diff)
    if ev:
        out.append(f"evidence moved    {ev} (rank among the evidence sent)")
    for line in needed_lines(diff):
        out.append(f"needed document   {line}")
    out.append(f"findings          {findings_line(diff)}")
    for f in (*diff.fields, *diff.accounting):
        out.append(f"{f.name:<17} {_fmt(f.a)} → {_fmt(f.b)}")
    if diff.accounting_only:
        out.append("                  accounting change, content identical")
    out += ["", f"{'category':<16}{'used A':>9}{'used B':>9}{'delta':>9}"]
    for c in diff.allocations:
        out.append(f"{CATEGORY_LABELS[c.category]:<16}{_fmt(c.used_a):>9}{_fmt(c.used_b):>9}{_delta(c.delta):>9}")
    moved_ev = [e for e in diff.evidence if e.position_a != e.position_b]
    if diff.evidence:
        out += ["", "evidence order (request position A → B; * moved, N needed)"]
        for e in diff.evidence:
            mark = ("  *" if e in moved_ev else "") + ("  N" if e.needed else "")
            out.append(f"  {one_line(e.id):<28} {_pos(e.position_a):>4} → {_pos(e.position_b):<4}{mark}".rstrip())
    changed = diff.changed_items
    out += ["", f"items: {len(diff.items)} aligned, {len(changed)} changed"]
    for d in changed:
        out.append(f"  {CHANGE_SYMBOLS[d.change]} {d.kind.value:<8} {one_line(d.id):<28} {describe(d)}")
        if Change.CONTENT_CHANGED in d.changes and d.a is not None and d.b is not None:
            wd = word_diff(d.a.content, d.b.content)
            hunks = [s for s in wd.segments if s.op != "equal"][:words_limit]
            for s in hunks:
                out.append(f"      {'-' if s.op == 'delete' else '+'} {_clip(s.text)!r}")
    if diff.response_changed:
        wd = word_diff(diff.response_a, diff.response_b)
        out += ["", f"response: changed ({wd.words_deleted} words removed, {wd.words_inserted} added)"]
        if diff.finish_reason_a != diff.finish_reason_b:
            out.append(f"  finish reason {_fmt(diff.finish_reason_a)} → {_fmt(diff.finish_reason_b)}")
    else:
        out += ["", "response: unchanged"]
    if diff.tool_calls:
        out += ["", "tool calls"]
        for t in diff.tool_calls:
            side = "both" if t.in_a and t.in_b else ("A only" if t.in_a else "B only")
            out.append(f"  {t.name} ({side}): verdict {_fmt(t.verdict_a)} → {_fmt(t.verdict_b)}")
            if t.in_a and t.in_b:
                for ac in t.argument_changes:
                    out.append(f"    argument {change_line(ac)}")
            for chk in t.checks:
                if chk.passed_a != chk.passed_b:
                    out.append(f"    {chk.check}: {_passed(chk.passed_a)} → {_passed(chk.passed_b)}")
    else:
        out += ["", "tool calls: none in either"]
    if any(f.status != "unchanged" for f in diff.findings):
        out += ["", "findings (A → B)"]
        for fc in diff.findings:
            if fc.status != "unchanged":
                out.append(f"  {fc.status:<9} {fc.rule}: {_sev(fc.severity_a, fc.count_a)} → "
                           f"{_sev(fc.severity_b, fc.count_b)}")
    return "\n".join(out)


def _sev(severity: str | None, count: int) -> str:
    return "none" if not count else f"{severity}" + (f" x{count}" if count > 1 else "")


def _passed(v: bool | None) -> str:
    return "not run" if v is None else ("passed" if v else "failed")
