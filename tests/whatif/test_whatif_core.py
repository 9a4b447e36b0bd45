"""What-if re-trims on the chapter's examples (ctxviewer.builder.whatif)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ctxviewer.builder import Candidate
from ctxviewer.builder.whatif import Scenario, candidates_of, filler, run
from ctxviewer.model.findings import State
from ctxviewer.model.trace import Category, ContextItem, Kind, Status
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture(scope="module")
def b8k():
    with TraceStore.open(SAMPLES) as store:
        return store.load("budget-8k")


def test_as_recorded_is_the_identity_and_fits_with_800_margin(b8k) -> None:
    o = run(b8k, Scenario())
    assert o.verdict == "fits, 800 tokens margin" and o.state is State.OK
    assert o.changes == () and o.same_as_recorded
    assert [i.id for i in o.trace.retained] == [i.id for i in b8k.retained]
    assert o.trace.replay_of == "budget-8k"


def test_evidence_plus_1500_is_over_by_700_and_the_evidence_budget_trims_the_lowest_priorities(b8k) -> None:
    o = run(b8k, Scenario(added=(Candidate(Kind.EVIDENCE, "new-doc", filler(1500), 75.0),)))
    assert o.before_trim == "before trimming: over capacity by 700 tokens: had 6,800 tokens left, needed 7,500"
    # The declared B_evidence = 3,000 caps evidence first (as budget-8k-over's recording shows): 4,500
    # evidence tokens lose the lowest priorities KB-1005 (55), KB-1001 (58), PARTS (60), INV (66) and
    # KB-1004 (70), 1,692 tokens, to 2,808; the 6,000-token input budget (C - B_out - margin) then holds.
    gone = [c.id for c in o.changes if c.after == "omitted (budget:evidence)"]
    assert gone == ["KB-1004", "INV-CF-TALUS-MID-W", "PARTS-NB-RIDGEBACK2", "KB-1001", "KB-1005"]
    assert sum(i.tokens for i in b8k.items if i.id in gone) == 1692
    assert o.changes[-1].id == "new-doc" and o.changes[-1].before == "not in the recording"
    assert o.trace.input_tokens == 7500 - 1692
    assert o.state is State.OK
    assert o.verdict == "fits, 992 tokens margin; before trimming: over by 700"
    assert o.category_delta[Category.EVIDENCE] == (3000, 2808)
    assert o.category_delta[Category.HIST] == (1200, 1200)


def test_the_declared_safety_margin_is_the_input_budget(b8k) -> None:
    # C 7,000 - B_out 1,200 - margin 800 = 5,000: 1,000 of 6,000 go, lowest priority first (ties: earlier).
    o = run(b8k, Scenario(capacity=7000))
    gone = [c.id for c in o.changes]
    assert gone == ["turn-00", "turn-01", "turn-02", "turn-03", "turn-04", "turn-05", "turn-06", "KB-1005"]
    assert o.trace.input_tokens == 4993 and 6000 - sum(b8k.item(i).tokens for i in gone) == 4993
    assert o.verdict == "fits, 807 tokens margin; before trimming: over by 200"
    assert "budget: input <= C 7,000 - B_out 1,200 - safety margin 800 = 5,000 tokens" in o.rules


def test_priority_and_pin_change_which_items_go(b8k) -> None:
    o = run(b8k, Scenario(capacity=7000, priorities={"KB-1005": 80.0}, pinned=frozenset({"turn-00"})))
    gone = [c.id for c in o.changes if c.after.startswith("omitted")]
    # 1,000 must go. turn-00 is pinned and KB-1005 (was 55) now ranks 80: turn-01..turn-07 (51..57,
    # 653 tokens), then the two at 58 in order, turn-08 (73) and KB-1001 (415): 1,141 tokens.
    assert gone == ["turn-01", "turn-02", "turn-03", "turn-04", "turn-05", "turn-06", "turn-07", "turn-08", "KB-1001"]
    assert o.trace.input_tokens == 6000 - 1141
    assert o.notes == ()  # a pinned retained item overrides no rule


def test_required_policy_over_by_100_names_100(b8k) -> None:
    # policy 800 + user 400 = 1,200 required; capacity 3,100 - reserve 1,200 - margin 800 leaves 1,100.
    o = run(b8k, Scenario(capacity=3100))
    assert o.trace is None and o.overrun == 100 and o.state is None
    assert "over by 100 tokens; nothing was sent" in o.verdict
    assert o.recorded.verdict == "fits, 800 tokens margin"


def test_caps_and_moves(b8k) -> None:
    o = run(b8k, Scenario(caps={Category.EVIDENCE: 2500}, moves=(("KB-1005", 1),)))
    # evidence 3,000 > 2,500: KB-1005 (priority 55, 390) then KB-1001 (58, 415) go -> 2,195.
    assert [c.id for c in o.changes] == ["KB-1005", "KB-1001"]
    assert o.trace.item("KB-1001").omission_reason == "cap:evidence"
    assert o.trace.items[1].id == "KB-1005"


def test_orphan_tool_result_history_drops_the_call_with_its_result(b8k) -> None:
    def item(kind: Kind, iid: str, n: int, prio: float | None, role: str) -> ContextItem:
        return ContextItem(kind=kind, id=iid, content=filler(n), tokens=n, priority=prio, role=role,
                           position=None)
    items = (item(Kind.POLICY, "system", 100, None, "system"), item(Kind.HISTORY, "U1", 100, 0.1, "user"),
             item(Kind.HISTORY, "A1", 50, 0.2, "assistant"), item(Kind.HISTORY, "T1", 150, 0.3, "tool"),
             item(Kind.HISTORY, "A2", 100, 0.5, "assistant"), item(Kind.USER, "U2", 100, None, "user"))
    items = tuple(replace(it, position=k + 1) for k, it in enumerate(items))
    t = replace(b8k, items=items, input_tokens=600, reserved_output_tokens=400, usage=replace(b8k.usage, input_tokens=600),
                endpoint=replace(b8k.endpoint, capacity=1000), budget={}, safety_margin=None)
    assert run(t, Scenario()).changes == ()  # 600 + 400 fit C = 1,000: nothing to trim
    o = run(t, Scenario(reserve=550))  # 450 for input: U1 (0.1) goes, then A1 with its result T1 (0.3)
    assert [i.id for i in o.trace.retained] == ["system", "A2", "U2"]
    assert [i.id for i in o.trace.omitted] == ["U1", "A1", "T1"]
    assert o.trace.item("T1").omission_reason == "budget (dropped with tool call A1)"


def test_empty_candidate_list(b8k) -> None:
    empty = replace(b8k, items=(), input_tokens=0)
    o = run(empty, Scenario())
    assert o.trace is not None and o.trace.items == () and o.trace.input_tokens == 0
    assert o.verdict == o.recorded.verdict
    assert o.verdict.startswith("fits, 6,800 tokens margin (by the count; 682 by the provider-reported input 6,118); "
                                "policy support-policy was required but no policy item")  # its usage kept: 6,118


def test_items_filtered_before_trimming_stay_omitted(b8k) -> None:
    denied = replace(b8k.items[-2], status=Status.OMITTED, position=None, omission_reason="permission")
    t = replace(b8k, items=(*b8k.items[:-2], denied, b8k.items[-1]))
    assert denied.id not in [c.id for c in candidates_of(t, Scenario())]
    o = run(t, Scenario(capacity=100_000))
    assert o.trace.item(denied.id).omission_reason == "permission"


def test_an_unrecorded_reserve_is_said_as_such_in_the_budget_rule() -> None:
    """New user 2026-12-07: 'C 2,000 - B_out 0' beside 'reserved output not recorded'."""
    from factories import make_trace

    t = replace(make_trace(), reserved_output_tokens=None, safety_margin=None)
    out = run(t, Scenario(capacity=2000))
    assert "budget: input <= C 2,000 - B_out (not recorded: 0) = 2,000 tokens" in out.rules
    recorded = run(make_trace(), Scenario(capacity=9000))
    assert any(r.startswith("budget: input <= C 9,000 - B_out 1,200") for r in recorded.rules)


def test_a_whatif_says_whether_its_items_changed(b8k) -> None:
    """The orphan check reads it: a changed what-if keeps the recording's answer to another request."""
    from ctxviewer.builder.whatif import WHATIF_CHANGED

    assert run(b8k, Scenario()).trace.attributes[WHATIF_CHANGED] is False
    moved = run(b8k, Scenario(moves=((b8k.retained[-1].id, 0),)))
    assert moved.trace.attributes[WHATIF_CHANGED] is True
