"""A re-trim reuses the last candidate list's removal order and segments only when it is the same list."""

from __future__ import annotations

from dataclasses import replace

from ctxviewer.builder import Candidate, TextRule, textbook_trim, trim
from ctxviewer.model.trace import Kind


def _cands() -> list[Candidate]:
    out = [Candidate(Kind.POLICY, "policy", "You answer from the documents only. ")]
    for i in range(12):
        out.append(Candidate(Kind.EVIDENCE, f"doc-{i}", f"Document {i} says the refund window is {i + 10} days. ",
                             priority=float(i % 5)))
    out.append(Candidate(Kind.USER, "user", "How long is the refund window?"))
    return out


def test_same_candidates_other_budgets_equal_a_fresh_rule_and_the_textbook_loop() -> None:
    cands = _cands()
    rule = TextRule("cl100k_base")
    full = rule.count(cands)
    for budget in (full, full - 30, full // 2, full - 100, full // 2):
        got = trim(cands, rule, budget)
        assert got == trim(cands, TextRule("cl100k_base"), budget)
        assert got == textbook_trim(cands, TextRule("cl100k_base"), budget)


def test_a_list_of_the_same_length_with_other_priorities_is_not_served_the_old_order() -> None:
    cands = _cands()
    rule = TextRule("cl100k_base")
    budget = rule.count(cands) // 2
    first = trim(cands, rule, budget)
    flipped = [replace(c, priority=10.0 - c.priority) if c.kind is Kind.EVIDENCE else c for c in cands]
    second = trim(flipped, rule, budget)
    assert second == textbook_trim(flipped, TextRule("cl100k_base"), budget)
    assert first.removed != second.removed
    assert [cands[i].id for i in first.removed[:3]] == ["doc-0", "doc-5", "doc-10"]
    assert [flipped[i].id for i in second.removed[:3]] == ["doc-4", "doc-9", "doc-3"]
