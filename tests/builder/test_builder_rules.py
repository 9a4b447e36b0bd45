"""The chapter 3.3 rules on the chapter's own examples, with exact token values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.builder import Builder, BuildError, Candidate, RequiredOverBudgetError, TextRule
from ctxviewer.model.trace import Category, Kind, Status
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore

WEATHER = json.loads((Path(__file__).resolve().parents[1] / "data" / "requests" / "weather_tool.json").read_text())


def tok(n: int) -> str:
    """Text of exactly ``n`` cl100k_base tokens that stays ``n`` when concatenated (" a" * n)."""
    return " a" * n


def plain(capacity: int, reserve: int) -> Builder:
    """A builder whose request is the items' text concatenated (so item tokens add up exactly)."""
    return Builder("gpt-4", capacity=capacity, reserved_output_tokens=reserve,
                   rule=TextRule("cl100k_base", template=lambda c: c.text))


def chapter_candidates(extra_evidence: int = 0) -> list[Candidate]:
    """Section 3.1's 8,000-token request: 800 policy, 1,200 history, 3,000 evidence, 600 tools, 400 user."""
    cands = [
        Candidate(Kind.POLICY, "policy", tok(800)),
        Candidate(Kind.HISTORY, "h1", tok(600), priority=0.4),
        Candidate(Kind.HISTORY, "h2", tok(600), priority=0.8),
        Candidate(Kind.EVIDENCE, "e1", tok(1000), priority=0.9),
        Candidate(Kind.EVIDENCE, "e2", tok(1000), priority=0.7),
        Candidate(Kind.EVIDENCE, "e3", tok(1000), priority=0.5),
    ]
    if extra_evidence:
        cands.append(Candidate(Kind.EVIDENCE, "e4", tok(extra_evidence), priority=0.6))
    return cands + [Candidate(Kind.TOOL, "tools", tok(600), priority=1.0), Candidate(Kind.USER, "user", tok(400))]


def test_8000_token_example_fits_with_800_margin_and_is_the_identity() -> None:
    r = plain(8000, 1200).build(chapter_candidates())
    assert r.input_tokens == 6000
    assert 8000 - (r.input_tokens + 1200) == 800
    assert all(i.status is Status.RETAINED for i in r.trace.items)
    assert [i.id for i in r.trace.retained] == [c.id for c in chapter_candidates()]


def test_evidence_plus_1500_is_over_by_700_and_trimming_removes_h1_then_e3() -> None:
    cands = chapter_candidates(extra_evidence=1500)
    assert sum(len(c.text) // 2 for c in cands) + 1200 - 8000 == 700
    r = plain(8000, 1200).build(cands)
    assert [cands[i].id for i in r.trim.removed] == ["h1", "e3"]
    assert r.input_tokens == 5900
    assert r.selection()["omitted"] == [
        {"kind": "history", "id": "h1", "reason": "budget"},
        {"kind": "evidence", "id": "e3", "reason": "budget"},
    ]


def test_history_that_would_orphan_a_tool_result_drops_the_call_with_it() -> None:
    cands = [
        Candidate(Kind.POLICY, "system", tok(100)),
        Candidate(Kind.HISTORY, "U1", tok(100), priority=0.1, role="user"),
        Candidate(Kind.HISTORY, "A1", tok(50), priority=0.2, role="assistant", tool_call_ids=("c1",)),
        Candidate(Kind.TOOL, "T1", tok(150), priority=0.3, tool_call_id="c1"),
        Candidate(Kind.HISTORY, "A2", tok(100), priority=0.5, role="assistant"),
        Candidate(Kind.USER, "U2", tok(100)),
    ]
    # Room for system + T1 + A2 + U2 (450): dropping U1 and A1 alone would fit but orphan T1.
    r = plain(1000, 550).build(cands)
    assert [i.id for i in r.trace.retained] == ["system", "A2", "U2"]
    assert [i.id for i in r.trace.omitted] == ["U1", "A1", "T1"]
    assert r.trace.item("T1").omission_reason == "budget (dropped with tool call A1)"
    assert r.trace.item("A1").omission_reason == "budget (with its 1 tool result(s))"
    assert r.input_tokens == 300


def test_required_policy_over_budget_by_100_names_100() -> None:
    with pytest.raises(RequiredOverBudgetError, match="over by 100 tokens; nothing was sent") as exc:
        plain(1000, 200).build([Candidate(Kind.POLICY, "policy", tok(880)),
                                Candidate(Kind.EVIDENCE, "e", tok(50), priority=1),
                                Candidate(Kind.USER, "u", tok(20))])
    assert exc.value.overrun == 100


def test_pinned_item_is_never_removed() -> None:
    cands = [Candidate(Kind.POLICY, "p", tok(10)), Candidate(Kind.EVIDENCE, "low", tok(50), 0.0, pinned=True),
             Candidate(Kind.EVIDENCE, "high", tok(50), 9.0), Candidate(Kind.USER, "u", tok(10))]
    r = plain(200, 100).build(cands)
    assert [i.id for i in r.trace.omitted] == ["high"]


def test_category_caps_apply_before_the_global_limit() -> None:
    r = plain(8000, 1200).build(chapter_candidates(), caps={Category.EVIDENCE: 2000})
    assert [i.id for i in r.trace.omitted] == ["e3"]
    assert r.trace.item("e3").omission_reason == "cap:evidence"
    assert r.trace.budget[Category.EVIDENCE] == 2000


def test_ties_go_to_the_earliest_candidate() -> None:
    cands = [Candidate(Kind.POLICY, "p", tok(10)), Candidate(Kind.EVIDENCE, "x", tok(50), 1.0),
             Candidate(Kind.EVIDENCE, "y", tok(50), 1.0), Candidate(Kind.USER, "u", tok(10))]
    assert [i.id for i in plain(170, 100).build(cands).trace.omitted] == ["x"]


def test_empty_candidate_list() -> None:
    r = Builder("gpt-4o", capacity=8000).build([])
    assert r.trace.items == () and r.input_tokens == 3  # the reply priming alone
    assert r.request == {"model": "gpt-4o", "messages": []}
    assert r.selection()["retained"] == [] and r.selection()["omitted"] == []


def test_known_counts_through_the_builder() -> None:
    hello = Builder("gpt-4o").build([Candidate(Kind.USER, "u", "hello")])
    assert hello.input_tokens == 8
    sys_text, user_text = (m["content"] for m in WEATHER["messages"])
    cands = [Candidate(Kind.POLICY, "sys", sys_text), Candidate(Kind.TOOL, "weather", json.dumps(WEATHER["tools"][0])),
             Candidate(Kind.USER, "q", user_text)]
    assert Builder("gpt-4o").build(cands).input_tokens == 101
    assert Builder("gpt-4").build(cands).input_tokens == 105
    assert Builder("gpt-4o").build(cands).request["tools"] == WEATHER["tools"]


def test_reserve_that_leaves_no_input_budget_is_an_error_in_words() -> None:
    with pytest.raises(BuildError, match="reserved output 8,000 tokens leaves no input budget in the 8,000-token"):
        Builder("gpt-4o", capacity=8000, reserved_output_tokens=8000)
    with pytest.raises(BuildError, match="capacity not known"):
        Builder("some-deployment")


def test_selection_record_is_the_stored_trace(tmp_path: Path) -> None:
    r = plain(8000, 1200).build(chapter_candidates(extra_evidence=1500), policy_version="v3", trace_id="t1")
    assert r.selection()["policy_version"] == "v3"
    assert r.trace.input_tokens == 5900 and r.trace.reserved_output_tokens == 1200
    with TraceStore.create(tmp_path / "t.db") as store:
        store.add(with_facts([r.trace]))
    with TraceStore.open(tmp_path / "t.db") as store:
        back = store.load("t1")
    assert [(i.id, i.status, i.position, i.omission_reason) for i in back.items] == [
        (i.id, i.status, i.position, i.omission_reason) for i in r.trace.items]
    assert back.input_tokens == 5900
